// A user of CourierEndpoints, compiled from outside the package by .ci/consumer.py: the
// declarative style with `import CourierEndpoints`, which must need none of the `package` names
// of Courier the module is built with, and whose `enqueue(_:)` must give a `TypedCall` here too.
import Courier
import CourierEndpoints

struct Repository: Decodable, Sendable {
    var name: String
}

struct NewRepository: Encodable, Sendable {
    var name: String
}

enum GitHub {
    static let api = API(string: "https://api.github.example", headers: [.accept("application/vnd.github+json")])

    static func repositories(of login: String, page: Int) -> Endpoint<BodyForbidden, [Repository]> {
        api.get("users", login, "repos").query("page", page).returning([Repository].self)
    }

    static func create(_ repository: NewRepository) -> Endpoint<BodyAllowed, Repository> {
        api.post("user", "repos").json(repository).timeout(.seconds(10)).returning(Repository.self)
    }
}

func repositories(_ client: Client) async throws(CourierError) -> [Repository] {
    // `model()` gives the declared model (the `TypedCall` overload is picked from outside too);
    // `resume()` gives the `Response`, typed endpoint or not.
    let repositories: [Repository] = try await client.enqueue(GitHub.repositories(of: "octocat", page: 1)).model()
    let created: Repository = try await client.enqueue(GitHub.create(NewRepository(name: "notes"))).model()
    let raw: Response = try await client.enqueue(GitHub.api.get("rate_limit")).resume()
    let typedRaw: Response = try await client.enqueue(GitHub.repositories(of: "octocat", page: 1)).resume()
    _ = typedRaw
    _ = raw
    return repositories + [created]
}
