package import Foundation

extension Duration {
    /// The duration in (fractional) seconds, as a Foundation `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }

    /// The longest wait Courier hands to Dispatch, SwiftNIO or URLSession: about 95 years. A
    /// longer one is this one (nobody waits longer), and converting it can then never overflow:
    /// `idleTimeout: .seconds(10_000_000_000)` trapped converting to NIO's `TimeAmount`.
    package static let longestWait: Duration = .seconds(3_000_000_000)

    /// Whole nanoseconds, clamped to `0...longestWait`: negative durations are zero.
    var boundedNanoseconds: Int64 {
        guard self > .zero else { return 0 }
        guard self < Self.longestWait else { return 3_000_000_000 * 1_000_000_000 }
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Seconds, clamped to `0...longestWait`, for APIs that take a `TimeInterval`.
    var boundedTimeInterval: TimeInterval {
        Swift.min(Swift.max(timeInterval, 0), Self.longestWait.timeInterval)
    }
}

extension DispatchTime {
    /// `duration` after this time, clamped to `0...Duration.longestWait`: never trapping and never
    /// wrapping into Dispatch's wall-clock or "forever" encodings.
    func advanced(byBounded duration: Duration) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: uptimeNanoseconds + UInt64(duration.boundedNanoseconds))
    }
}
