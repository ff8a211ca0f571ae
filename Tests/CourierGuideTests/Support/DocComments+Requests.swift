// What the doc-comment examples of Sources/Courier/{Client,Encoding,Endpoint,Observability,Response}
// use without declaring it. Shared shapes are file-scope `ReqDoc…` types; each file's namespace
// names them as its examples do.

import Courier
import Foundation

#if canImport(Combine)
    import Combine
#endif

struct ReqDocOrder: Codable, Sendable { var id: Int }
struct ReqDocChange: Decodable, Sendable { var id: Int }
struct ReqDocUploadReceipt: Decodable, Sendable { var id: String }

/// An endpoint with no path of its own: `GET https://api.example.com`.
struct ReqDocEndpoint: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

struct ReqDocGetImage: Requestable {
    var name = "image.png"
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "images.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: [name]) }
}

struct ReqDocUploadVideo: Requestable {
    let file: URL
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    var method: HTTPMethod { .post }
    var body: RequestBody? { .file(file) }
}

struct ReqDocDeleteUser: Requestable {
    let id: Int
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
    var method: HTTPMethod { .delete }
}

struct ReqDocTransfer: Requestable {
    let amount: Int
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    var method: HTTPMethod { .post }
}

/// A request as a middleware or transport sees it.
let reqDocRequest = TransportRequest(
    head: HTTPRequest(method: .post, scheme: "https", authority: "id.example.com", path: "/token"), timeout: .seconds(30))
/// A buffered response.
let reqDocResponse = Response(
    status: .ok, headers: [.contentType: "application/json"], body: Data(#"{"id":42,"name":"Ada"}"#.utf8),
    url: URL(string: "https://api.example.com/me")!)

// MARK: - Client

extension DocCourierClientCallGuide {
    typealias ListUsers = ReqDocEndpoint
}

#if canImport(Combine)
    extension DocCourierClientCallCombineGuide {
        nonisolated(unsafe) static var cancellables = Set<AnyCancellable>()
    }
#endif

extension DocCourierClientCallCompletionGuide {
    static func show(_ result: Result<User, CourierError>) {}
}

extension DocCourierClientCallDownloadGuide {
    typealias GetImage = ReqDocGetImage
    static let isoURL = URL(fileURLWithPath: "/tmp/courier-guide/noble.iso")
}

extension DocCourierClientCallEventsGuide {
    typealias Notifications = ReqDocEndpoint
    static func show(_ text: String) {}
}

extension DocCourierClientCallProgressGuide {
    typealias UploadVideo = ReqDocUploadVideo
    typealias UploadReceipt = ReqDocUploadReceipt
}

extension DocCourierClientCallStreamingGuide {
    typealias ExportOrders = ReqDocEndpoint
    typealias Order = ReqDocOrder
    actor Archive {
        func insert(_ order: Order) throws {}
    }
    static let archive = Archive()
}

extension DocCourierClientClientGuide {
    actor Keychain {
        func rotateAPIKey() throws {}
    }
    static let keychain = Keychain()

    /// A middleware that adds an `X-Request-ID` header.
    struct RequestID: Middleware {
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError)
            -> StreamedResponse
        {
            try await next(request)
        }
    }
}

// MARK: - Encoding

extension DocCourierEncodingQueryStringQueryStringFormattingOptionsGuide {
    nonisolated(unsafe) static var options = QueryStringFormattingOptions()
}

