import Foundation
import Testing

@testable import Courier

/// Every `Duration` Courier converts for SwiftNIO, Dispatch or Foundation is clamped to
/// `0...Duration.longestWait` (about 95 years), so that no conversion overflows (issue 22, item 11).
@Suite("Duration conversions saturate")
struct DurationBoundsTests {
    static let durations: [Duration] = [
        .seconds(10_000_000_000), .seconds(Int64.max), .seconds(Int64.min), .milliseconds(Int64.max), .nanoseconds(Int64.max),
        .seconds(-1), .zero, .seconds(1), .milliseconds(1_500), Duration.longestWait, Duration.longestWait + .nanoseconds(1),
    ]

    @Test("nanoseconds, seconds and Dispatch deadlines stay within 0 and the longest wait", arguments: durations)
    func bounded(_ duration: Duration) {
        let limit: Int64 = 3_000_000_000 * 1_000_000_000
        let expected: Int64 =
            duration <= .zero ? 0 : duration >= Duration.longestWait ? limit : Int64(duration.components.seconds) * 1_000_000_000
        if duration.components.attoseconds == 0 || duration <= .zero || duration >= Duration.longestWait {
            #expect(duration.boundedNanoseconds == expected)
        }
        #expect((0...limit).contains(duration.boundedNanoseconds))
        #expect((0...Duration.longestWait.timeInterval).contains(duration.boundedTimeInterval))
        let now = DispatchTime.now()
        let deadline = now.advanced(byBounded: duration)
        #expect(deadline >= now)
        #expect(deadline.uptimeNanoseconds - now.uptimeNanoseconds == UInt64(duration.boundedNanoseconds))
        // The reconnection delay of an event stream (a cap, jitter and doubling on top).
        let options = EventSource.Options(defaultReconnectionDelay: duration, maximumReconnectionDelay: duration, jitter: 1)
        var random = SystemRandomNumberGenerator()
        #expect(options.reconnectionDelay(serverRetry: duration, failures: 70, random: &random) >= .zero)
    }
}
