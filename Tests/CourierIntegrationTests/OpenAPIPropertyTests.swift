import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import PropertyBased
import Testing

/// CourierOpenAPI's promises as properties: `CourierClientTransport.send` over an in-memory
/// transport below the `Client`, with generated operations (methods, server URLs, paths, queries,
/// headers, bodies of up to 2.5 MiB), responses (every status, headers, bytes), credentials and
/// hosts, malformed input, and the response size limit.
///
/// Each input is drawn from a list of numbers (``Dice``; text such as a path or a header value
/// from a dice seeded by one of them), so a failing case shrinks toward the first choice of each
/// draw: the first method and host, fewer headers, a smaller body. The failure message prints
/// the case and the seed that reproduces it (`.fixedSeed(…)`).
@Suite("OpenAPIProperty: CourierClientTransport's promises as properties", .shrinking, .timeLimit(.minutes(5)))
struct OpenAPIPropertyTests {
    /// The numbers a case is drawn from: more than any case draws (the rest are left unread).
    static let codes = Gen.int(in: 0...(1 << 30)).array(of: 120)

    // MARK: - 1. Requests

    @Test(
        "any operation reaches the transport once: prefix + path, the query byte for byte, every header, the body's exact bytes and length"
    )
    func requestFidelity() async {
        await propertyCheck(count: 40, input: Self.codes.map(RequestCase.init)) { operation in
            let transport = PropertyTransport()
            let client = CourierClientTransport(Courier.Client(configuration: Courier.Configuration(transport: transport)), unauthenticatedOperations: ["op"])
            let payload = operation.body?.bytes()
            let request = operation.request
            let result = await Self.send(client, request, body: payload.map { operation.body!.httpBody($0) }, baseURL: operation.serverURL)
            if case .failure(let error) = result {
                Issue.record("\(operation) failed: \(error)")
                return
            }
            let received = transport.requests
            #expect(received.count == 1, "\(operation): \(received.count) requests")
            guard let sent = received.first else { return }
            #expect(sent.head.method == operation.method)
            #expect(sent.head.scheme == operation.scheme)
            #expect(sent.head.authority == operation.expectedAuthority)
            #expect(sent.head.path == operation.expectedTarget, "\(operation)")
            // Every header but Content-Length, which Courier frames itself (checked below).
            for name in Set(request.headerFields.map(\.name)) where name != .contentLength {
                #expect(
                    sent.head.headerFields[values: name] == request.headerFields[values: name],
                    "\(name): sent \(sent.head.headerFields[values: name]), given \(request.headerFields[values: name]); \(operation)")
            }
            #expect(sent.head.headerFields[values: .contentLength].allSatisfy { $0 == payload.map { String($0.count) } })
            switch (payload, sent.body) {
            case (nil, nil):
                break
            case (let payload?, let bytes?):
                #expect(bytes == payload, "\(bytes.count) bytes sent of \(payload.count); \(operation)")
                if operation.body!.knownLength {
                    #expect(sent.declaredLength == Int64(payload.count), "declared \(String(describing: sent.declaredLength)); \(operation)")
                } else if let declared = sent.declaredLength {
                    #expect(declared == Int64(payload.count), "declared \(declared); \(operation)")
                }
                #expect(sent.bodyError == nil, "\(String(describing: sent.bodyError)); \(operation)")
            default:
                Issue.record("body given: \(payload?.count ?? -1) bytes, sent: \(sent.body?.count ?? -1); \(operation)")
            }
        }
    }

    // MARK: - 2. Responses

    @Test("any response reaches the caller with its status, headers and bytes; no body exactly for HEAD, 1xx, 204 and 304")
    func responseFidelity() async {
        await propertyCheck(count: 150, input: Self.codes.map(ResponseCase.init)) { exchange in
            let transport = PropertyTransport(exchange.answer)
            let client = CourierClientTransport(Courier.Client(configuration: Courier.Configuration(transport: transport)), unauthenticatedOperations: ["op"])
            var request = HTTPRequest(method: exchange.method, scheme: nil, authority: nil, path: "/v1/things")
            if let accept = exchange.accept { request.headerFields[.accept] = accept }
            let result = await Self.send(client, request, body: nil, baseURL: "https://api.example.com")
            guard case .success(let (response, body)) = result else {
                Issue.record("\(exchange) failed: \(result)")
                return
            }
            #expect(transport.requests.count == 1)
            #expect(response.status.code == exchange.answer.status, "\(exchange)")
            for name in Set(exchange.answer.headers.map(\.name)) {
                #expect(
                    response.headerFields[values: name] == exchange.answer.headers[values: name],
                    "\(name): got \(response.headerFields[values: name]), sent \(exchange.answer.headers[values: name]); \(exchange)")
            }
            guard !exchange.hasNoBody else {
                #expect(body == nil, "a body for \(exchange)")
                return
            }
            guard let body else {
                Issue.record("no body for \(exchange)")
                return
            }
            if case .known(let length) = body.length {
                #expect(length == Int64(exchange.answer.body.count), "length \(length); \(exchange)")
            }
            do {
                let bytes = try await Data(collecting: body, upTo: .max)
                #expect(bytes == exchange.answer.body, "\(bytes.count) bytes of \(exchange.answer.body.count); \(exchange)")
            } catch {
                Issue.record("reading the body of \(exchange) failed: \(error)")
            }
        }
    }

    // MARK: - 3. Credentials

    @Test("the credential goes only to a listed host, only for an operation that is not public; one that needs it to an unlisted host fails and sends nothing")
    func credentialsGoOnlyWhereMeant() async {
        await propertyCheck(count: 300, input: Self.codes.map(CredentialCase.init)) { call in
            let transport = PropertyTransport()
            let configuration = Courier.Configuration(transport: transport, authentication: call.authentication, authorizedHosts: call.authorizedHosts)
            let client = CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: call.publicOperations)
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/me")
            request.headerFields[.accept] = "application/json"
            if let own = call.callersAuthorization { request.headerFields[.authorization] = own }
            let result = await Self.send(client, request, body: nil, baseURL: call.serverURL, operation: call.operation)
            let sent = transport.requests
            if call.kind == .none {
                // Nothing to attach: sent as it is, wherever it goes.
                #expect(sent.count == 1, "\(result); \(call)")
                #expect(sent.first?.head.headerFields[values: .authorization] == call.callersAuthorization.map { [$0] } ?? [], "\(call)")
                return
            }
            switch (call.needsCredential, call.isListed) {
            case (true, true) where call.kind == .emptyStore:
                guard case .failure(let error) = result, case .authentication(.missingCredential)? = error as? CourierError else {
                    Issue.record("expected missingCredential, got \(result); \(call)")
                    return
                }
                #expect(sent.isEmpty, "\(sent.count) requests sent; \(call)")
            case (true, false):
                guard case .failure(let error) = result, case .authentication(.hostNotAuthorized)? = error as? CourierError else {
                    Issue.record("expected hostNotAuthorized, got \(result); \(call)")
                    return
                }
                #expect(sent.isEmpty, "\(sent.count) requests sent; \(call)")
            case (true, true):
                #expect(sent.count == 1, "\(result); \(call)")
                #expect(sent.first?.head.headerFields[values: .authorization] == [call.credential], "\(call)")
            case (false, _):
                #expect(sent.count == 1, "\(result); \(call)")
                #expect(sent.first?.head.headerFields[values: .authorization].contains(call.credential) == false, "the credential was sent; \(call)")
            }
        }
    }

    /// Current behaviour, kept as documentation: the caller's own `Authorization` (a
    /// `ClientMiddleware`'s, say) on a public operation is the caller's header and goes as it is,
    /// to any host, listed or not; on an operation that needs the credential, Courier's replaces it.
    @Test("a caller's own Authorization on a public operation is forwarded as given, to listed and unlisted hosts alike (current behaviour)")
    func callersOwnAuthorization() async {
        await propertyCheck(count: 150, input: Self.codes.map(CredentialCase.init)) { call in
            var call = call
            call.publicOperations.insert(call.operation)
            let own = call.callersAuthorization ?? "Bearer caller-own"
            let transport = PropertyTransport()
            let configuration = Courier.Configuration(transport: transport, authentication: call.authentication, authorizedHosts: call.authorizedHosts)
            let client = CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: call.publicOperations)
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/users")
            request.headerFields[.authorization] = own
            _ = await Self.send(client, request, body: nil, baseURL: call.serverURL, operation: call.operation)
            #expect(transport.requests.first?.head.headerFields[values: .authorization] == [own], "\(call)")
        }
    }

    // MARK: - 4. Refusals

    @Test("a malformed operation fails with invalidRequest and sends nothing, while the same operation without the flaw is sent")
    func refusalsSendNothing() async {
        // One transport for every case, as a generated client keeps one: its cache of split
        // server URLs is warm, so a flawed URL after a sound one (or the reverse) is checked, not
        // remembered. Each case's requests carry a header of their own, so cases never count
        // another's. (Not a `static`: LeakSanitizer cannot see what a static keeps, and the
        // recorded requests would be reported as leaked.)
        let recording = PropertyTransport()
        let shared = CourierClientTransport(
            Courier.Client(configuration: Courier.Configuration(transport: recording)), unauthenticatedOperations: ["op"])
        await propertyCheck(count: 300, input: Self.codes.map(RefusalCase.init)) { refusal in
            let mark = UUID().uuidString
            func sent() -> Int { recording.requests.filter { $0.head.headerFields[Self.caseField] == mark }.count }
            var sound = refusal.sound.request
            sound.headerFields[Self.caseField] = mark
            var flawed = refusal.flawed.request
            flawed.headerFields[Self.caseField] = mark
            // The sound twin first, half the time: its server URL is then the cache's.
            let twinFirst = mark.utf8.first! % 2 == 0
            if twinFirst {
                let twinResult = await Self.send(shared, sound, body: refusal.sound.httpBody(), baseURL: refusal.sound.serverURL)
                if case .failure(let error) = twinResult { Issue.record("the twin without the flaw failed: \(error); \(refusal)") }
            }
            let result = await Self.send(shared, flawed, body: refusal.flawed.httpBody(), baseURL: refusal.flawed.serverURL)
            guard case .failure(let error) = result, case .invalidRequest? = error as? CourierError else {
                Issue.record("expected invalidRequest, got \(result); \(refusal)")
                return
            }
            #expect(sent() == (twinFirst ? 1 : 0), "the flaw was sent; \(refusal)")
            if !twinFirst {
                let twinResult = await Self.send(shared, sound, body: refusal.sound.httpBody(), baseURL: refusal.sound.serverURL)
                if case .failure(let error) = twinResult { Issue.record("the twin without the flaw failed: \(error); \(refusal)") }
            }
            #expect(sent() == 1, "the twin without the flaw: \(sent()) requests; \(refusal)")
        }
    }

    static let caseField = HTTPField.Name("X-Property-Case")!

    // MARK: - 5. The response size limit

    /// The transport hands the body over as one that reads the network does: streamed, or whole
    /// when it is short (never past the limit).
    @Test(
        "a JSON body is held to maximumResponseSize: all of it up to the limit, responseTooLarge past it, never more than the limit",
        arguments: [ReadMode.streamed, .whole])
    func responseSizeLimit(_ mode: ReadMode) async {
        await propertyCheck(count: 60, input: Self.codes.map { LimitCase($0, mode: mode, shape: .network) }) { limited in
            await Self.checkLimit(limited)
        }
    }

    /// A JSON body already in memory (a stub's, `RecordingTransport`'s, the HTTP cache's, a
    /// middleware's) is held to `maximumResponseSize` when the caller streams it, as when it is
    /// read whole. (Found by this test: limit 1000, 1001 bytes of `application/json`, `Accept:
    /// application/octet-stream`, and the caller read all 1001.)
    @Test(
        "a whole JSON body past maximumResponseSize (a stub's, the cache's, a middleware's) streamed to the caller fails with responseTooLarge",
        .shrinking(false))
    func wholeBodyPastTheLimit() async {
        await propertyCheck(count: 20, input: Self.codes.map { LimitCase($0, mode: .streamed, shape: .wholePastLimit) }) { limited in
            await Self.checkLimit(limited)
        }
    }

    /// Sends `limited`'s operation and reads the body as the caller does.
    private static func checkLimit(_ limited: LimitCase) async {
        let transport = PropertyTransport(limited.answer)
        var configuration = Courier.Configuration(transport: transport)
        configuration.maximumResponseSize = limited.limit
        let client = CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: ["op"])
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/report")
        // Streamed: a JSON-first operation that also accepts a file, as the runtime writes it.
        request.headerFields[.accept] = limited.mode == .streamed ? "application/json, application/octet-stream" : "application/json"
        let result = await Self.send(client, request, body: nil, baseURL: "https://api.example.com")
        var received = Data()
        var failure: (any Error)?
        switch result {
        case .failure(let error):
            failure = error
        case .success(let (_, body)):
            guard let body else {
                Issue.record("no body; \(limited)")
                return
            }
            do {
                for try await chunk in body { received.append(contentsOf: chunk) }
            } catch {
                failure = error
            }
        }
        let length = limited.answer.body.count
        if length <= limited.limit {
            #expect(failure == nil, "\(String(describing: failure)); \(limited)")
            #expect(received == limited.answer.body, "read \(received.count) of \(length) bytes; \(limited)")
        } else {
            #expect(Self.isTooLarge(failure), "expected responseTooLarge, got \(String(describing: failure)) after \(received.count) bytes; \(limited)")
            #expect(received.count <= limited.limit, "read \(received.count) bytes past a limit of \(limited.limit); \(limited)")
        }
    }

    // MARK: - Helpers

    /// `client.send`, its outcome as a `Result`.
    static func send(
        _ client: CourierClientTransport, _ request: HTTPRequest, body: HTTPBody?, baseURL: String, operation: String = "op"
    ) async -> Result<(HTTPResponse, HTTPBody?), any Error> {
        guard let url = URL(string: baseURL) else { return .failure(URLError(.badURL)) }
        do {
            return .success(try await client.send(request, body: body, baseURL: url, operationID: operation))
        } catch {
            return .failure(error)
        }
    }

    static func isTooLarge(_ error: (any Error)?) -> Bool {
        guard case .transport(let failure)? = error as? CourierError else { return false }
        return failure.kind == .responseTooLarge
    }
}

