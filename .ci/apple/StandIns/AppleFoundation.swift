// Stand-in for the parts of Apple's Foundation that corelibs-foundation does not have, for
// type-checking Courier's Apple-only code on Linux (.ci/apple/typecheck.py imports it into every
// checked file, as Foundation itself would be). Copied from the Swift interface of Foundation in
// the Xcode 16 SDKs, one group per header (NSStream.h, NSURLProtectionSpace.h, NSURLCredential.h),
// with their availability. Built with -enable-library-evolution, as Apple's modules are. `AutoreleasingUnsafeMutablePointer` does not exist
// off Apple platforms; `UnsafeMutablePointer` accepts the same `&variable` arguments. Bodies are
// dummies. A declaration some Apple platforms lack is inside `#if STANDIN_<platform> || …`.

public import Foundation
public import FoundationNetworking
public import Security

// MARK: - NSStream.h
extension Stream {
    @available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, *)
    public class func getBoundStreams(
        withBufferSize bufferSize: Int,
        inputStream: UnsafeMutablePointer<InputStream?>?,
        outputStream: UnsafeMutablePointer<OutputStream?>?
    ) {}
}

// MARK: - NSURLProtectionSpace.h (corelibs declares the constant unavailable)
/// `FOUNDATION_EXPORT NSString *const NSURLAuthenticationMethodServerTrust`.
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

extension URLProtectionSpace {
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, *)
    public var serverTrust: SecTrust? { nil }
}

// MARK: - NSURLCredential.h
extension URLCredential {
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, *)
    public convenience init(trust: SecTrust) { self.init(user: "", password: "", persistence: .none) }
}

// MARK: - NSURLSession.h: the network-access settings of a configuration.
extension URLSessionConfiguration {
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsExpensiveNetworkAccess: Bool {
        get { true }
        set {}
    }

    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsConstrainedNetworkAccess: Bool {
        get { true }
        set {}
    }
}

