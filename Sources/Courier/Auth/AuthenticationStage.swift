import Foundation
import HTTPTypes

/// The authentication stage: the last moment a credential can be added, and the only place one
/// is.
///
/// For each attempt it checks the origin of the request actually being sent (after every
/// middleware above it) against ``Configuration/authorizedHosts``, then signs that attempt:
/// Basic, Bearer from a ``TokenRefresher``, or a ``RequestSigner``. A Bearer request that the
/// server answers with 401 is replayed once, with a newer credential or the result of one
/// coalesced refresh. Stages above it never see the credential.
struct AuthenticationStage: Stage {
    /// What to sign with.
    let authentication: Authentication
    /// ``Configuration/authorizedHosts``.
    let authorizedHosts: Set<String>

    var name: String { "authentication" }

    /// Only calls to endpoints that require authorization (``StageCall/authenticates``).
    func applies(to call: StageCall) -> Bool { call.authenticates }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        if case .none = authentication { return try await next(request, call) }
        try checkAuthorized(request, declaredOrigin: call.declaredOrigin)
        var request = request
        switch authentication {
        case .none:
            return try await next(request, call)
        case .basic(let credential):
            request.head.headerFields[.authorization] = try credential.authorizationValue()
            return try await next(request, call)
        case .bearer(let refresher):
            return try await sendWithBearer(&request, refresher: refresher, next: next, call: call)
        case .signed(let signer):
            try await signer.sign(&request, context: SigningContext(endpoint: call.context.endpoint, attempt: Attempt.current))
            // What was checked must be what is sent: a signer that moved the request is checked again.
            try checkAuthorized(request, declaredOrigin: call.declaredOrigin)
            return try await next(request, call)
        }
    }

    /// Signs with the refresher's credential; after a 401 to that credential, replays once with
    /// the replacement (a newer credential, or the result of one coalesced refresh).
    private func sendWithBearer(
        _ request: inout TransportRequest, refresher: TokenRefresher,
        next: StageNext, call: StageCall
    ) async throws(CourierError) -> StreamedResponse {
        let credential = try await refresher.validCredential()
        request.head.headerFields[.authorization] = credential.authorizationValue
        var response = try await next(request, call)
        // A single-use stream body cannot be sent twice: the 401 is the answer, and no refresh is
        // asked for on its account (nobody would use it; the next call refreshes if it must).
        guard response.statusCode == 401, request.body?.isReplayable ?? true else { return response }
        // A 401 from another origin (where a redirect led; the credential was not sent there) says
        // nothing about the credential: it is the answer, and no refresh is spent on it.
        guard let sentTo = request.resolvedURL.flatMap(RedirectPolicy.Origin.init),
            RedirectPolicy.Origin(response.head.url) == sentTo
        else { return response }
        guard let replacement = try await refresher.replacement(forRejected: credential) else {
            // Nothing to renew the credential with: the 401 stands, and says why.
            response.head.note = Self.unrenewable(credential, at: refresher.now())
            return response
        }
        response.body.cancel()  // the 401's body is not read: its transfer stops now
        request.head.headerFields[.authorization] = replacement.authorizationValue
        return try await next(request, call)
    }

    /// Why a 401 to `credential` stands: it has no refresh token (and had expired, if it had).
    static func unrenewable(_ credential: TokenCredential, at now: Date) -> String {
        let expired = credential.expiresAt.map { $0 <= now } ?? false
        return (expired ? "the access token expired" : "the server refused the access token")
            + " and the credential has no refresh token to renew it: sign in again"
    }

    /// Credentials go only to the hosts (or origins) the configuration lists, checked on the URL
    /// the transport will send to.
    /// - Parameter declaredOrigin: the origin the endpoint declared (see
    ///   ``Configuration/authorizes(_:declaredOrigin:)``).
    private func checkAuthorized(_ request: TransportRequest, declaredOrigin: RedirectPolicy.Origin?) throws(CourierError) {
        guard let url = request.resolvedURL, Configuration.authorizes(url, declaredOrigin: declaredOrigin, hosts: authorizedHosts) else {
            // Never the raw authority: it may hold user-info.
            let host = request.resolvedURL.flatMap(RedirectPolicy.Origin.init)?.authority ?? "<no host>"
            throw .authentication(.hostNotAuthorized(host: host))
        }
    }
}
