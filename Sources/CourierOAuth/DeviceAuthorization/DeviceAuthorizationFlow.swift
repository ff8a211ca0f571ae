public import Courier
public import Foundation

/// The OAuth 2.0 device authorization grant (RFC 8628), for devices that have no browser or a
/// hard time typing: a TV, a command-line tool, a kiosk. The device shows a short code; the user
/// approves on another device; the flow polls the token endpoint until they do.
///
/// ```swift
/// let flow = DeviceAuthorizationFlow(deviceAuthorizationEndpoint: deviceEndpoint, tokenEndpoint: tokens)
/// let credential = try await flow.run { authorization in
///     print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
/// }
/// ```
///
/// Polling follows RFC 8628 §3.4–3.5: `authorization_pending` and network errors keep it
/// polling, `access_denied` fails with `AuthorizationFailure.denied(_:)`, an expired code with
/// `AuthorizationFailure.expired`, and cancellation stops it at once. Requests go through the
/// token endpoint's configuration. Neither the flow nor its errors ever print the device code or a token.
public struct DeviceAuthorizationFlow: Sendable {
    // Requests go through the token endpoint's client (its configuration without authentication),
    // with its client authentication and its timeout. Waits between polls are on the injected `clock`, so tests can
    // run a whole flow without waiting (with TestClock from CourierTesting).
    //
    // Polling (waitForApproval(_:)), as RFC 8628 §3.4–3.5 asks:
    // - waits DeviceAuthorization.interval before every poll, the first included;
    // - `authorization_pending`: polls again after the interval;
    // - `slow_down`: adds 5 s to the interval, for this and every later poll;
    // - no answer (a network error, a timeout) or a 5xx or 429 answer: waits twice as long as the
    //   time before (interval × 2, × 4… up to 60 s, or the interval if larger) and polls again; the
    //   next ordinary answer brings the wait back to the interval. It does not fail for that before
    //   the code expires;
    // - `access_denied`: .denied(_:);
    // - `expired_token`, or a next poll that would only come after `expires_in` has passed:
    //   .expired. In the second case the flow waits until the code's lifetime has passed and fails
    //   then, without sending another poll;
    // - any other OAuth2 error (`invalid_client`, `invalid_grant`…) or an unreadable 2xx answer: the
    //   token endpoint's error as it is, AuthenticationFailure.refreshFailed(_:);
    // - the calling task is cancelled: CourierError.cancelled at once, and no further request.

    /// Where ``start()`` sends the device authorization request.
    public let deviceAuthorizationEndpoint: URL
    /// Where the flow polls for the token; its client authentication, configuration and timeout are
    /// used for the device authorization request too.
    public let tokenEndpoint: OAuth2TokenEndpoint
    /// The scope to ask for, sent as `scope` in the device authorization request.
    public let scope: String?
    /// Extra parameters for the device authorization request (e.g. RFC 8707 `resource`); not
    /// sent when polling.
    public let additionalParameters: [QueryItem]
    let clock: PollingClock

    /// The most a connection failure may stretch the wait before the next poll (unless the
    /// interval itself is longer).
    static let maximumBackoff: Duration = .seconds(60)
    /// What `slow_down` adds to the interval (RFC 8628 §3.5).
    static let slowDownIncrement: Duration = .seconds(5)
    /// The most of a device authorization response that is read.
    static let maximumResponseSize = 64 << 10

    /// Creates a device flow. Nothing is sent until ``start()``.
    ///
    /// - Parameters:
    ///   - deviceAuthorizationEndpoint: the server's device authorization endpoint: an `http` or
    ///     `https` URL without query, fragment or user-info (checked by ``start()``).
    ///   - tokenEndpoint: the token endpoint to poll, with the client's authentication.
    ///   - scope: the scope to ask for; `nil` sends none. It becomes the credential's scope when
    ///     the token response has none.
    ///   - additionalParameters: extra form parameters for the device authorization request, sent
    ///     after `scope`. They may not repeat `scope` (when given) or the client authentication's.
    ///   - clock: the clock the flow waits on between polls, and measures the code's lifetime
    ///     with; `ContinuousClock` by default.
    public init(
        deviceAuthorizationEndpoint: URL,
        tokenEndpoint: OAuth2TokenEndpoint,
        scope: String? = nil,
        additionalParameters: [QueryItem] = [],
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.scope = scope
        self.additionalParameters = additionalParameters
        self.clock = PollingClock(clock)
    }

    // MARK: - Running

    /// Runs the whole flow: ``start()``, then `present` (show the code to the user; polling
    /// starts when it returns), then ``waitForApproval(_:)``.
    ///
    /// ```swift
    /// let credential = try await flow.run { authorization in
    ///     print("Go to \(authorization.verificationURI) and enter \(authorization.userCode)")
    /// }
    /// ```
    ///
    /// - Parameter present: shows the user code and verification URI; it should return once they
    ///   are shown, not when the user is done.
    /// - Returns: the credential the user approved.
    /// - Throws: the errors of ``start()`` and ``waitForApproval(_:)``.
    public func run(
        presenting present: @Sendable (DeviceAuthorization) async -> Void
    ) async throws(CourierError) -> TokenCredential {
        let authorization = try await start()
        await present(authorization)
        if Task.isCancelled { throw .cancelled }
        return try await waitForApproval(authorization)
    }

