import Courier
public import Foundation

/// What the user needs to approve a device (RFC 8628 §3.2–3.3): a code to type at a URL, or a
/// URL that already holds it. Returned by ``DeviceAuthorizationFlow/start()``.
///
/// ```swift
/// let authorization = try await flow.start()
/// print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
/// if let complete = authorization.verificationURIComplete { showQRCode(complete) }
/// let credential = try await flow.waitForApproval(authorization)
/// ```
///
/// The device code that the flow sends back to the token endpoint is kept inside: it is
/// neither public nor in the `description`, `String(reflecting:)` or a `dump`, since anyone
/// holding it could collect the user's token.
public struct DeviceAuthorization: Sendable {
    /// The code the user types at ``verificationURI``, e.g. `WDJB-MJHT`. Not secret: it is
    /// meant to be shown. It has no control characters.
    public let userCode: String
    /// Where the user goes to enter ``userCode`` (`https`, or `http` on a loopback host).
    public let verificationURI: URL
    /// A URL that already holds the user code, for a QR code or a link, when the server gives one.
    public let verificationURIComplete: URL?
    /// How long the codes are valid, from when the request was sent (`expires_in`).
    public let expiresIn: Duration
    /// When the codes stop being valid, by the token endpoint's wall clock (`now`): for display.
    /// Polling stops by the flow's clock, ``expiresIn`` after the request was sent.
    public let expiresAt: Date
    /// How long to wait between polls (`interval`; 5 s when the server gave none, never under 1 s).
    public let interval: Duration

    /// The device verification code (`device_code`). Secret until the flow ends.
    let deviceCode: String
    /// The flow clock that dated the request, and the moment on it the request was sent.
    let issuedOn: ObjectIdentifier
    let issuedAt: Duration

    init(_ response: DeviceAuthorizationResponse, sentAt: Date, clock: PollingClock, clockTime: Duration) {
        userCode = response.userCode
        verificationURI = response.verificationURI
        verificationURIComplete = response.verificationURIComplete
        expiresIn = response.expiresIn
        expiresAt = sentAt.addingTimeInterval(response.expiresIn.timeInterval)
        interval = response.interval
        deviceCode = response.deviceCode
        issuedOn = ObjectIdentifier(clock)
        issuedAt = clockTime
    }
}

extension DeviceAuthorization: CustomStringConvertible, CustomReflectable {
    /// The user code, the verification URI, the lifetime and the interval; never the device code.
    /// For example `DeviceAuthorization(userCode: "WDJB-MJHT", verificationURI: https://example.com/device, expiresIn: 1800.0 seconds, interval: 5.0 seconds)`.
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode.debugDescription), verificationURI: \(verificationURI.absoluteString), expiresIn: \(expiresIn), interval: \(interval))"
    }

    /// The public values only, so that `dump` and reflection-based loggers never reach the
    /// device code.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userCode": userCode, "verificationURI": verificationURI,
                "verificationURIComplete": verificationURIComplete as Any, "expiresIn": expiresIn,
                "expiresAt": expiresAt, "interval": interval,
            ], displayStyle: .struct)
    }
}

/// The injected clock of a ``DeviceAuthorizationFlow``, with its type erased but its instants
/// kept comparable: every reading is the time since the flow was made.
final class PollingClock: Sendable {
    private let elapsedTime: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsedTime = { origin.duration(to: clock.now) }
        sleeper = { try await clock.sleep(for: $0) }
    }

    /// The time since the clock was wrapped.
    var now: Duration { elapsedTime() }

    /// Sleeps for `duration` on the clock.
    /// - Throws: `CourierError.cancelled` when the task is cancelled before or during the sleep.
    func sleep(for duration: Duration) async throws(CourierError) {
        do {
            try await sleeper(duration)
        } catch {
            throw .cancelled
        }
        if Task.isCancelled { throw .cancelled }
    }
}
