import Courier
import CourierEndpoints
import Foundation
import Testing

/// Stands in for a body modifier an `Endpoint` does not have. Overload resolution prefers a
/// member of `Endpoint` itself over these protocol-extension fallbacks, so a call site resolves
/// to a fallback (and returns `NoSuchModifier`) exactly when `Endpoint<Policy, _>` has no
/// modifier of that name and shape: the compiler, not the test's runtime, decides what these
/// tests observe.
private protocol BodyModifierProbe {}

private struct NoSuchModifier {}

extension BodyModifierProbe {
    func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> NoSuchModifier { NoSuchModifier() }
    func body(_ body: RequestBody) -> NoSuchModifier { NoSuchModifier() }
    func form(_ items: [QueryItem], options: QueryStringFormattingOptions? = nil) -> NoSuchModifier { NoSuchModifier() }
    func form(_ parameters: QueryParameters, options: QueryStringFormattingOptions? = nil) -> NoSuchModifier { NoSuchModifier() }
    func form(encoding value: some Encodable, options: QueryStringFormattingOptions? = nil) -> NoSuchModifier { NoSuchModifier() }
}

extension Endpoint: BodyModifierProbe {}

/// A body on GET or HEAD is a compile-time error: the body modifiers exist only on
/// `Endpoint<BodyAllowed, _>`. (`api.get("x").json(value)` fails with "referencing instance
/// method 'json(_:encoder:)' on 'Endpoint' requires the types 'BodyForbidden' and 'BodyAllowed'
/// be equivalent"; a test cannot contain code that does not compile, so these tests observe the
/// same fact through overload resolution.)
@Suite("Declarative endpoints: bodies only where the method allows one")
struct BodyPolicyTests {
    @Test func getAndHeadEndpointsHaveNoBodyModifier() {
        for endpoint in [declaredAPI.get("users"), declaredAPI.head("users")] {
            #expect(type(of: endpoint.json(["a": 1])) == NoSuchModifier.self)
            #expect(type(of: endpoint.body(.text("x"))) == NoSuchModifier.self)
            #expect(type(of: endpoint.form([QueryItem(name: "a")])) == NoSuchModifier.self)
            #expect(type(of: endpoint.form(["a": 1])) == NoSuchModifier.self)
            #expect(type(of: endpoint.form(encoding: ["a": 1])) == NoSuchModifier.self)
        }
    }

    @Test func typedGetEndpointsHaveNoBodyModifierEither() {
        let endpoint = declaredAPI.get("users").returning(DeclaredUser.self)
        #expect(type(of: endpoint.json(["a": 1])) == NoSuchModifier.self)
        #expect(type(of: endpoint.body(.text("x"))) == NoSuchModifier.self)
    }

    @Test func bodyCapableEndpointsHaveEveryBodyModifier() {
        let endpoint = declaredAPI.post("users")
        #expect(type(of: endpoint.json(["a": 1])) == Endpoint<BodyAllowed, Response>.self)
        #expect(type(of: endpoint.body(.text("x"))) == Endpoint<BodyAllowed, Response>.self)
        #expect(type(of: endpoint.form([QueryItem(name: "a")])) == Endpoint<BodyAllowed, Response>.self)
        #expect(type(of: endpoint.form(["a": 1])) == Endpoint<BodyAllowed, Response>.self)
        #expect(type(of: endpoint.form(encoding: ["a": 1])) == Endpoint<BodyAllowed, Response>.self)
        #expect(type(of: endpoint.returning(DeclaredUser.self).json(["a": 1])) == Endpoint<BodyAllowed, DeclaredUser>.self)
    }

    @Test func everyModifierOfAGetEndpointKeepsItBodyForbidden() {
        let endpoint = declaredAPI.get("users").appending("x").query("a", 1).query(["b": 2]).query([QueryItem(name: "c")])
            .header("X", "1").headers([]).timeout(.seconds(1)).authorized(false).accepting(statusCodes: [200])
            .maximumResponseSize(1).decoder(JSONBodyDecoder()).middleware().constraints().queryStringOptions(.init())
        #expect(type(of: endpoint) == Endpoint<BodyForbidden, Response>.self)
        #expect(endpoint.body == nil)
    }

    @Test func getAndHeadEndpointsNeverHaveABody() {
        #expect(declaredAPI.get("users").body == nil)
        #expect(declaredAPI.head("users").returning(EmptyResponse.self).body == nil)
    }

    @Test(
        "a body on GET or HEAD through the custom-method escape hatch fails before anything is sent",
        arguments: [HTTPMethod.get, .head])
    func escapeHatchStillRefusesABodyOnGetAndHead(method: HTTPMethod) async {
        let endpoint = declaredAPI.request(method: method, "users").json(["a": 1])
        let sent = await sendDeclared(endpoint)
        guard case .failure(.invalidRequest(.bodyNotAllowed(let refused))) = sent.result else {
            Issue.record("expected bodyNotAllowed, got \(sent.result)")
            return
        }
        #expect(refused == method.rawValue)
        #expect(sent.count == 0)
    }

    @Test func theEscapeHatchSendsAGetWithoutABody() async throws {
        let request = try #require(await sendDeclared(declaredAPI.request(method: .get, "users")).request)
        #expect(request.head.method == .get)
        #expect(request.body == nil)
    }
}
