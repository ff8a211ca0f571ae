import Courier
import Foundation
import Testing

@Suite("InMemoryTokenStore keeps one credential in memory")
struct InMemoryTokenStoreTests {
    @Test("a new store is empty unless given a credential")
    func initialContents() async {
        #expect(await InMemoryTokenStore().load() == nil)
        #expect(await InMemoryTokenStore(StoreFixtures.credential(7)).load() == StoreFixtures.credential(7))
    }

    @Test("save then load returns the saved credential, and a second save replaces it")
    func roundTrip() async {
        let store = InMemoryTokenStore()
        await store.save(StoreFixtures.credential(1))
        #expect(await store.load() == StoreFixtures.credential(1))
        await store.save(StoreFixtures.credential(2))
        #expect(await store.load() == StoreFixtures.credential(2))
    }

    @Test("remove empties the store, and removing from an empty store is fine")
    func removeEmpties() async {
        let store = InMemoryTokenStore(StoreFixtures.credential())
        await store.remove()
        #expect(await store.load() == nil)
        await store.remove()
        #expect(await store.load() == nil)
    }

    @Test("works through the TokenStore protocol, as the refresher uses it")
    func throughProtocol() async throws {
        let store: any TokenStore = InMemoryTokenStore()
        try await store.save(StoreFixtures.credential(3))
        #expect(try await store.load() == StoreFixtures.credential(3))
        try await store.remove()
        #expect(try await store.load() == nil)
    }

    @Test("concurrent saves leave one of the saved credentials")
    func concurrentSaves() async {
        let store = InMemoryTokenStore()
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<200 {
                group.addTask { await store.save(StoreFixtures.credential(number)) }
            }
        }
        let saved = (0..<200).map { StoreFixtures.credential($0) }
        let loaded = await store.load()
        #expect(loaded.map { saved.contains($0) } == true)
    }

    @Test("its description never shows the credential")
    func descriptionHidesTokens() {
        let text = String(describing: InMemoryTokenStore(StoreFixtures.credential()))
        #expect(text == "InMemoryTokenStore")
        #expect(!text.contains("SECRET"))
    }
}
