import Courier
import CourierTesting
import Foundation
import HTTPTypes

/// `date` as an IMF-fixdate, the HTTP-date servers send: `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// Courier's own tests use the testing module's transport, as users do.
typealias RecordingTransport = CourierTesting.RecordingTransport

/// An endpoint whose every member can be set, for tests.
struct TestEndpoint: Requestable {
    var host = "api.example.com"
    var pathString = "/"
    var method: HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var body: RequestBody?
    var timeout: Duration?
    var acceptableStatusCodes: Set<Int> = Response.successStatusCodes

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: host) }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

func makeClient(_ transport: RecordingTransport, configure: (inout Configuration) -> Void = { _ in }) -> Client {
    var configuration = Configuration(transport: transport)
    configure(&configuration)
    return Client(configuration: configuration)
}

extension TransportRequest {
    var bodyData: Data? {
        if case .data(let data)? = body { return data }
        return nil
    }

    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }
}

extension Call {
    /// The outcome of ``Call/resume()`` as a `Result`.
    func result() async -> Result<Response, CourierError> {
        do {
            return .success(try await resume())
        } catch {
            return .failure(error)
        }
    }
}

/// SplitMix64 (Steele, Lea & Flood, 2014): a tiny, well-mixed generator, seeded for
/// reproducible randomness in tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
