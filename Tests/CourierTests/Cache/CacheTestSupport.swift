import Foundation
import HTTPTypes

@testable import Courier

/// A fixed moment: Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
let cacheEpoch = Date(timeIntervalSince1970: 784_111_777)

/// Fields from name-value pairs, in order (a name may repeat).
func cacheFields(_ pairs: [(String, String)]) -> HTTPFields {
    var fields = HTTPFields()
    for (name, value) in pairs {
        fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
    }
    return fields
}

/// A response with this status and these fields.
func cacheResponse(_ status: Int = 200, _ pairs: [(String, String)] = []) -> HTTPResponse {
    HTTPResponse(status: .init(code: status), headerFields: cacheFields(pairs))
}

/// A request for `https://example.com<path>` with this method and these fields.
func cacheRequest(_ method: HTTPRequest.Method = .get, path: String = "/a", _ pairs: [(String, String)] = [])
    -> HTTPRequest
{
    HTTPRequest(method: method, scheme: "https", authority: "example.com", path: path, headerFields: cacheFields(pairs))
}

/// An entry for `https://example.com<path>` received at `cacheEpoch` (sent one second before).
func cacheEntry(
    path: String = "/a", partition: String = "", status: Int = 200, _ pairs: [(String, String)] = [],
    body: String = "body", variant: CacheVariant = .none, receivedAt: Date = cacheEpoch
) -> CacheEntry {
    CacheEntry(
        key: CacheKey(url: "https://example.com\(path)", partition: partition), variant: variant,
        response: cacheResponse(status, pairs), body: Data(body.utf8),
        requestTime: receivedAt.addingTimeInterval(-1), responseTime: receivedAt)
}

/// An HTTP-date `seconds` after `cacheEpoch`.
func cacheDate(_ seconds: Int) -> String {
    let date = cacheEpoch.addingTimeInterval(TimeInterval(seconds))
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// A new, empty folder under the temporary directory.
func cacheTemporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
}
