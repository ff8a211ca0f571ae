import Courier
import CourierEndpoints
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// What a declared endpoint puts on the wire: method, URL, query, headers and body bytes, as the
/// transport receives them.
@Suite("Declarative endpoints: the request sent")
struct EndpointRequestTests {
    @Test(
        "each API method sends its HTTP method to the API's path and the segments",
        arguments: [
            (declaredAPI.get("users"), "GET"),
            (declaredAPI.head("users"), "HEAD"),
        ] as [(Endpoint<BodyForbidden, Response>, String)])
    func bodyForbiddenMethods(endpoint: Endpoint<BodyForbidden, Response>, method: String) async throws {
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.method.rawValue == method)
        #expect(request.url.absoluteString == "https://api.example.com/v3/users")
        #expect(request.body == nil)
    }

    @Test(
        "each body-capable API method sends its HTTP method",
        arguments: [
            (declaredAPI.post("users"), "POST"), (declaredAPI.put("users"), "PUT"), (declaredAPI.patch("users"), "PATCH"),
            (declaredAPI.delete("users"), "DELETE"), (declaredAPI.options("users"), "OPTIONS"),
            (declaredAPI.request(method: HTTPMethod(rawValue: "PURGE")!, "users"), "PURGE"),
        ] as [(Endpoint<BodyAllowed, Response>, String)])
    func bodyAllowedMethods(endpoint: Endpoint<BodyAllowed, Response>, method: String) async throws {
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.method.rawValue == method)
        #expect(request.head.path == "/v3/users")
    }

    @Test func pathSegmentsArePercentEncodedOneByOne() async throws {
        let endpoint = declaredAPI.get("users", "a/b c?d#e%f", "ü").appending("repos", "x;y")
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.path == "/v3/users/a%2Fb%20c%3Fd%23e%25f/%C3%BC/repos/x%3By")
    }

    @Test func anAPIWithoutPathAndNoSegmentsSendsTheRoot() async throws {
        let api = try API(base: BaseURL(scheme: .http, host: "127.0.0.1", port: 8080))
        let request = try #require(await sendDeclared(api.get()).request)
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/")
    }

    @Test func anAPIPathWithATrailingSlashIsJoinedWithoutAnEmptySegment() async throws {
        let request = try #require(await sendDeclared(API(string: "https://api.example.com/v1/").get("users")).request)
        #expect(request.head.path == "/v1/users")
    }

    @Test func flatQueryItemsKeepTheirOrderRepeatsAndBareNames() async throws {
        let missing: String? = nil
        let present: Int? = 7
        let endpoint = declaredAPI.get("search")
            .query("q", "swift & linux").query("tag", "a").query("tag", "b").query("page", 2).query("exact", true)
            .query("ratio", 1.5).query("verbose").query("missing", missing).query("present", present).query("empty", "")
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.path == "/v3/search?q=swift%20%26%20linux&tag=a&tag=b&page=2&exact=true&ratio=1.5&verbose&present=7&empty=")
    }

    @Test func queryItemsAndNestedParametersUseTheQueryStringEncoder() async throws {
        let endpoint = declaredAPI.get("issues")
            .query([QueryItem(name: "first", value: "1")])
            .query(["labels": ["bug", "ui"], "page": ["size": 20]])
            .query(["state": "open", "page": ["size": 50]])  // a name given again replaces its value
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.path == "/v3/issues?first=1&labels%5B0%5D=bug&labels%5B1%5D=ui&page%5Bsize%5D=50&state=open")
    }

    @Test func queryEncodingAnEncodableWritesItsKeyedFields() async throws {
        struct Filter: Encodable { var state: String; var labels: [String]; var since: Date? }
        let endpoint = declaredAPI.get("issues").query(encoding: Filter(state: "open", labels: ["bug"], since: nil))
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.path == "/v3/issues?labels%5B0%5D=bug&state=open")
    }

    @Test func queryStringOptionsOfTheEndpointWinOverTheClients() async throws {
        let endpoint = declaredAPI.get("items").query(["ids": [1, 2, 3]])
            .queryStringOptions(QueryStringFormattingOptions(arrayFormat: .commaSeparated))
        let request = try #require(
            await sendDeclared(endpoint) { $0.queryStringOptions = QueryStringFormattingOptions(arrayFormat: .bracketed) }.request)
        #expect(request.head.path == "/v3/items?ids=1,2,3")
    }

    @Test func headersReplaceTheAPIsAndEarlierOnesOfTheSameNameCaseInsensitively() async throws {
        let endpoint = declaredAPI.get("user")
            .header("X-Trace", "1").header("x-trace", "2")
            .header("ACCEPT", "text/csv")
            .headers([HeaderItem(name: "X-Many", value: "a"), HeaderItem(name: "X-Many", value: "b")])
            .headers([HeaderItem(name: "User-Agent", value: "declared/1")])
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.headers("X-Trace") == ["2"])
        #expect(request.headers("Accept") == ["text/csv"])
        #expect(request.headers("X-Many") == ["a", "b"])
        #expect(request.headers("User-Agent") == ["declared/1"])
    }

    @Test func theAPIsHeadersAreSentByEveryEndpoint() async throws {
        let request = try #require(await sendDeclared(declaredAPI.delete("user")).request)
        #expect(request.headers("Accept") == ["application/vnd.example+json"])
    }

    @Test func aJSONBodyIsEncodedWithTheGivenEncoderAndSentAsApplicationJSON() async throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let endpoint = declaredAPI.post("gists").json(DeclaredGist(description: "notes", isPublic: true), encoder: encoder)
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.head.method == .post)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.bodyData == Data(#"{"description":"notes","is_public":true}"#.utf8))
    }

    @Test func aJSONBodyWithoutEncoderUsesTheClientsEncoder() async throws {
        let endpoint = declaredAPI.put("gists", "1").json(DeclaredGist(description: "a", isPublic: false))
        let request = try #require(
            await sendDeclared(endpoint) { configuration in
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.outputFormatting = .sortedKeys
                configuration.encoder = encoder
            }.request)
        #expect(request.bodyData == Data(#"{"description":"a","is_public":false}"#.utf8))
    }

    @Test func formBodiesFromItemsParametersAndEncodables() async throws {
        struct Login: Encodable { var user: String; var remember: Bool }
        let bodies: [(Endpoint<BodyAllowed, Response>, String)] = [
            (declaredAPI.post("session").form([QueryItem(name: "user", value: "ada lovelace"), QueryItem(name: "remember")]), "user=ada%20lovelace&remember"),
            (
                declaredAPI.post("profile").form(["user": ["name": "Ada", "langs": ["en", "fr"]]]),
                "user%5Blangs%5D%5B0%5D=en&user%5Blangs%5D%5B1%5D=fr&user%5Bname%5D=Ada"
            ),
            (declaredAPI.post("session").form(encoding: Login(user: "ada", remember: true)), "remember=true&user=ada"),
            (
                declaredAPI.post("session").form(
                    [QueryItem(name: "q", value: "a b")], options: QueryStringFormattingOptions(spaceEncodingRule: .replacedWithDecodedPlus)), "q=a+b"
            ),
        ]
        for (endpoint, expected) in bodies {
            let request = try #require(await sendDeclared(endpoint).request)
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(request.bodyData.map { String(decoding: $0, as: UTF8.self) } == expected)
        }
    }

    @Test func anyRequestBodyAndTheLastBodyWins() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        let endpoint = declaredAPI.patch("avatar").json(["replaced": true]).body(.data(png, contentType: "image/png"))
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.header("Content-Type") == "image/png")
        #expect(request.bodyData == png)
    }

    @Test func timeoutAuthorizationStatusCodesAndSizeAreTheEndpoints() async throws {
        let endpoint = declaredAPI.get("cache").timeout(.milliseconds(1500)).authorized(false)
            .accepting(statusCodes: [304]).maximumResponseSize(1024)
        #expect(endpoint.timeout == .milliseconds(1500))
        #expect(endpoint.requiresAuthorization == false)
        #expect(declaredAPI.get("x").requiresAuthorization == true)

        let sent = await sendDeclared(endpoint, status: 304)
        let request = try #require(sent.request)
        #expect(request.timeout == .milliseconds(1500))
        #expect(request.maximumResponseSize == 1024)
        #expect(try sent.result.get().statusCode == 304)
        // 200 is no longer accepted.
        guard case .failure(.response(let response)) = await sendDeclared(endpoint, status: 200).result else {
            Issue.record("a 200 must fail when only 304 is accepted")
            return
        }
        #expect(response.statusCode == 200)
    }

    @Test func anUnauthorizedEndpointGetsNoCredentialAndAnAuthorizedOneDoes() async throws {
        let api = API(string: "https://api.example.com")
        let credential = BasicCredential(username: "ada", password: "secret")
        for (endpoint, expected) in [(api.get("public").authorized(false), nil), (api.get("private"), "Basic YWRhOnNlY3JldA==")] {
            let request = try #require(
                await sendDeclared(endpoint) { configuration in
                    configuration.authentication = .basic(credential)
                    configuration.authorizedHosts = ["api.example.com"]
                }.request)
            #expect(request.header("Authorization") == expected)
        }
    }

    /// A public API says so once; its endpoints go without a credential, even to a host outside
    /// `authorizedHosts` (where a credential-requiring call fails), unless one says otherwise.
    @Test(arguments: [true, false])
    func aPublicAPIsEndpointsGoWithoutACredentialUnlessOneSaysOtherwise(fromString: Bool) async throws {
        let api =
            fromString
            ? API(string: "https://rates.example.com", requiresAuthorization: false)
            : API(base: try BaseURL(host: "rates.example.com"), requiresAuthorization: false)
        let credential = BasicCredential(username: "ada", password: "secret")
        func send(
            _ endpoint: Endpoint<BodyForbidden, Response>, authorized hosts: Set<String>
        ) async -> (request: TransportRequest?, result: Result<Response, CourierError>, count: Int) {
            await sendDeclared(endpoint) { configuration in
                configuration.authentication = .basic(credential)
                configuration.authorizedHosts = hosts
            }
        }
        #expect(api.get("rates").requiresAuthorization == false)
        #expect(api.post("rates").requiresAuthorization == false)
        let publicCall = await send(api.get("rates"), authorized: [])
        #expect(try publicCall.result.get().statusCode == 200)
        #expect(try #require(publicCall.request).header("Authorization") == nil)

        let own = api.get("me").authorized(true)
        #expect(own.requiresAuthorization)
        let authorized = try #require(await send(own, authorized: ["rates.example.com"]).request)
        #expect(authorized.header("Authorization") == "Basic YWRhOnNlY3JldA==")
        guard case .failure(.authentication(.hostNotAuthorized)) = await send(own, authorized: []).result else {
            Issue.record("an endpoint that requires the credential must not go to a host outside authorizedHosts")
            return
        }
        // The default is unchanged: an API that does not say requires the credential.
        #expect(API(string: "https://rates.example.com").get("rates").requiresAuthorization)
    }

    @Test func endpointMiddlewareRunsForItsCallsInOrder() async throws {
        struct Tag: Middleware {
            let value: String
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                var request = request
                request.head.headerFields.append(HTTPField(name: HTTPField.Name("X-Stage")!, value: value))
                return try await next(request)
            }
        }
        let endpoint = declaredAPI.get("x").middleware(Tag(value: "1")).middleware(Tag(value: "2"), Tag(value: "3"))
        let request = try #require(await sendDeclared(endpoint).request)
        #expect(request.headers("X-Stage") == ["1", "2", "3"])
        #expect(declaredAPI.get("x").middleware.isEmpty)
    }

    @Test func endpointConstraintsAreAwaitedBeforeTheRequestIsBuilt() async throws {
        let satisfied = Flag()
        let constraint = Constraint(name: "session", isSatisfied: { await satisfied.value }, satisfy: { await satisfied.set() })
        let endpoint = declaredAPI.get("cart").constraints(constraint)
        #expect(await sendDeclared(endpoint).count == 1)
        #expect(await satisfied.value)
    }

    @Test func aDecoderOfTheEndpointDecodesWhateverTheContentType() async throws {
        let body = Data(#"{"login":"ada","id":1}"#.utf8)
        let transport = RecordingTransport(status: 200, headers: HTTPFields(["Content-Type": "text/plain"]), body: body)
        let endpoint = declaredAPI.get("users", "ada").returning(DeclaredUser.self).decoder(JSONBodyDecoder())
        #expect(try await makeClient(transport).enqueue(endpoint).model() == DeclaredUser(login: "ada", id: 1))
        #expect(await transport.last?.header("Accept") == "application/vnd.example+json")
    }

    @Test func modifiersReturnNewValuesAndLeaveTheOriginalAsItWas() async throws {
        let base = declaredAPI.get("users").query("page", 1).header("X-A", "1")
        let changed = base.query("page", 2).header("X-A", "2").appending("more").timeout(.seconds(1))
        #expect(base.queryItems == [QueryItem(name: "page", value: "1")])
        #expect(base.headerItems?.last == HeaderItem(name: "X-A", value: "1"))
        #expect(try base.path().rawValue == "/v3/users")
        #expect(base.timeout == nil)
        #expect(changed.queryItems?.count == 2)
        #expect(try changed.path().rawValue == "/v3/users/more")
    }
}

private actor Flag {
    private(set) var value = false
    func set() { value = true }
}
