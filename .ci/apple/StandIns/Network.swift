// Stand-in for Apple's Network framework, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.py). Only what Courier uses, copied from the Swift interface of
// Network.framework (Xcode 16 SDKs, Network.swiftmodule/*.swiftinterface) and the documentation
// pages developer.apple.com/documentation/network/nwpathmonitor, …/nwpath and …/nwinterface:
// `NWPathMonitor` is a final class marked `@unchecked Sendable`, `NWPath` and `NWInterface` are
// `Sendable` structs, `pathUpdateHandler` is `@Sendable`. Built with -enable-library-evolution, as
// Apple's frameworks are: the enums are not frozen, so a `switch` over `NWPath.Status` needs
// `@unknown default`, as with the SDK. Bodies are dummies.
//
// On watchOS the framework exists, but TN3135 ("Low-level networking on watchOS") says a normal
// app's path monitor reports no usable path; Courier does not use it there (ConnectivityMonitor).

public import Dispatch

// MARK: - NWPathMonitor (macOS 10.14, iOS 12, watchOS 6, tvOS 12).
@available(macOS 10.14, iOS 12.0, watchOS 6.0, tvOS 12.0, *)
public final class NWPathMonitor: @unchecked Sendable {
    public init() {}
    public var currentPath: NWPath { NWPath() }
    public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    public func start(queue: DispatchQueue) {}
    public func cancel() {}
    public var queue: DispatchQueue? { nil }
}

// MARK: - NWPath and NWPath.Status.
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

// MARK: - NWInterface and NWInterface.InterfaceType.
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
