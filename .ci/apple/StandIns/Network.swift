// Stand-in for Apple's Network framework, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.sh). Only what Courier uses, copied from the Swift interface of
// Network.framework in the macOS 15 / iOS 18 SDKs: `NWPathMonitor` and `NWPath` are `Sendable`
// there (final classes / structs marked `@unchecked Sendable` / `Sendable` since the macOS 14
// SDK), `pathUpdateHandler` is `@Sendable`. Bodies are dummies.

import Dispatch

@available(macOS 10.14, iOS 12.0, watchOS 6.0, tvOS 12.0, *)
public final class NWPathMonitor: @unchecked Sendable {
    public init() {}
    public var currentPath: NWPath { NWPath() }
    public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    public func start(queue: DispatchQueue) {}
    public func cancel() {}
    public var queue: DispatchQueue? { nil }
}

@available(macOS 10.14, iOS 12.0, watchOS 6.0, tvOS 12.0, *)
public struct NWPath: Equatable, CustomDebugStringConvertible, Sendable {
    public enum Status: Equatable, Hashable, Sendable {
        case satisfied
        case unsatisfied
        case requiresConnection
    }

    public var status: NWPath.Status { .unsatisfied }
    public var availableInterfaces: [NWInterface] { [] }
    public var isExpensive: Bool { false }
    public var isConstrained: Bool { false }
    public var debugDescription: String { "" }
    init() {}
}

@available(macOS 10.14, iOS 12.0, watchOS 6.0, tvOS 12.0, *)
public struct NWInterface: Hashable, CustomDebugStringConvertible, Sendable {
    public enum InterfaceType: Hashable, Sendable {
        case other, wifi, cellular, wiredEthernet, loopback
    }

    public var type: NWInterface.InterfaceType { .other }
    public var name: String { "" }
    public var index: Int { 0 }
    public var debugDescription: String { "" }
}
