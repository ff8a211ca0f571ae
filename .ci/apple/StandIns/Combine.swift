// Stand-in for Apple's Combine, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.sh). Only the declarations Courier uses, copied from the Swift interface
// of Combine in the macOS 15 / iOS 18 SDKs (Combine.swiftmodule/arm64e-apple-macos.swiftinterface):
// names, generic signatures, `where` clauses and availability. No `Sendable` is claimed that the
// SDK does not claim, so the check is at least as strict as the real module. Bodies are dummies.

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Cancellable {
    func cancel()
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public struct CombineIdentifier: Hashable, CustomStringConvertible {
    public init() {}
    public init(_ obj: AnyObject) {}
    public var description: String { "" }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol CustomCombineIdentifierConvertible {
    var combineIdentifier: CombineIdentifier { get }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension CustomCombineIdentifierConvertible where Self: AnyObject {
    public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    func request(_ demand: Subscribers.Demand)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Self.Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Self.Failure>)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S>(subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Subscribers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers {
    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }

    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible {
        public static var unlimited: Demand { Demand() }
        public static var none: Demand { Demand() }
        public static func max(_ value: Int) -> Demand { Demand() }
        public var max: Int? { nil }
        public var description: String { "" }
        public static func < (lhs: Demand, rhs: Demand) -> Bool { false }
        public static func > (lhs: Demand, rhs: Demand) -> Bool { false }
    }
}
