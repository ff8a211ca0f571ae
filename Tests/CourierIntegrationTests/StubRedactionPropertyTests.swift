import Courier
import CourierTesting
import PropertyBased
import Testing

/// An unmatched stub's message as a property: whatever the query, no value of an item the call's
/// redaction names secret appears in it, and every other item appears as it was sent.
///
/// Values use unreserved characters and every reserved one a query value keeps by default
/// (`;` among them, which `Redaction` also reads as a separator between items).
@Suite("StubRedactionProperty: an unmatched request's message never shows a secret query value")
struct StubRedactionPropertyTests {
    static let names = ["q", "page", "tenant", "access_token", "api_key", "sort"]
    static let alphabet = Array("abcXYZ019-_.~/!*'();:@$,?")

    struct Endpoint: Requestable {
        var query: [QueryItem]
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/p") }
        var queryItems: [QueryItem]? { query }
    }

    @Test func noSecretValueAppearsAndEveryOtherItemDoes() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...5).array(of: 1...5), Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 4...12), Gen.bool
        ) { picks, letters, tenantIsSecret in
            let stem = String(letters.map { Self.alphabet[$0] })
            // A value per item, unique (its position in front), so one cannot hide in another.
            let items = picks.enumerated().map { index, pick in QueryItem(name: Self.names[pick], value: "\(index)v\(stem)") }
            var secretNames: Set<String> = ["access_token", "api_key"]
            var configuration = Configuration()
            if tenantIsSecret {
                configuration.redaction = Redaction(queryItems: Redaction.defaultParameterNames.union(["tenant"]))
                secretNames.insert("tenant")
            }
            let client = Client(configuration: configuration)
            let endpoint = Endpoint(query: items)
            let result: Result<Response, CourierError> = await withStubbedNetwork { _ in
                do throws(CourierError) {
                    return .success(try await client.enqueue(endpoint).resume())
                } catch {
                    return .failure(error)
                }
            }
            guard case .failure(.transport(let failure)) = result, let message = failure.message else {
                Issue.record("an unmatched request did not fail with a transport failure: \(result)")
                return
            }
            #expect(message.contains("no stub matches GET /p?"))
            for item in items {
                let value = item.value ?? ""
                if secretNames.contains(item.name) {
                    #expect(!message.contains(value), "secret \(item.name) shown: \(message)")
                } else {
                    #expect(message.contains("\(item.name)=\(value)"), "\(item.name) not shown as sent: \(message)")
                }
            }
        }
    }
}
