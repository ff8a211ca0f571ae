import Testing

@testable import Courier

/// What Linux can check of KeychainTokenStore's locked-device saves: the pure state it keeps.
@Suite("Apple platforms: a credential the Keychain refuses while the device is locked is kept")
struct KeychainPendingSaveTests {
    let rotated = TokenCredential(accessToken: "at-2", refreshToken: "rt-2")
    let stored = TokenCredential(accessToken: "at-1", refreshToken: "rt-1")

    @Test func aSaveRefusedWhileLockedIsKeptAndLoadedInsteadOfTheOlderItem() throws {
        var pending = KeychainPendingSave()
        pending.wrote(rotated, status: KeychainPendingSave.interactionNotAllowed)
        #expect(pending.credential == rotated)
        #expect(try pending.loaded { stored } == rotated)
    }

    @Test func onceWrittenTheItemIsReadAgain() throws {
        var pending = KeychainPendingSave()
        pending.wrote(rotated, status: KeychainPendingSave.interactionNotAllowed)
        pending.wrote(rotated, status: KeychainPendingSave.success)
        #expect(pending.credential == nil)
        #expect(try pending.loaded { stored } == stored)
    }

    @Test("another refusal keeps nothing new, but what was kept stays", arguments: [-25300, -34018, -25299] as [Int32])
    func anotherFailureKeepsNothingNew(status: Int32) {
        var pending = KeychainPendingSave()
        pending.wrote(stored, status: status)
        #expect(pending.credential == nil)
        pending.wrote(rotated, status: KeychainPendingSave.interactionNotAllowed)
        pending.wrote(stored, status: status)
        #expect(pending.credential == rotated)
    }

    @Test func aNewerRefusedSaveReplacesTheKeptOne() {
        var pending = KeychainPendingSave()
        pending.wrote(stored, status: KeychainPendingSave.interactionNotAllowed)
        pending.wrote(rotated, status: KeychainPendingSave.interactionNotAllowed)
        #expect(pending.credential == rotated)
    }

    @Test func signingOutForgetsTheKeptCredential() throws {
        var pending = KeychainPendingSave()
        pending.wrote(rotated, status: KeychainPendingSave.interactionNotAllowed)
        pending.removed()
        #expect(try pending.loaded { nil } == nil)
    }
}