// MARK: - The transport below the client

/// An in-memory transport below the `Client`: it records every request it is asked to send, its
/// body read to the end (a stream chunk by chunk), and answers each with one response.
private final class PropertyTransport: Transport {
    /// One request, as the transport received it.
    struct Received: Sendable {
        var head: HTTPRequest
        /// The body's bytes, read to the end; `nil` for a request without one.
        var body: Data?
        /// The length the body declared before it was read (`TransportBody.count`).
        var declaredLength: Int64?
        /// What reading the body threw, if it did.
        var bodyError: CourierError?
    }

    /// The response every request gets.
    struct Answer: Sendable, CustomStringConvertible {
        var status = 200
        var headers: HTTPFields = [:]
        var body = Data()
        /// Whether the body streams (as a transport reading the network hands it over) in chunks
        /// cut at `cuts`, or is whole (as a stub's).
        var streamed = false
        var cuts: [Int] = []
        /// Whether a streamed body announces its length (a `Content-Length` without encoding).
        var announcesLength = true

        var description: String {
            let shape = streamed ? "streamed in \(cuts.count + 1) chunks, \(announcesLength ? "length announced" : "no length")" : "whole"
            return "\(status), \(headers.count) headers, \(body.count) bytes \(shape)"
        }
    }

    private let answer: Answer
    private let received = LockedState<[Received]>([])

