import Courier
import Foundation

/// The request timeout of every test whose subject is not a timeout: ten minutes, longer than any
/// test's time limit. On a machine busy with other work a loopback call can take many seconds, and
/// a concurrency test that leaned on a 10 or 30 s timeout failed `timedOut` there (or was retried
/// and saw the wrong delays); a hang is still caught, by the time limit, which names the test.
/// Tests of timeouts set their own, short ones (or drive them with a `TestClock`).
let generousTimeout: Duration = .seconds(600)

/// A client with a transport of its own (its own connection pool), of the kind
/// `Configuration.defaultTransport` is on this platform (``TransportKind/platformDefault``), so
/// that the suite runs on what users get by default and tests do not share connections.
func makeClient(
    timeout: Duration = generousTimeout, headers: [HeaderItem] = [], transport: TransportKind = .platformDefault
) -> Client {
    Client(configuration: Configuration(transport: transport.make(), timeout: timeout, headers: headers))
}

/// An endpoint whose every part is a stored property, so each test states exactly what it sends.
struct TestEndpoint: Requestable {
    var base: BaseURL
    var urlPath: URLPath
    var method: Courier.HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var body: RequestBody?
    var timeout: Duration?
    var acceptableStatusCodes: Set<Int> = Response.successStatusCodes
    var redirectMode: RedirectMode = .follow
    var requiresAuthorization: Bool { false }

    init(baseURL: BaseURL, path: URLPath) {
        self.base = baseURL
        self.urlPath = path
    }

    func baseURL() throws(CourierError) -> BaseURL { base }
    func path() throws(CourierError) -> URLPath { urlPath }

    /// A copy with `change` applied: `server.endpoint("/x").with { $0.method = .head }`.
    func with(_ change: (inout TestEndpoint) -> Void) -> TestEndpoint {
        var copy = self
        change(&copy)
        return copy
    }
}

extension Call {
    /// The outcome of ``Call/resume(expecting:)`` as a `Result`, so a test can match the typed error.
    func result<T: Decodable & Sendable>(expecting type: T.Type) async -> Result<T, CourierError> {
        do {
            return .success(try await resume(expecting: type))
        } catch {
            return .failure(error)
        }
    }

    /// The outcome of ``Call/resume()`` as a `Result`.
    func result() async -> Result<Response, CourierError> {
        do {
            return .success(try await resume())
        } catch {
            return .failure(error)
        }
    }
}

// MARK: - Payloads

/// `count` pseudo-random bytes from a fixed seed (SplitMix64): reproducible, and with no pattern
/// a transport could get right by accident (an off-by-one chunk would not line up again).
func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
    var state = seed
    var bytes = [UInt8]()
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        withUnsafeBytes(of: z.littleEndian) { bytes.append(contentsOf: $0) }
    }
    return Data(bytes.prefix(count))
}

/// FNV-1a, 64 bit: a cheap digest the server can send back to prove which bytes it received.
func fnv1a(_ data: Data) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in data {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    return hash
}

/// Runs `body` with a started `server` and stops it whatever `body` does, returning or throwing.
func running<Server, Result>(
    _ server: Server, stop: (Server) async -> Void, _ body: (Server) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(server)
        await stop(server)
        return result
    } catch {
        await stop(server)
        throw error
    }
}
