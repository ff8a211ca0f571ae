// Stand-in for Apple's AuthenticationServices, for type-checking Courier's Apple-only code on
// Linux (.ci/apple/typecheck.py). Only what Courier uses, copied from the framework's headers as
// Swift imports them (Xcode 16 SDKs: ASWebAuthenticationSession.h,
// ASWebAuthenticationSessionError.h, ASFoundation.h) and from Apple's documentation pages
// (developer.apple.com/documentation/authenticationservices/aswebauthenticationsession and
// …/aswebauthenticationpresentationcontextproviding), whose platform lists the availability
// copies. Built with -enable-library-evolution, as Apple's frameworks are. A declaration some
// platforms lack is inside `#if STANDIN_<platform> || …`. Bodies are dummies.

public import Foundation

#if STANDIN_iOS || STANDIN_macOS || STANDIN_visionOS || STANDIN_tvOS
    // MARK: - ASFoundation.h: `ASPresentationAnchor`, `NSWindow` on macOS and `UIWindow` on iOS,
    // tvOS and visionOS; both are main-actor classes (AppKit and UIKit are `@MainActor`).

    /// `UIWindow` / `NSWindow`.
    @MainActor
    open class _StandInWindow: NSObject {}

    public typealias ASPresentationAnchor = _StandInWindow
#endif

#if STANDIN_iOS || STANDIN_macOS || STANDIN_visionOS
    // MARK: - ASWebAuthenticationSession.h: the presentation-context protocol. Documented for
    // iOS 13+, macOS 10.15+ and visionOS 1+ only (not watchOS, not tvOS). The whole protocol is
    // `NS_SWIFT_UI_ACTOR` in current SDKs: `@MainActor`, so a conforming class is main-actor
    // isolated unless it says otherwise.

    @available(macOS 10.15, iOS 13.0, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    @MainActor
    public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
    }
#endif

// MARK: - ASWebAuthenticationSession.h: the session. Documented for iOS 12+, macOS 10.15+,
// watchOS 6.2+, tvOS 16+ and visionOS 1+. Its completion handler is a plain block
// (`ASWebAuthenticationSessionCompletionHandler`): not `@Sendable`.

@available(macOS 10.15, iOS 12.0, watchOS 6.2, tvOS 16.0, *)
open class ASWebAuthenticationSession: NSObject {
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {}

    #if STANDIN_iOS || STANDIN_macOS || STANDIN_visionOS
        @available(macOS 10.15, iOS 13.0, *)
        weak open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    #endif

    @available(macOS 10.15, iOS 13.0, watchOS 6.2, tvOS 16.0, *)
    open var prefersEphemeralWebBrowserSession: Bool = false

    open func start() -> Bool { false }
    open func cancel() {}
}

// MARK: - ASWebAuthenticationSessionError.h: an `NS_ERROR_ENUM`, imported as a bridged error
// struct with a non-frozen `Code` enum (a `switch` over it needs `@unknown default`).

@available(macOS 10.15, iOS 12.0, watchOS 6.2, tvOS 16.0, *)
public struct ASWebAuthenticationSessionError: Error, Hashable {
    public enum Code: Int, @unchecked Sendable {
        case canceledLogin = 1
        case presentationContextNotProvided = 2
        case presentationContextInvalid = 3
    }

    public var code: Code { .canceledLogin }
    public static var canceledLogin: Code { .canceledLogin }
    public static var presentationContextNotProvided: Code { .presentationContextNotProvided }
    public static var presentationContextInvalid: Code { .presentationContextInvalid }
}