    init(_ answer: Answer = Answer()) {
        self.answer = answer
    }

    var requests: [Received] { received.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let index = received.withLock { requests in
            requests.append(Received(head: request.head, declaredLength: request.body?.count))
            return requests.count - 1
        }
        switch request.body {
        case nil:
            break
        case .data(let data)?:
            received.withLock { $0[index].body = data }
        case .stream(let stream)?:
            var bytes = Data()
            do {
                var reader = try stream.makeReader()
                while let chunk = try await reader.next() { bytes.append(chunk) }
            } catch {
                received.withLock { $0[index].bodyError = error }
                throw error
            }
            received.withLock { $0[index].body = bytes }
        }
        let body =
            answer.streamed
            ? ResponseBody(DataChunks(answer.body, cuts: answer.cuts), expectedLength: answer.announcesLength ? answer.body.count : nil)
            : ResponseBody(answer.body)
        return StreamedResponse(status: HTTPResponse.Status(code: answer.status), headers: answer.headers, body: body, url: request.url)
    }
}

/// `data` in chunks cut at the offsets `cuts` (empty chunks included), read once per iterator.
private struct DataChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let data: Data
    let bounds: [Int]

    init(_ data: Data, cuts: [Int]) {
        self.data = data
        self.bounds = [0] + cuts.map { Swift.min(Swift.max($0, 0), data.count) }.sorted() + [data.count]
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let bounds: [Int]
        var index = 0

        mutating func next() async -> Data? {
            guard index + 1 < bounds.count else { return nil }
            defer { index += 1 }
            return data.subdata(in: data.startIndex + bounds[index]..<data.startIndex + bounds[index + 1])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, bounds: bounds) }
}

