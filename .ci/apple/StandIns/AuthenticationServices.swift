// Stand-in for Apple's AuthenticationServices, for type-checking Courier's Apple-only code on
// Linux (.ci/apple/typecheck.sh). Only what Courier uses, copied from the Swift interface of
// AuthenticationServices in the macOS 15 / iOS 18 SDKs: the presentation-context protocol is
// `@MainActor` (so are `UIWindow` and `NSWindow`, which `ASPresentationAnchor` names); the
// completion handler is declared `@Sendable`, the stricter reading, since the system may call it
// on any queue. `ASWebAuthenticationSession` does not exist on tvOS (`#if !STANDIN_tvOS`). Bodies are dummies.

import Foundation

/// `UIWindow` on iOS and visionOS, `NSWindow` on macOS: main-actor classes.
@MainActor
open class _StandInWindow: NSObject {}

public typealias ASPresentationAnchor = _StandInWindow

#if !STANDIN_tvOS
@available(macOS 10.15, iOS 13.0, watchOS 6.2, *)
@available(tvOS, unavailable)
@MainActor
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

@available(macOS 10.15, iOS 12.0, watchOS 6.2, *)
@available(tvOS, unavailable)
open class ASWebAuthenticationSession: NSObject {
    public typealias CompletionHandler = @Sendable (URL?, (any Error)?) -> Void

    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {}

    @available(macOS 10.15, iOS 13.0, watchOS 6.2, *)
    weak open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?

    @available(macOS 10.15, iOS 13.0, watchOS 6.2, *)
    open var prefersEphemeralWebBrowserSession: Bool = false

    open func start() -> Bool { false }
    open func cancel() {}
}

@available(macOS 10.15, iOS 12.0, watchOS 6.2, *)
public struct ASWebAuthenticationSessionError: Error, Hashable {
    public enum Code: Int, Sendable {
        case canceledLogin = 1
        case presentationContextNotProvided = 2
        case presentationContextInvalid = 3
    }

    public var code: Code
    public static var canceledLogin: Code { .canceledLogin }
}
#endif
