import Courier
import CourierXML
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Documents a hostile server might send, and helpers to run readers as an app would.
enum HostileDocuments {
    /// The attack of issue 9: an internal entity of `size` characters referenced `references`
    /// times, behind a DOCTYPE. With 100,000 and 100,000 it is about 800 KB in UTF-16 and expands
    /// to 10^10 characters.
    static func entityBomb(size: Int = 1_000, references: Int = 1_000, declaration: Bool = true) -> String {
        (declaration ? "<?xml version=\"1.0\"?>" : "")
            + "<!DOCTYPE r [<!ENTITY e \"" + String(repeating: "A", count: size) + "\">]><r>"
            + String(repeating: "&e;", count: references) + "</r>"
    }

    /// `text` in `encoding`, without a byte-order mark.
    static func encoded(_ text: String, _ encoding: String.Encoding) -> Data {
        text.data(using: encoding)!  // the explicit-endian encodings write no byte-order mark
    }

    /// `depth` nested `<a>` elements around `x`.
    static func nested(_ depth: Int, name: String = "a") -> String {
        String(repeating: "<\(name)>", count: depth) + "x" + String(repeating: "</\(name)>", count: depth)
    }

    /// A SOAP 1.1 envelope whose payload is `payload`.
    static func envelope(_ payload: String) -> String {
        "<s:Envelope xmlns:s=\"\(SOAPVersion.v1_1.namespace)\"><s:Body>\(payload)</s:Body></s:Envelope>"
    }

    /// The same document as `makeResponse(data:)`, with a charset in its `Content-Type`.
    static func response(_ data: Data, charset: String?) -> Response {
        makeResponse(data: data, contentType: "application/xml" + (charset.map { "; charset=\($0)" } ?? ""))
    }
}

/// A model that reads nothing below the top element: XMLCoder's own recursion (parsing the
/// document and turning it into its boxes) is all there is.
struct TopOnly: Decodable, Sendable, Equatable {
    var missing: String?
}

/// The ``XMLParsingError`` behind whatever a reader threw: itself, under a
/// `DecodingError.dataCorrupted` (the decoders), or under a `CourierError` (the client); `nil`
/// when `body` does not throw one.
func parsingError(_ body: () throws -> Void) -> XMLParsingError? {
    do {
        try body()
        return nil
    } catch let error as XMLParsingError {
        return error
    } catch DecodingError.dataCorrupted(let context) {
        return context.underlyingError as? XMLParsingError
    } catch let error as CourierError {
        return error.xmlParsingError
    } catch {
        return nil
    }
}

/// The CPU time the calling thread spends in `body`: unlike the wall clock, it does not grow when
/// other tests or processes take the machine's cores.
func threadCPUTime(_ body: () throws -> Void) rethrows -> Duration {
    func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
    let start = now()
    try body()
    return now() - start
}

/// The stack size of Apple platforms' secondary threads (and of the Swift concurrency threads
/// there): the depth limits must be safe on it.
let appleSecondaryThreadStack = 512 * 1024

/// Runs `body` on a new thread with a 512 KB stack, as on a secondary thread on Apple platforms.
func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result(catching: body)) }
        thread.stackSize = appleSecondaryThreadStack
        thread.start()
    }
}

/// The size of the calling thread's stack, as glibc reports it (Linux only; `nil` elsewhere).
func currentThreadStackSize() -> Int? {
    #if canImport(Glibc)
        // pthread_getattr_np is a GNU extension the Glibc module does not import; look it up.
        typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
        let getAttributes = unsafeBitCast(symbol, to: GetAttr.self)
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var size = 0
        guard pthread_attr_getstacksize(&attributes, &size) == 0 else { return nil }
        return size
    #else
        return nil
    #endif
}