/// A request body's bytes in chunks, as `HTTPBody` reads an `AsyncSequence`: iterable any number
/// of times (whether `HTTPBody` allows it is its `iterationBehavior`).
private struct ByteChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let chunks: [ArraySlice<UInt8>]

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: [ArraySlice<UInt8>]
        var index = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}

// MARK: - Drawing cases

/// Choices drawn from a list of numbers, one number per choice: a list shrunk toward zeros draws
/// the first option of each choice (and `false`), so failing cases shrink. Text (a path, a
/// header value) is drawn from a dice of its own, seeded by one number, so that it takes one
/// number of the list, not one per character.
private struct Dice {
    let codes: [Int]
    var index = 0
    /// The state of a seeded dice (SplitMix64), which never runs out; `nil` for one that draws
    /// from `codes`.
    var state: UInt64?

    init(_ codes: [Int]) { self.codes = codes }

    init(seed: UInt64) {
        codes = []
        state = seed
    }

    /// A number in `0..<count`.
    mutating func roll(_ count: Int) -> Int {
        if var state {
            state &+= 0x9E37_79B9_7F4A_7C15
            self.state = state
            var z = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return count > 1 ? Int(z % UInt64(count)) : 0
        }
        defer { index += 1 }
        guard count > 1, index < codes.count else { return 0 }
        return codes[index] % count
    }

    mutating func roll(in range: ClosedRange<Int>) -> Int { range.lowerBound + roll(range.count) }
    mutating func pick<T>(_ choices: [T]) -> T { choices[roll(choices.count)] }
    /// `true` with `percent` % chance; `false` when shrunk.
    mutating func chance(_ percent: Int) -> Bool { roll(100) >= 100 - percent }
    /// A seed for `pseudoRandomBytes`.
    mutating func seed() -> UInt64 { UInt64(roll(1 << 30)) }
    /// A dice of its own, seeded by one draw of this one.
    mutating func spawn() -> Dice { Dice(seed: seed()) }

    /// `count` characters, each one of `alphabet`'s, or a `%XX` escape.
    mutating func text(_ count: Int, from alphabet: [String], escapes: Bool) -> String {
        var text = ""
        for _ in 0..<count {
            let choice = roll(alphabet.count + (escapes ? 1 : 0))
            if choice < alphabet.count {
                text += alphabet[choice]
            } else {
                text += "%" + pick(Alphabet.hex) + pick(Alphabet.hex)
            }
        }
        return text
    }

    /// A path segment: `pchar`s and escapes, never a dot segment (even encoded).
    mutating func segment() -> String {
        var own = spawn()
        let segment = own.text(roll(in: 1...8), from: Alphabet.pchar, escapes: true)
        // A sound segment holds no dot segment as URLPath reads one: decoded, split at `/` and
        // `\`, each piece cut at its first `;`.
        var decoded = segment.removingPercentEncoding ?? segment
        decoded = decoded.replacingOccurrences(of: "\\", with: "/")
        let climbs = decoded.split(separator: "/", omittingEmptySubsequences: false).contains { piece in
            let name = piece.prefix { $0 != ";" }
            return name == "." || name == ".."
        }
        guard climbs else { return segment }
        let unslashed = segment.replacingOccurrences(of: "%2F", with: "s", options: .caseInsensitive)
        return "s" + unslashed.replacingOccurrences(of: "%5C", with: "s", options: .caseInsensitive)
    }

    /// `/` and `0…count` segments, with a trailing slash or not.
    mutating func path(segments count: ClosedRange<Int>) -> String {
        let segments = (0..<roll(in: count)).map { _ in segment() }
        guard !segments.isEmpty else { return "/" }
        return "/" + segments.joined(separator: "/") + (chance(25) ? "/" : "")
    }

    /// A query as generated code encodes one: RFC 3986 query characters and escapes.
    mutating func query() -> String {
        let count = roll(in: 0...40)
        var own = spawn()
        return own.text(count, from: Alphabet.query, escapes: true)
    }

    /// A header name: a field every API uses, or a random token, in any case.
    mutating func headerName(avoiding: Set<String> = Alphabet.notOperationHeaders) -> String {
        var own = spawn()
        var name =
            chance(40)
            ? pick(["Accept-Language", "Content-Type", "User-Agent", "If-None-Match", "X-Request-ID", "Prefer", "Cache-Control", "Accept"])
            : own.pick(Alphabet.letters) + own.text(roll(in: 0...19), from: Alphabet.tchar, escapes: false)
        if chance(30) { name = chance(50) ? name.lowercased() : name.uppercased() }
        return avoiding.contains(name.lowercased()) ? "X-" + name : name
    }