extension DocCourierEncodingMultipartMultipartFormGuide {
    static let png = Data([0x89, 0x50, 0x4E, 0x47])
    static let json = Data(#"{"public":true}"#.utf8)
    nonisolated(unsafe) static var form = MultipartForm()
}

// MARK: - Endpoint

extension DocCourierEndpointHeaderItemGuide {
    static let requestID = UUID().uuidString
}

extension DocCourierEndpointRequestBodyGuide {
    struct NewUser: Encodable, Sendable { var name: String }
    static let png = Data([0x89, 0x50, 0x4E, 0x47])
}

extension DocCourierEndpointRequestBodyMultipartGuide {
    static let reportURL = URL(fileURLWithPath: "/tmp/courier-guide/report.pdf")
}

extension DocCourierEndpointRequestableGuide {
    struct Filter: Encodable, Sendable { var tags: [String] }
    static let filter = Filter(tags: ["a", "b"])
    static let snakeCaseDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
    actor SessionStore {
        var hasSession = false
        func startSession() throws { hasSession = true }
    }
    static let store = SessionStore()
}

extension DocCourierEndpointURLPathGuide {
    static let userName = "a/b"
}

// MARK: - Observability

extension DocCourierObservabilityCURLRenderingGuide {
    static let request = reqDocRequest
}

extension DocCourierObservabilityRedactedMirrorsGuide {
    static let request = reqDocRequest
    static let response = reqDocResponse
}

extension DocCourierObservabilityRedactionGuide {
    static let request = reqDocRequest
    static let text = reqDocRequest.curlCommand()
}

// MARK: - Response

extension DocCourierResponseResponseGuide {
    typealias Ping = ReqDocEndpoint
}

extension DocCourierResponseResponseHeadGuide {
    typealias Ping = ReqDocEndpoint
}

extension DocCourierResponseProblemDetailsGuide {
    typealias Transfer = ReqDocTransfer
    struct Balance: Decodable, Sendable { var balance: Int }
}

extension DocCourierResponseResponseBodyGuide {
    static let file = FileHandle.nullDevice
}

extension DocCourierResponseResponseDecodingGuide {
    typealias DeleteUser = ReqDocDeleteUser
    struct Report: Decodable, Sendable { var rows: Int }
    static let response = reqDocResponse
    static let snakeCaseDecoder = JSONDecoder()
}

extension DocCourierResponseResponseLinesGuide {
    typealias TailLog = ReqDocEndpoint
    typealias Changes = ReqDocEndpoint
    typealias Change = ReqDocChange
    static func apply(_ change: Change) {}
}

extension DocCourierResponseServerSentEventsEventSourceOptionsGuide {
    typealias Notifications = ReqDocEndpoint
    static let savedID = "42"
}

extension DocCourierResponseServerSentEventsServerSentEventGuide {
    typealias Notifications = ReqDocEndpoint
    typealias Order = ReqDocOrder
    static func show(_ order: Order) {}
}

extension DocCourierResponseTransfersDownloadGuide {
    typealias GetImage = ReqDocGetImage
}

extension DocCourierResponseTransfersDownloadValuesGuide {
    typealias GetImage = ReqDocGetImage
    static let call = client.enqueue(GetImage())
    static let download = call.makeDownload(to: destination)
}

extension DocCourierResponseTransfersTransferProgressGuide {
    typealias UploadVideo = ReqDocUploadVideo
    typealias GetImage = ReqDocGetImage
    @MainActor final class ProgressBar {
        var value = 0.0
    }
    @MainActor static let bar = ProgressBar()
}

extension DocCourierResponseResponseBodyDecoderGuide {
    /// A CSV library's decoder.
    struct CSVLibraryDecoder: Sendable {
        func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not CSV"))
        }
    }
    static let csvDecoder = CSVLibraryDecoder()
}

extension DocCourierResponseResponseBodyGuide {
    static let response = StreamedResponse(reqDocResponse)
    static let request = reqDocRequest
    static let next: @Sendable (TransportRequest) async throws(CourierError) -> StreamedResponse = { _ in
        StreamedResponse(reqDocResponse)
    }

    final class Counter: @unchecked Sendable {
        var bytes = 0
    }
    static let counter = Counter()

    /// The chunks of `base`, counted as they are read.
    struct CountingChunks: AsyncSequence, Sendable {
        let base: ResponseBody
        let counter: Counter

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: ResponseBody.AsyncIterator
            let counter: Counter
            mutating func next() async throws -> Data? {
                let chunk = try await base.next()
                counter.bytes += chunk?.count ?? 0
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), counter: counter) }
    }
}