    /// Asks the server for a device code and a user code (RFC 8628 §3.1).
    ///
    /// ```swift
    /// let authorization = try await flow.start()
    /// show(authorization.userCode, at: authorization.verificationURIComplete ?? authorization.verificationURI)
    /// ```
    /// - Returns: what to show the user, and what ``waitForApproval(_:)`` needs.
    /// - Throws: `CourierError.invalidRequest(_:)` when the endpoint URL or a parameter cannot be
    ///   sent, without sending anything; `AuthorizationFailure.malformedResponse(_:)` for a 2xx
    ///   whose body is not a valid response (limits: the Authentication guide) or is over 64 KiB;
    ///   `AuthenticationFailure.refreshFailed(_:)` as the token endpoint reports failures (its
    ///   description names the device authorization endpoint); or
    ///   `CourierError.cancelled`.
    public func start() async throws(CourierError) -> DeviceAuthorization {
        // The request is a form `POST` of `scope`, the additional parameters and the client
        // authentication (`client_id`, or the Basic header), exactly as the token endpoint sends them.
        // refreshFailed reasons: `rejected` with the OAuth2Error for 400/401 (e.g. `invalid_client`,
        // `invalid_scope`), `unexpectedStatus` for other statuses, `transport` for no answer.
        let (baseURL, path) = try OAuth2Exchange.split(deviceAuthorizationEndpoint)
        var reserved = Set(tokenEndpoint.clientAuthentication.bodyParameters.map(\.name))
        var form: [QueryItem] = []
        if let scope {
            form.append(QueryItem(name: "scope", value: scope))
            reserved.insert("scope")
        }
        try OAuth2Form.validate(additionalParameters, reserved: reserved)
        form += additionalParameters
        let request = OAuth2Exchange.formPost(
            to: baseURL, path: path, form: form, clientAuthentication: tokenEndpoint.clientAuthentication,
            timeout: tokenEndpoint.timeout, maximumResponseSize: Self.maximumResponseSize)

        let sentAt = tokenEndpoint.now()
        let clockTime = clock.now
        let response: Response
        do throws(CourierError) {
            response = try await OAuth2Exchange.send(request, through: tokenEndpoint.client)
        } catch {
            if Task.isCancelled { throw .cancelled }
            switch error {
            case .transport(let failure) where failure.kind == .responseTooLarge:
                throw .authentication(
                    .authorizationFailed(.malformedResponse("the device authorization response is larger than 64 KiB")))
            case .transport(let transportFailure):
                var failure = RefreshFailure(reason: .transport(transportFailure), isPermanent: false)
                failure.endpoint = .deviceAuthorization
                throw .authentication(.refreshFailed(failure))
            default:
                throw error
            }
        }
        let parsed = try Self.deviceAuthorizationResponse(
            from: response, secrets: OAuth2Form.secretValues(of: form, clientAuthentication: tokenEndpoint.clientAuthentication))
        return DeviceAuthorization(parsed, sentAt: sentAt, clock: clock, clockTime: clockTime)
    }

    /// Reads the device authorization endpoint's answer: the response for 2xx, a typed failure
    /// otherwise (the statuses map as the token endpoint's do).
    static func deviceAuthorizationResponse(from response: Response, secrets: [String] = []) throws(CourierError)
        -> DeviceAuthorizationResponse
    {
        let status = response.statusCode
        // Named as this endpoint's failure, not the token endpoint's.
        func failure(_ reason: RefreshFailure.Reason, _ oauth2Error: OAuth2Error?, isPermanent: Bool) -> CourierError {
            var failure = RefreshFailure(reason: reason, oauth2Error: oauth2Error, statusCode: status, isPermanent: isPermanent)
            failure.endpoint = .deviceAuthorization
            return .authentication(.refreshFailed(failure))
        }
        switch status {
        case 200...299:
            switch DeviceAuthorizationResponse.parse(response.body) {
            case .success(let parsed):
                return parsed
            case .failure(let malformed):
                if let oauth2Error = OAuth2Error.lenientlyParsing(response.body, secrets: secrets) {
                    throw failure(.rejected, oauth2Error, isPermanent: true)
                }
                throw .authentication(.authorizationFailed(.malformedResponse("device authorization response: \(malformed.reason)")))
            }
        case 400, 401:
            throw failure(.rejected, OAuth2Error.lenientlyParsing(response.body, secrets: secrets), isPermanent: true)
        default:
            throw failure(.unexpectedStatus, OAuth2Error.lenientlyParsing(response.body, secrets: secrets), isPermanent: false)
        }
    }