    /// A printable header value: visible ASCII and UTF-8, inner spaces and tabs.
    mutating func headerValue() -> String {
        let count = roll(in: 0...30)
        var own = spawn()
        var value = ""
        for _ in 0..<count {
            switch own.roll(20) {
            case 0: value += " "
            case 1: value += "\t"
            case 2: value += own.pick(["é", "€", "😀", "ü", "中"])
            default: value += String(UnicodeScalar(UInt8(own.roll(in: 0x21...0x7E))))
            }
        }
        return value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }

    /// `0…count` header fields, some names repeated.
    mutating func headerFields(_ count: ClosedRange<Int>) -> [HTTPField] {
        var fields: [HTTPField] = []
        for _ in 0..<roll(in: count) {
            let name = !fields.isEmpty && chance(20) ? pick(fields).name : HTTPField.Name(headerName())!
            fields.append(HTTPField(name: name, value: headerValue()))
        }
        return fields
    }

    /// Offsets that cut `length` bytes into `1…count` chunks (some possibly empty).
    mutating func cuts(_ length: Int, chunks count: ClosedRange<Int>) -> [Int] {
        var own = spawn()
        return (1..<roll(in: count)).map { _ in own.roll(length + 1) }
    }
}

private enum Alphabet {
    static let letters = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }
    static let digits = (UInt8(ascii: "0")...UInt8(ascii: "9")).map { String(UnicodeScalar($0)) }
    static let hex = digits + ["a", "b", "c", "d", "e", "f", "A", "B", "C", "D", "E", "F"]
    static let unreserved = letters + letters.map { $0.lowercased() } + digits + ["-", ".", "_", "~"]
    static let subDelims = ["!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "="]
    static let pchar = unreserved + subDelims + [":", "@"]
    static let query = pchar + ["/", "?"]
    static let tchar = letters + letters.map { $0.lowercased() } + digits + ["!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~"]
    /// Headers that frame the message (Courier refuses them) and those with roles of their own
    /// here (the body's length, the credential, cookies).
    static let framing: Set<String> = [
        "content-length", "transfer-encoding", "connection", "te", "upgrade", "host", "trailer", "keep-alive", "proxy-connection",
    ]
    static let notOperationHeaders = framing.union(["authorization", "proxy-authorization", "cookie"])
    /// Response headers whose meaning the client acts on (framing, encoding, cookies), and
    /// `Content-Type`, which each case sets itself.
    static let notResponseHeaders = framing.union(["content-encoding", "set-cookie", "content-type"])
}

/// How a request body is handed over: its bytes from a seed, chunks, iteration and length.
private struct BodyShape: Sendable, CustomStringConvertible {
    var count: Int
    var seed: UInt64
    var cuts: [Int]
    var multiple: Bool
    var knownLength: Bool

    init(_ dice: inout Dice) {
        switch dice.roll(10) {
        case 0...2: count = dice.roll(in: 0...16)
        case 3...5: count = dice.roll(in: 0...70_000)
        case 6...7: count = (1 << 20) + dice.roll(in: -8...8)
        default: count = dice.roll(in: 0...2_600_000)
        }
        seed = dice.seed()
        cuts = dice.cuts(count, chunks: 1...6)
        multiple = dice.chance(50)
        knownLength = dice.chance(70)
    }

    func bytes() -> Data { pseudoRandomBytes(count: count, seed: seed) }

    func httpBody(_ bytes: Data) -> HTTPBody {
        let array = [UInt8](bytes)
        let bounds = [0] + cuts.sorted() + [array.count]
        let chunks = (0..<bounds.count - 1).map { array[bounds[$0]..<bounds[$0 + 1]] }
        return HTTPBody(
            ByteChunks(chunks: chunks), length: knownLength ? .known(Int64(count)) : .unknown, iterationBehavior: multiple ? .multiple : .single)
    }

    var description: String {
        "\(count) bytes (seed \(seed)) in \(cuts.count + 1) chunks, \(multiple ? ".multiple" : ".single"), length \(knownLength ? "known" : "unknown")"
    }
}

/// Invariant 1's input: an operation's request and its server URL.
private struct RequestCase: Sendable, CustomStringConvertible {
    var method: HTTPRequest.Method
    var scheme: String
    var host: String
    var port: Int?
    var prefix: String
    var path: String
    var query: String?
    var fields: [HTTPField]
    var body: BodyShape?
    var sendsContentLength: Bool

    init(_ codes: [Int]) {
        var dice = Dice(codes)
        method = dice.pick([.get, .post, .put, .patch, .delete, .head, .options])
        scheme = dice.pick(["https", "http"])
        host = dice.pick(["api.example.com", "EXAMPLE.com", "127.0.0.1", "[::1]", "a-b.c-d.test", "x1.y2.z3", "localhost", "[2001:db8::1]"])
        port = dice.pick([nil, 8080, 1, 65_535])
        prefix = dice.chance(50) ? "" : dice.path(segments: 0...3)
        path = dice.path(segments: 0...5)
        query = dice.chance(50) ? dice.query() : nil
        fields = dice.headerFields(0...6)
        if dice.chance(40) {
            fields.append(HTTPField(name: .accept, value: dice.pick(["application/json", "application/octet-stream", "text/plain, application/json"])))
        }
        body = method == .get || method == .head || dice.chance(10) ? nil : BodyShape(&dice)
        sendsContentLength = body?.knownLength == true && dice.chance(50)
    }

