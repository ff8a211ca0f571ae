import Foundation
import Testing

@testable import Courier

/// What Linux can check of the refusal of App Group containers on iOS, tvOS, watchOS and visionOS.
@Suite("Apple platforms: no file lock in an App Group container")
struct AppGroupContainerTests {
    @Test(
        "device and simulator App Group paths are recognised",
        arguments: [
            "/private/var/mobile/Containers/Shared/AppGroup/0B7F8A0E-1C2D-4E5F-8A9B-0C1D2E3F4A5B/Library/Caches/api",
            "/Users/dev/Library/Developer/CoreSimulator/Devices/A1/data/Containers/Shared/AppGroup/B2/tokens.json",
        ])
    func recognised(_ path: String) {
        #expect(AppGroupContainer.contains(path))
        #expect(AppGroupContainer.refusal(for: URL(fileURLWithPath: path), refusesLocks: true)?.contains("0xdead10cc") == true)
    }

    @Test(
        "the app's own container and other folders are not",
        arguments: [
            "/private/var/mobile/Containers/Data/Application/9C/Library/Caches/api", "/tmp/courier-cache",
            "/Users/dev/Shared/AppGroup/x", "/Containers/Shared",
        ])
    func notRecognised(_ path: String) {
        #expect(!AppGroupContainer.contains(path))
        #expect(AppGroupContainer.refusal(for: URL(fileURLWithPath: path), refusesLocks: true) == nil)
    }

    @Test("the check is made in any case: the simulator's file system ignores it")
    func anyCase() {
        #expect(AppGroupContainer.contains("/Users/dev/data/containers/shared/appgroup/B2/c"))
    }

    @Test func platformsThatDoNotSuspendThisWayRefuseNothing() {
        #expect(AppGroupContainer.refusal(for: URL(fileURLWithPath: "/private/var/mobile/Containers/Shared/AppGroup/X/c"), refusesLocks: false) == nil)
        #if os(Linux) || os(macOS)
            #expect(!AppGroupContainer.refusesLocks)
        #endif
    }
}
