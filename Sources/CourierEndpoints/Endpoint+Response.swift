extension Endpoint {
    /// This endpoint, declaring that its responses decode to `type`: `client.enqueue(endpoint)`
    /// then returns a ``TypedCall`` whose ``TypedCall/model()`` gives a `NewModel`.
    ///
    /// ```swift
    /// enum GitHub {
    ///     static let api = API(string: "https://api.github.example")
    ///     static func user(_ login: String) -> Endpoint<BodyForbidden, User> {
    ///         api.get("users", login).returning(User.self)
    ///     }
    /// }
    /// let user = try await client.enqueue(GitHub.user("octocat")).model()
    /// ```
    ///
    /// `returning(Response.self)` goes back to the raw `Response`.
    public func returning<NewModel>(_ type: NewModel.Type) -> Endpoint<Policy, NewModel> {
        Endpoint<Policy, NewModel>(parts: parts)
    }
}

/// An endpoint whose model is `Decodable` (``Endpoint/returning(_:)``) declares it; one whose
/// model is `Response` (not `Decodable`) does not, and gets a plain `Call`.
extension Endpoint: ResponseDeclaring where Model: Decodable {
    /// `Model`.
    public typealias ResponseModel = Model
}