    var serverURL: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(prefix)" }
    var expectedAuthority: String { host.lowercased() + (port.map { ":\($0)" } ?? "") }
    var expectedTarget: String { (prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix) + path + (query.map { "?" + $0 } ?? "") }

    var request: HTTPRequest {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path + (query.map { "?" + $0 } ?? ""))
        request.headerFields.append(contentsOf: fields)
        // As the runtime sets it for a body of known length.
        if sendsContentLength, let body { request.headerFields[.contentLength] = String(body.count) }
        return request
    }

    var description: String {
        let headers = fields.map { "\($0.name): \($0.value.debugDescription)" }.joined(separator: ", ")
        return
            "\(method) \(serverURL) + \(path)\(query.map { "?" + $0 } ?? ""), headers [\(headers)], body \(body.map(String.init(describing:)) ?? "none")\(sendsContentLength ? " with Content-Length" : "")"
    }
}

/// Invariant 2's input: a method, what the caller accepts, and the transport's answer.
private struct ResponseCase: Sendable, CustomStringConvertible {
    var method: HTTPRequest.Method
    var accept: String?
    var answer = PropertyTransport.Answer()

    init(_ codes: [Int]) {
        var dice = Dice(codes)
        method = dice.pick([.get, .post, .head, .delete])
        accept = dice.pick([nil, "application/json", "application/octet-stream", "application/json, application/octet-stream"])
        answer.status =
            dice.chance(50)
            ? dice.roll(in: 100...599)
            : dice.pick([200, 100, 101, 103, 199, 201, 204, 205, 206, 299, 301, 304, 307, 400, 401, 404, 429, 499, 500, 503, 599])
        var fields = HTTPFields()
        for _ in 0..<dice.roll(in: 0...6) {
            let name = HTTPField.Name(dice.headerName(avoiding: Alphabet.notResponseHeaders))!
            fields.append(HTTPField(name: name, value: dice.headerValue()))
        }
        fields[.contentType] = dice.pick(["application/octet-stream", "application/json", "text/plain", "image/png"])
        let count =
            switch dice.roll(3) {
            case 0: dice.roll(in: 0...16)
            case 1: dice.roll(in: 0...70_000)
            default: dice.roll(in: 0...600_000)
            }
        let seed = dice.seed()
        answer.streamed = dice.chance(70)
        answer.announcesLength = dice.chance(60)
        if hasNoBody {
            // The head of a response without a body: its Content-Length, if any, describes another.
            if dice.chance(50) { fields[.contentLength] = String(count) }
        } else {
            answer.body = pseudoRandomBytes(count: count, seed: seed)
            answer.cuts = dice.cuts(count, chunks: 1...6)
            if answer.announcesLength || !answer.streamed { fields[.contentLength] = String(count) }
        }
        answer.headers = fields
    }

    var hasNoBody: Bool { method == .head || (100...199).contains(answer.status) || answer.status == 204 || answer.status == 304 }

    var description: String { "\(method), Accept: \(accept ?? "none"), answered \(answer)" }
}

/// Invariant 3's input: an authentication, the authorized hosts, a server and an operation.
private struct CredentialCase: Sendable, CustomStringConvertible {
    /// What the configuration authenticates with.
    enum Kind: Sendable { case bearer, basic, none, emptyStore }
    var kind: Kind
    var authentication: Authentication
    var credential: String
    var authorizedHosts: Set<String>
    var scheme: String
    var host: String
    var port: Int?
    var operation: String
    var publicOperations: Set<String>
    var callersAuthorization: String?

    static let hosts = [
        "api.example.com", "API.Example.COM", "example.com", "other.example.com", "api.example.com.evil.test", "xapi.example.com",
        "secure.example.com", "127.0.0.1", "127.0.0.2", "[::1]", "localhost",
    ]
    static let entries = [
        "api.example.com", "example.com", "API.EXAMPLE.COM", "127.0.0.1", "::1", "[::1]", "localhost", "https://secure.example.com",
        "http://127.0.0.1:8080", "https://api.example.com:8443",
    ]
    static let operations = ["op0", "op1", "op2", "listUsers", "ListUsers", "getMe"]

    init(_ codes: [Int]) {
        var dice = Dice(codes)
        switch dice.roll(8) {
        case 0...2:
            let token = "t-\(dice.roll(1000))"
            kind = .bearer
            authentication = .bearer(
                TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: token))) { _ in TokenCredential(accessToken: token) })
            credential = "Bearer \(token)"
        case 3...5:
            let user = "u\(dice.roll(100))"
            kind = .basic
            authentication = .basic(BasicCredential(username: user, password: "pw"))
            credential = "Basic " + Data("\(user):pw".utf8).base64EncodedString()
        case 6:
            kind = .none
            authentication = .none
            credential = "no credential"
        default:
            // An authentication without a credential yet: a refresher over an empty store, whose
            // token endpoint has nothing to refresh from.
            kind = .emptyStore
            let tokens = OAuth2TokenEndpoint(
                baseURL: try! BaseURL(host: "id.example.com"), path: try! URLPath("/token"),
                clientAuthentication: .basic(clientID: "app", clientSecret: "s"), configuration: Courier.Configuration(transport: PropertyTransport()))
            authentication = .bearer(TokenRefresher(store: InMemoryTokenStore(), tokenEndpoint: tokens))
            credential = "no credential"
        }
        authorizedHosts = Set(Self.entries.filter { _ in dice.chance(30) })
        scheme = dice.pick(["https", "http"])
        host = dice.pick(Self.hosts)
        port = dice.pick([nil, 8080, 8443, 443, 80])
        operation = dice.pick(Self.operations)
        publicOperations = Set(Self.operations.filter { _ in dice.chance(40) })
        callersAuthorization = dice.chance(40) ? "Bearer caller-\(dice.roll(1000))" : nil
    }

    var serverURL: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")/api" }
    var needsCredential: Bool { !publicOperations.contains(operation) }

    /// Whether `authorizedHosts` lists the server: a host entry names its host (in any case,
    /// IPv6 with or without brackets) at any scheme and port; an origin entry names its scheme,
    /// host and port (the scheme's default when none is written).
    var isListed: Bool {
        func bare(_ host: String) -> String { host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
        func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
        return authorizedHosts.contains { entry in
            guard let separator = entry.range(of: "://") else { return bare(entry) == bare(host) }
            let entryScheme = String(entry[..<separator.lowerBound])
            let authority = entry[separator.upperBound...]
            let parts = authority.split(separator: ":", maxSplits: 1)
            let entryPort = parts.count == 2 ? Int(parts[1])! : defaultPort(entryScheme)
            return entryScheme == scheme && bare(String(parts[0])) == bare(host) && entryPort == port ?? defaultPort(scheme)
        }
    }

    var description: String {
        return
            "\(kind) authentication, authorizedHosts \(authorizedHosts.sorted()), \(serverURL), operation \(operation) (public: \(publicOperations.sorted())), caller's Authorization \(callersAuthorization ?? "none")"
    }
}

