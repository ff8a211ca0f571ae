import HTTPTypes

/// The authentication stage: the last moment a credential can be added, and the only place one
/// is.
///
/// For each attempt it checks the origin of the request actually being sent (after every
/// middleware above it) against ``Configuration/authorizedHosts``, then signs that attempt:
/// Basic, Bearer from a ``TokenRefresher``, or a ``RequestSigner``. A Bearer request that the
/// server answers with 401 is replayed once, with a newer credential or the result of one
/// coalesced refresh. Stages above it never see the credential.
struct AuthenticationStage: Sendable {
    /// What to sign with; `.none` for endpoints that do not require authorization.
    let authentication: Authentication
    /// ``Configuration/authorizedHosts`` (only that: the stage is part of every call's frame).
    let authorizedHosts: Set<String>
    /// The origin the endpoint declared (see ``Configuration/authorizes(_:declaredOrigin:)``).
    let declaredOrigin: RedirectPolicy.Origin?

    /// Runs the stage around `next` (non-escaping: ``CallPipeline`` allocates no closure for it).
    func run(
        _ request: TransportRequest, context: MiddlewareContext, next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        if case .none = authentication { return try await next(request) }
        try checkAuthorized(request)
        var request = request
        switch authentication {
        case .none:
            return try await next(request)
        case .basic(let credential):
            request.head.headerFields[.authorization] = try credential.authorizationValue()
            return try await next(request)
        case .bearer(let refresher):
            return try await sendWithBearer(&request, refresher: refresher, next: next)
        case .signed(let signer):
            try await signer.sign(&request, context: SigningContext(endpoint: context.endpoint, attempt: Attempt.current))
            // What was checked must be what is sent: a signer that moved the request is checked again.
            try checkAuthorized(request)
            return try await next(request)
        }
    }

    /// Signs with the refresher's credential; after a 401 to that credential, replays once with
    /// the replacement (a newer credential, or the result of one coalesced refresh).
    private func sendWithBearer(
        _ request: inout TransportRequest, refresher: TokenRefresher,
        next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        let credential = try await refresher.validCredential()
        request.head.headerFields[.authorization] = credential.authorizationValue
        let response = try await next(request)
        // A single-use stream body cannot be sent twice: the 401 is the answer, and no refresh is
        // asked for on its account (nobody would use it; the next call refreshes if it must).
        guard response.statusCode == 401, request.body?.isReplayable ?? true,
            let replacement = try await refresher.replacement(forRejected: credential)
        else {
            return response
        }
        response.body.cancel()  // the 401's body is not read: its transfer stops now
        request.head.headerFields[.authorization] = replacement.authorizationValue
        return try await next(request)
    }

    /// Credentials go only to the hosts (or origins) the configuration lists, checked on the URL
    /// the transport will send to.
    private func checkAuthorized(_ request: TransportRequest) throws(CourierError) {
        guard let url = request.resolvedURL, Configuration.authorizes(url, declaredOrigin: declaredOrigin, hosts: authorizedHosts) else {
            // Never the raw authority: it may hold user-info.
            let host = request.resolvedURL.flatMap(RedirectPolicy.Origin.init)?.authority ?? "<no host>"
            throw .authentication(.hostNotAuthorized(host: host))
        }
    }
}