    // MARK: - Polling

    /// Polls the token endpoint until the user approves, refuses, or the code expires (RFC 8628 §3.4–3.5).
    ///
    /// ```swift
    /// let authorization = try await flow.start()
    /// do {
    ///     let credential = try await flow.waitForApproval(authorization)
    ///     try await refresher.reset(to: credential)
    /// } catch .authentication(.authorizationFailed(.expired)) {
    ///     print("The code expired; run the command again.")
    /// }
    /// ```
    /// - Parameter authorization: what ``start()`` returned. From another flow, its lifetime is
    ///   measured from ``DeviceAuthorization/expiresAt`` by the wall clock instead.
    /// - Returns: the credential; its scope is the response's, or else the requested ``scope``.
    /// - Throws: `AuthorizationFailure.denied(_:)` or `AuthorizationFailure.expired` (inside
    ///   `AuthenticationFailure.authorizationFailed(_:)`), the token endpoint's
    ///   `AuthenticationFailure.refreshFailed(_:)` for other errors, or `CourierError.cancelled`.
    public func waitForApproval(_ authorization: DeviceAuthorization) async throws(CourierError) -> TokenCredential {
        // Each poll is `grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code=…`
        // followed by the client authentication's parameters, sent by the token endpoint.
        let deadline: Duration
        if authorization.issuedOn == ObjectIdentifier(clock) {
            deadline = authorization.issuedAt + authorization.expiresIn
        } else {
            let remaining = max(0, authorization.expiresAt.timeIntervalSince(tokenEndpoint.now()))
            deadline = clock.now + .milliseconds(Int64(remaining * 1000))
        }
        var schedule = DevicePollSchedule(interval: authorization.interval)
        while true {
            let now = clock.now
            if now + schedule.nextWait >= deadline {
                // The next poll would come too late: fail when the code expires, not before (the
                // user may still be looking at it), and without another request.
                if deadline > now { try await clock.sleep(for: deadline - now) }
                throw .authentication(.authorizationFailed(.expired))
            }
            try await clock.sleep(for: schedule.nextWait)
            do throws(CourierError) {
                return try await tokenEndpoint.deviceCode(authorization.deviceCode, requestedScope: scope)
            } catch {
                if Task.isCancelled { throw .cancelled }
                switch DevicePollSchedule.Answer(error) {
                case .pending: schedule.pending()
                case .slowDown: schedule.slowDown()
                case .unreachable: schedule.unreachable()
                case .denied(let oauth2Error): throw .authentication(.authorizationFailed(.denied(oauth2Error)))
                case .expired: throw .authentication(.authorizationFailed(.expired))
                case .failed: throw error
                }
            }
        }
    }
}

extension DeviceAuthorizationFlow: CustomStringConvertible {
    /// The device authorization URL, the token endpoint and the scope; never a secret.
    public var description: String {
        let device = Redaction.default.redact(urlString: deviceAuthorizationEndpoint.absoluteString)
        return "DeviceAuthorizationFlow(\(device), \(tokenEndpoint), scope: \(scope?.debugDescription ?? "nil"))"
    }
}

/// When the device flow polls next: the interval, stretched by `slow_down` for good and by
/// connection failures until the next ordinary answer.
struct DevicePollSchedule: Equatable {
    /// The interval between ordinary polls (raised by `slow_down`).
    private(set) var interval: Duration
    /// The wait before the next poll.
    private(set) var nextWait: Duration

    init(interval: Duration) {
        self.interval = interval
        nextWait = interval
    }

    /// `authorization_pending`: the ordinary interval again.
    mutating func pending() { nextWait = interval }

    /// `slow_down`: 5 s more, now and for every later poll.
    mutating func slowDown() {
        interval += DeviceAuthorizationFlow.slowDownIncrement
        nextWait = interval
    }

    /// No answer, a 5xx or a 429: twice the last wait, up to the cap (or the interval when larger).
    mutating func unreachable() {
        nextWait = min(nextWait * 2, max(DeviceAuthorizationFlow.maximumBackoff, interval))
    }

    /// How one failed poll is handled.
    enum Answer: Equatable {
        case pending, slowDown, unreachable, expired, failed
        case denied(OAuth2Error)

        init(_ error: CourierError) {
            guard case .authentication(.refreshFailed(let failure)) = error else {
                self = .failed
                return
            }
            switch failure.oauth2Error?.code {
            case "authorization_pending": self = .pending
            case "slow_down": self = .slowDown
            case "access_denied": self = .denied(failure.oauth2Error ?? OAuth2Error(code: "access_denied"))
            case "expired_token": self = .expired
            default:
                switch failure.reason {
                case .transport: self = .unreachable
                case .unexpectedStatus where failure.statusCode.map({ $0 >= 500 || $0 == 429 }) ?? false: self = .unreachable
                default: self = .failed
                }
            }
        }
    }
}