/// The parts of one `send`: the request, its body and the server URL.
private struct OperationParts: Sendable {
    var method: HTTPRequest.Method
    var serverURL: String
    var target: String
    var fields: [HTTPField]
    var body: Data?
    var knownLength: Bool

    var request: HTTPRequest {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: target)
        request.headerFields.append(contentsOf: fields)
        return request
    }

    func httpBody() -> HTTPBody? {
        guard let body else { return nil }
        return knownLength ? HTTPBody(body) : HTTPBody(ByteChunks(chunks: [ArraySlice(body)]), length: .unknown, iterationBehavior: .multiple)
    }
}

/// Invariant 4's input: a sound operation, and the same with one flaw.
private struct RefusalCase: Sendable, CustomStringConvertible {
    var sound: OperationParts
    var flawed: OperationParts
    var flaw: String

    init(_ codes: [Int]) {
        var dice = Dice(codes)
        let hasBody = dice.chance(50)
        let body = hasBody ? pseudoRandomBytes(count: dice.roll(in: 0...2_000), seed: dice.seed()) : nil
        let prefix = dice.chance(50) ? "" : dice.path(segments: 1...2)
        let path = dice.path(segments: 1...4)
        let query = dice.chance(40) ? dice.query() : nil
        var fields = dice.headerFields(0...3)
        if let body { fields.append(HTTPField(name: .contentLength, value: String(body.count))) }
        sound = OperationParts(
            method: hasBody ? .post : .get, serverURL: "https://api.example.com\(prefix)", target: path + (query.map { "?" + $0 } ?? ""),
            fields: fields, body: body, knownLength: true)
        flawed = sound
        let badBytes = [" ", "\"", "<", ">", "\\", "^", "`", "{", "|", "}", "[", "]", "#", "%", "%G", "%1", "é"]

        /// `text` with `insertion` at a random place after its first character.
        func inserting(_ insertion: String, into text: String, dice: inout Dice) -> String {
            let offset = text.isEmpty ? 0 : 1 + dice.roll(text.count)
            let index = text.index(text.startIndex, offsetBy: min(offset, text.count))
            return String(text[..<index]) + insertion + String(text[index...])
        }
        switch dice.roll(12) {
        case 0:
            let bare = String(path.dropFirst())
            flawed.target = dice.pick([bare.isEmpty ? "v1" : bare, "*", "v1/" + bare]) + (query.map { "?" + $0 } ?? "")
            flaw = "an operation path without its leading \"/\""
        case 1:
            let dot = dice.pick([
                ".", "..", "%2e", "%2E", "%2e%2E", ".%2e", "%2E.", "..%2F", "..%2fx", "%2F..", "x%2F..%2Fy", "..%5C", "%5c..", "..;",
                "..;jsessionid=1", ".%3Bx", "%2E%2E%2F",
            ])
            var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            segments.insert(dot, at: 1 + dice.roll(segments.count))
            flawed.target = segments.joined(separator: "/") + (query.map { "?" + $0 } ?? "")
            flaw = "the dot segment \(dot) in the operation path"
        case 2:
            let dot = dice.pick([".", "..", "%2e%2e", "%2E"])
            flawed.serverURL = "https://api.example.com\(prefix.hasSuffix("/") ? prefix : prefix + "/")\(dot)\(dice.chance(50) ? "/admin" : "")"
            flaw = "the dot segment \(dot) in the server URL's path"
        case 3:
            flawed.target = (dice.chance(50) ? "/" + path : path + "/" + "/x") + (query.map { "?" + $0 } ?? "")
            flaw = "an empty segment (\"//\") in the operation path"
        case 4:
            let control = dice.pick((UInt8(0x01)...0x1F).filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } + [0x7F])
            var bytes = Array(dice.headerValue().utf8)
            bytes.insert(control, at: dice.roll(bytes.count + 1))
            flawed.fields.append(HTTPField(name: HTTPField.Name(dice.headerName())!, lenientValue: bytes))
            flaw = "the control byte 0x\(String(control, radix: 16)) in a header value"
        case 5:
            let invalid =
                dice.pick([[0x80], [0xBF], [0xC0, 0x80], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFE], [0xFF]]) as [UInt8]
            var bytes = Array(dice.headerValue().utf8)
            bytes.insert(contentsOf: invalid + [UInt8(ascii: "z")], at: dice.roll(bytes.count + 1))
            flawed.fields.append(HTTPField(name: HTTPField.Name(dice.headerName())!, value: bytes))
            flaw = "the bytes \(invalid.map { String($0, radix: 16) }) (not UTF-8) in a header value"
        case 6:
            flawed.fields.removeAll { $0.name == .contentLength }
            let count = body?.count ?? 0
            var value = String(count + dice.pick([1, -1, 2, 1000, -count - 1]))
            if dice.chance(30) { value = dice.pick(["0\(count)", "+\(count)", "\(count)x", "abc", "1e3", "0x10"]) }
            if value == String(count) { value = String(count + 1) }
            if body != nil, dice.chance(25) {
                // The body's length is unknown: no Content-Length can be its length.
                flawed.knownLength = false
                value = String(count)
            }
            flawed.fields.append(HTTPField(name: .contentLength, value: value))
            let announced = flawed.knownLength ? "" : "unknown length, "
            flaw = "Content-Length: \(value) for \(body.map { "a body of \(announced)\($0.count) bytes" } ?? "no body")"
        case 7:
            switch dice.roll(5) {
            case 0: flawed.serverURL = "https://api.example.com\(prefix)?\(dice.query())"
            case 1: flawed.serverURL = "https://api.example.com\(prefix)#\(dice.segment())"
            case 2: flawed.serverURL = "https://user:s3cret@api.example.com\(prefix)"
            case 3: flawed.serverURL = "https://user@api.example.com\(prefix)"
            default: flawed.serverURL = "https://api.example.com\(prefix)?"
            }
            flaw = "the server URL \(flawed.serverURL) (a query, a fragment or user-info)"
        case 8:
            let host = dice.pick([
                "exa_mple.invalid", "-lead.example", "trail-.example", "a..b.example", "256.1.1.1", "1.2.3", "999.0.0.1", "1.2.3.4.5",
                String(repeating: "a", count: 64) + ".example", Array(repeating: "abcdefghij", count: 26).joined(separator: "."), "ex%41mple.com",
            ])
            flawed.serverURL = "https://\(host)\(prefix)"
            flaw = "the invalid host \(host)"
        case 9:
            var name = dice.pick(["Transfer-Encoding", "Host", "Connection", "TE", "Upgrade", "Keep-Alive", "Proxy-Connection", "Trailer"])
            if dice.chance(50) { name = name.lowercased() }
            flawed.fields.append(HTTPField(name: HTTPField.Name(name)!, value: dice.pick(["chunked", "close", "evil.example.com", "h2c", "5"])))
            flaw = "the framing header \(name)"
        case 10:
            let bad = dice.pick(badBytes) + "z"
            let written = query ?? ""
            flawed.target = path + "?" + inserting(bad, into: written, dice: &dice)
            flaw = "\(bad.debugDescription) in the query"
        default:
            let bad = dice.pick(badBytes.filter { $0 != "#" }) + "z"
            flawed.target = inserting(bad, into: path, dice: &dice) + (query.map { "?" + $0 } ?? "")
            flaw = "\(bad.debugDescription) in the operation path"
        }
    }

    var description: String {
        "\(flaw): \(flawed.method) \(flawed.serverURL) + \(flawed.target.debugDescription), \(flawed.fields.count) headers, body \(flawed.body.map { "\($0.count) bytes" } ?? "none")"
    }
}

