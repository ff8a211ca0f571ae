import HTTPTypes

extension Response {
    /// The authentication challenges of every `WWW-Authenticate` field of this response, in
    /// order: each field is read with ``AuthenticationChallenge/parse(_:)``, so a malformed field
    /// loses only its own challenges from the malformed one on. At most 16 in
    /// all.
    ///
    /// ```swift
    /// do {
    ///     _ = try await client.enqueue(Repositories()).resume(expecting: [Repository].self)
    /// } catch {
    ///     let bearer = error.response?.authenticationChallenges.first { $0.hasScheme("Bearer") }
    ///     if bearer?.error == "insufficient_scope" { askFor(bearer?.scopes ?? []) }
    /// }
    /// ```
    var authenticationChallenges: [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        for fieldValue in headers[values: .wwwAuthenticate] {
            let remaining = AuthenticationChallenge.maximumChallenges - challenges.count
            guard remaining > 0 else { break }
            challenges += AuthenticationChallenge.parse(fieldValue).prefix(remaining)
        }
        return challenges
    }
}
