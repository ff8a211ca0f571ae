// Stand-in for Apple's Combine, for type-checking Courier's Apple-only code (Call+Combine.swift)
// and the guides' Combine blocks on Linux (.ci/apple/typecheck.py). Only the declarations they
// use, with the names, generic signatures, `where` clauses and conformances of OpenCombine 0.14.0
// (github.com/OpenCombine/OpenCombine, a declaration-for-declaration copy of Combine's Swift
// interface; file named per group), Combine's availability (macOS 10.15, iOS 13, tvOS 13,
// watchOS 6), and Combine's `@frozen` where its interface has it (`Subscribers.Completion`,
// `Subscribers.Demand`). Built with -enable-library-evolution, as Apple's frameworks are. No
// `Sendable` is claimed that the SDK does not claim. Bodies are dummies.

public import Dispatch

// MARK: - Cancellable.swift, AnyCancellable.swift
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Cancellable {
    func cancel()
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public final class AnyCancellable: Cancellable, Hashable {
    public init(_ cancel: @escaping () -> Void) {}
    public init<OtherCancellable: Cancellable>(_ canceller: OtherCancellable) {}
    public func cancel() {}
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension AnyCancellable {
    public func store<Cancellables: RangeReplaceableCollection>(in collection: inout Cancellables)
    where Cancellables.Element == AnyCancellable {}
    public func store(in set: inout Set<AnyCancellable>) {}
}

// MARK: - CombineIdentifier.swift, CustomCombineIdentifierConvertible.swift
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

// MARK: - GENERATED-RootProtocols.swift: Subscription, Subscriber, Publisher, Scheduler
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
public protocol Scheduler<SchedulerTimeType> {
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
    associatedtype SchedulerOptions
    var now: SchedulerTimeType { get }
    var minimumTolerance: SchedulerTimeType.Stride { get }
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)
    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void)
    func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable
}

// MARK: - Scheduler.swift
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol SchedulerTimeIntervalConvertible {
    static func seconds(_ s: Int) -> Self
    static func seconds(_ s: Double) -> Self
    static func milliseconds(_ ms: Int) -> Self
    static func microseconds(_ us: Int) -> Self
    static func nanoseconds(_ ns: Int) -> Self
}

// MARK: - Subscribers/Subscribers.swift, Subscribers.Completion.swift, Subscribers.Demand.swift
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Subscribers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers {
    @frozen
    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }

    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible {
        @usableFromInline internal let rawValue: UInt
        internal init(rawValue: UInt) { self.rawValue = rawValue }
        public static var unlimited: Demand { Demand(rawValue: .max) }
        public static var none: Demand { Demand(rawValue: 0) }
        public static func max(_ value: Int) -> Demand { Demand(rawValue: UInt(value)) }
        public var max: Int? { nil }
        public var description: String { "" }
        public static func < (lhs: Demand, rhs: Demand) -> Bool { false }
        public static func > (lhs: Demand, rhs: Demand) -> Bool { false }
    }
}

// MARK: - Subscribers/Subscribers.Sink.swift
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers {
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible {
        public var receiveValue: (Input) -> Void
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void
        public var description: String { "Sink" }
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void, receiveValue: @escaping ((Input) -> Void)
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }
        public func receive(subscription: any Subscription) {}
        public func receive(_ value: Input) -> Subscribers.Demand { .none }
        public func receive(completion: Subscribers.Completion<Failure>) {}
        public func cancel() {}
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func sink(
        receiveCompletion: @escaping ((Subscribers.Completion<Failure>) -> Void), receiveValue: @escaping ((Output) -> Void)
    ) -> AnyCancellable { AnyCancellable {} }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher where Failure == Never {
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable { AnyCancellable {} }
}

// MARK: - Publishers/Publishers.swift, Publishers.ReceiveOn.swift
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Publishers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func receive<Context: Scheduler>(on scheduler: Context, options: Context.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, Context> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publishers {
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let scheduler: Context
        public let options: Context.SchedulerOptions?
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }
        public func receive<Downstream: Subscriber>(subscriber: Downstream)
        where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {}
    }
}

// MARK: - DispatchQueue as a Scheduler. On Apple platforms Combine declares this conformance
// itself (Combine's interface: `extension DispatchQueue: Combine.Scheduler`, with
// `DispatchQueue.SchedulerTimeType` and `.SchedulerOptions`); OpenCombineDispatch's
// DispatchQueue+Scheduler.swift copies the shapes on a wrapper, used here on the queue itself.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension DispatchQueue: Scheduler {
    public struct SchedulerTimeType: Strideable, Codable, Hashable {
        public var dispatchTime: DispatchTime { .now() }
        public init(_ time: DispatchTime) {}
        public func distance(to other: SchedulerTimeType) -> Stride { Stride(0) }
        public func advanced(by n: Stride) -> SchedulerTimeType { self }
        public init(from decoder: any Decoder) throws {}
        public func encode(to encoder: any Encoder) throws {}
        public static func == (lhs: Self, rhs: Self) -> Bool { true }
        public func hash(into hasher: inout Hasher) {}

        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable, Codable {
            public typealias FloatLiteralType = Double
            public typealias IntegerLiteralType = Int
            public typealias Magnitude = Int
            public var magnitude: Int { 0 }
            public init(_ nanoseconds: Int) {}
            public init(floatLiteral value: Double) {}
            public init(integerLiteral value: Int) {}
            public init?<T: BinaryInteger>(exactly source: T) {}
            public static func < (lhs: Stride, rhs: Stride) -> Bool { false }
            public static func * (lhs: Stride, rhs: Stride) -> Stride { lhs }
            public static func + (lhs: Stride, rhs: Stride) -> Stride { lhs }
            public static func - (lhs: Stride, rhs: Stride) -> Stride { lhs }
            public static func *= (lhs: inout Stride, rhs: Stride) {}
            public static func += (lhs: inout Stride, rhs: Stride) {}
            public static func -= (lhs: inout Stride, rhs: Stride) {}
            public static func seconds(_ s: Int) -> Stride { Stride(0) }
            public static func seconds(_ s: Double) -> Stride { Stride(0) }
            public static func milliseconds(_ ms: Int) -> Stride { Stride(0) }
            public static func microseconds(_ us: Int) -> Stride { Stride(0) }
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(0) }
        }
    }

    public struct SchedulerOptions {}

    public var now: SchedulerTimeType { SchedulerTimeType(.now()) }
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {}
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void) {}
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable { AnyCancellable {} }
}
