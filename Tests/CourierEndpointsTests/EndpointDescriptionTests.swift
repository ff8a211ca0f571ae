import Courier
import CourierEndpoints
import Foundation
import Testing

/// Printing or dumping an endpoint shows where it goes, never a credential or its body.
@Suite("Declarative endpoints: description")
struct EndpointDescriptionTests {
    @Test func theDescriptionIsTheMethodAndTheURLWithSecretQueryItemsRedacted() {
        let endpoint = declaredAPI.get("search").query("q", "swift").query("access_token", "SECRET")
        #expect(endpoint.description == "GET https://api.example.com/v3/search?q=swift&access_token=<redacted>")
        #expect(String(reflecting: endpoint) == endpoint.description)
    }

    @Test func anEndpointThatCannotBeSentSaysWhy() {
        let description = declaredAPI.get("users", "..").description
        #expect(description.hasPrefix("GET <invalid: "))
        #expect(description.contains(".."))
    }

    @Test func dumpShowsNeitherHeaderValuesNorTheBody() {
        let endpoint = declaredAPI.post("login")
            .header("Authorization", "Bearer SECRET-TOKEN").header("X-Api-Key", "SECRET-KEY")
            .json(["password": "SECRET-PASSWORD"])
            .returning(DeclaredUser.self)
        var dumped = ""
        dump(endpoint, to: &dumped)
        for secret in ["SECRET-TOKEN", "SECRET-KEY", "SECRET-PASSWORD"] {
            #expect(!dumped.contains(secret), "\(dumped)")
        }
        #expect(dumped.contains("POST https://api.example.com/v3/login"))
        #expect(dumped.contains("X-Api-Key") && dumped.contains("Authorization"))
        #expect(!dumped.contains("vnd.example"), "no header value, not even a harmless one")
        #expect(dumped.contains("application/json, not shown"))
        #expect(dumped.contains("DeclaredUser"))
        #expect(!"\(endpoint)".contains("SECRET"))
    }
}
