// Stand-in for the parts of Apple's Foundation that corelibs-foundation does not have, for
// type-checking Courier's Apple-only code on Linux (.ci/apple/typecheck.sh imports it into every
// checked file, as Foundation itself would be). Copied from the Swift interface of Foundation in
// the macOS 15 / iOS 18 SDKs (NSStream.h, NSURLProtectionSpace.h, NSURLCredential.h,
// NSURLSession.h), with their availability. `AutoreleasingUnsafeMutablePointer` does not exist
// off Apple platforms; `UnsafeMutablePointer` accepts the same `&variable` arguments. Bodies are
// dummies. A declaration some Apple platforms lack is inside `#if STANDIN_<platform> || …`.

public import Foundation
public import FoundationNetworking
public import Security

extension Stream {
    @available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, *)
    public class func getBoundStreams(
        withBufferSize bufferSize: Int,
        inputStream: UnsafeMutablePointer<InputStream?>?,
        outputStream: UnsafeMutablePointer<OutputStream?>?
    ) {}
}

/// NSURLProtectionSpace.h (corelibs declares it unavailable).
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

extension URLProtectionSpace {
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, *)
    public var serverTrust: SecTrust? { nil }
}

extension URLCredential {
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, *)
    public convenience init(trust: SecTrust) { self.init(user: "", password: "", persistence: .none) }
}
