import Foundation
import HTTPTypes
import PropertyBased
import Testing

@testable import Courier

/// A response carries the decoders of the call that received it: `response.decode(T.self)` is
/// what `resume(expecting: T.self)` returns, and `decodedLines` reads with the client's JSON
/// decoder (issue 52, decision 2).
@Suite("One decoding context")
struct OneDecodingContextTests {
    struct Event: Codable, Sendable, Equatable {
        let userName: String
        let at: Date
    }

    /// `id;name` lines, for `text/x-line`.
    struct LineDecoder: ResponseBodyDecoder {
        struct NotALine: Error {}
        var mediaTypes: [String] { ["text/x-line"] }

        func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
            let fields = String(decoding: response.body, as: UTF8.self).split(separator: ";")
            guard fields.count == 2 else { throw NotALine() }
            let json = #"{"user_name":"\#(fields[0])","at":\#(fields[1])}"#
            return try Self.snakeCase.decode(T.self, from: Data(json.utf8))
        }

        static var snakeCase: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }
    }

    /// An endpoint, with a decoder of its own or none.
    struct Endpoint: Requestable {
        var responseDecoder: (any ResponseBodyDecoder)?
        var acceptableStatusCodes: Set<Int> = [200]
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    static let snakeJSON = Data(#"{"user_name":"ada","at":1800000000}"#.utf8)
    static let event = Event(userName: "ada", at: Date(timeIntervalSince1970: 1_800_000_000))

    /// A client whose JSON decoder reads snake case and dates in seconds (neither is a
    /// `JSONDecoder()`'s default), and which reads `text/x-line` too.
    static func client(answering status: Int, contentType: String?, body: Data) -> Client {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return makeClient(RecordingTransport(script: [.status(status, headers: headers, body: body)])) {
            $0.decoder = LineDecoder.snakeCase
            $0.responseDecoders = [LineDecoder()]
        }
    }

    @Test("resume() then decode(_:) uses the client's JSON decoder, as resume(expecting:) does")
    func decodeUsesTheClientsJSONDecoder() async throws {
        let client = Self.client(answering: 200, contentType: "application/json", body: Self.snakeJSON)
        #expect(try await client.enqueue(Endpoint()).resume(expecting: Event.self) == Self.event)
        #expect(try await client.enqueue(Endpoint()).resume().decode(Event.self) == Self.event)
    }

    @Test("a refused status's response decodes with the client's decoder too")
    func anErrorResponseDecodesWithTheClientsDecoder() async throws {
        let client = Self.client(answering: 422, contentType: "application/json", body: Self.snakeJSON)
        let result = await client.enqueue(Endpoint()).result()
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected a refused status, got \(result)")
            return
        }
        #expect(try response.decode(Event.self) == Self.event)
    }

    @Test("another media type goes to the configuration's decoder that reads it")
    func otherMediaTypesUseTheConfigurationsDecoders() async throws {
        let client = Self.client(answering: 200, contentType: "text/x-line", body: Data("ada;1800000000".utf8))
        #expect(try await client.enqueue(Endpoint()).resume().decode(Event.self) == Self.event)
    }

    @Test("the endpoint's own decoder reads every body, as for resume(expecting:)")
    func theEndpointsDecoderWins() async throws {
        let client = Self.client(answering: 200, contentType: "application/json", body: Data("ada;1800000000".utf8))
        let endpoint = Endpoint(responseDecoder: LineDecoder())
        #expect(try await client.enqueue(endpoint).resume().decode(Event.self) == Self.event)
        #expect(try await client.enqueue(endpoint).resume(expecting: Event.self) == Self.event)
    }

    @Test("a decoder passed to decode(_:using:) reads the body whatever the context")
    func aPassedDecoderWins() async throws {
        let client = Self.client(answering: 200, contentType: "text/x-line", body: Self.snakeJSON)
        let response = try await client.enqueue(Endpoint()).resume()
        #expect(try response.decode(Event.self, using: JSONBodyDecoder(LineDecoder.snakeCase)) == Self.event)
    }

    @Test("decodedLines reads each line with the client's JSON decoder")
    func decodedLinesUseTheClientsDecoder() async throws {
        let lines = Self.snakeJSON + Data("\n".utf8) + Self.snakeJSON
        let client = Self.client(answering: 200, contentType: "application/x-ndjson", body: lines)
        var events: [Event] = []
        for try await event in try await client.enqueue(Endpoint()).stream().decodedLines(Event.self) {
            events.append(event)
        }
        #expect(events == [Self.event, Self.event])
    }

    @Test("a response made by hand decodes as a default client would: JSON by Content-Type, else unsupported")
    func aResponseMadeByHand() throws {
        let url = try #require(URL(string: "https://api.example.com/"))
        let json = Response(status: .ok, headers: [.contentType: "application/json"], body: Data(#"{"id":1}"#.utf8), url: url)
        struct ID: Decodable, Equatable { let id: Int }
        #expect(try json.decode(ID.self) == ID(id: 1))
        let html = Response(status: .ok, headers: [.contentType: "text/html"], body: Data("<p>".utf8), url: url)
        #expect {
            _ = try html.decode(ID.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError, case .unsupportedMediaType("text/html") = failure.reason else { return false }
            return true
        }
    }

    @Test("responses are equal by head and body, whatever their calls decode with")
    func equalityIgnoresTheContext() async throws {
        let first = try await Self.client(answering: 200, contentType: "application/json", body: Self.snakeJSON).enqueue(Endpoint()).resume()
        let second = try await makeClient(
            RecordingTransport(script: [.status(200, headers: [.contentType: "application/json"], body: Self.snakeJSON)])
        ).enqueue(Endpoint()).resume()
        #expect(first == second)
    }

    /// What a call or a decode gave, comparable: the value, or the failure's kind.
    enum Outcome: Equatable {
        case value(Event)
        case failed(String)

        init(_ body: () async throws -> Event) async {
            do {
                self = .value(try await body())
            } catch let error as CourierError {
                if case .decoding(let failure) = error {
                    switch failure.reason {
                    case .unsupportedMediaType(let type): self = .failed("unsupported \(type)")
                    case .decodingError: self = .failed("decodingError")
                    case .decoderError: self = .failed("decoderError")
                    default: self = .failed("decoding")
                    }
                } else {
                    self = .failed("\(error)")
                }
            } catch {
                self = .failed("\(error)")
            }
        }
    }

    @Test("for any body, media type and endpoint decoder, resume().decode(_:) == resume(expecting:)")
    func decodeIsResumeExpecting() async {
        let contentTypes: [String?] = [nil, "application/json", "application/problem+json", "text/x-line", "text/html", "text/plain"]
        let bodies = [Self.snakeJSON, Data("ada;1800000000".utf8), Data(#"{"userName":"ada","at":0}"#.utf8), Data(), Data("{".utf8)]
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...(contentTypes.count - 1)), Gen.int(in: 0...(bodies.count - 1)), Gen.bool
        ) { typeIndex, bodyIndex, ownDecoder in
            let endpoint = Endpoint(responseDecoder: ownDecoder ? LineDecoder() : nil)
            let make = { Self.client(answering: 200, contentType: contentTypes[typeIndex], body: bodies[bodyIndex]) }
            let expecting = await Outcome { try await make().enqueue(endpoint).resume(expecting: Event.self) }
            let decoded = await Outcome { try await make().enqueue(endpoint).resume().decode(Event.self) }
            #expect(expecting == decoded, "Content-Type \(contentTypes[typeIndex] ?? "none"), body \(bodyIndex), own decoder \(ownDecoder)")
        }
    }
}

@Suite("One decoding context: what a response shows")
struct DecodingContextMirrorTests {
    @Test("dumping a streamed response shows nothing of its client's decoder (whose userInfo may hold anything)")
    func dumpShowsNoDecoder() async throws {
        let decoder = JSONDecoder()
        if let key = CodingUserInfoKey(rawValue: "tenant") { decoder.userInfo[key] = "secret-tenant-7" }
        let client = makeClient(RecordingTransport(script: [.status(200, body: Data("{}".utf8))])) { $0.decoder = decoder }
        let streamed = try await client.enqueue(OneDecodingContextTests.Endpoint()).stream()
        var text = ""
        dump(streamed, to: &text)
        #expect(!text.contains("secret-tenant-7"))
        #expect(!text.contains("JSONDecoder"))
    }
}