/// How the caller reads a response body: streamed (`Accept: application/json,
/// application/octet-stream`) or whole (`Accept: application/json`).
enum ReadMode: String, Sendable, CustomTestStringConvertible {
    case streamed, whole
    var testDescription: String { rawValue }
}

/// Invariant 5's input: the limit, and a JSON answer around it.
private struct LimitCase: Sendable, CustomStringConvertible {
    /// How the transport hands the body over.
    enum Shape {
        /// As a transport that reads the network: streamed, or whole when short (at most the limit).
        case network
        /// Whole and past the limit, as a stub, the cache or a middleware may hand it over.
        case wholePastLimit
    }

    var limit: Int
    var mode: ReadMode
    var answer = PropertyTransport.Answer()

    init(_ codes: [Int], mode: ReadMode, shape: Shape) {
        var dice = Dice(codes)
        self.mode = mode
        limit = dice.pick([1000, 0, 1, 4096, 65_536, 300_000])
        var length =
            dice.chance(50)
            ? max(0, limit + dice.roll(in: -2...2))
            : max(0, limit + dice.roll(in: -(limit / 2)...(limit / 2 + 1)))
        if shape == .wholePastLimit { length = max(length, limit + 1) }
        answer.body = pseudoRandomBytes(count: length, seed: dice.seed())
        answer.streamed = shape == .network && (length > limit || dice.chance(75))
        answer.announcesLength = dice.chance(50)
        answer.cuts = dice.cuts(length, chunks: 1...8)
        // Labels the runtime collects: JSON in any spelling, none, or a wildcard (it then picks the
        // operation's first type, JSON).
        if let type = dice.pick(
            [
                "application/json", "application/json; charset=utf-8", "Application/JSON", "application/problem+json", nil, "*/*", "application/*",
            ] as [String?])
        {
            answer.headers[.contentType] = type
        }
        if answer.announcesLength || !answer.streamed { answer.headers[.contentLength] = String(length) }
    }

    var description: String { "limit \(limit), \(mode) by the caller, answered \(answer) of \(answer.headers[.contentType] ?? "")" }
}
