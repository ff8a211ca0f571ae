package import Foundation

/// A clock that also tells the date: when `Configuration.clock` is one, the retry stage reads a
/// `Retry-After` HTTP-date against its `date` instead of the system's.
///
/// A `Retry-After` date is a moment, and the retry waits on `Configuration.clock` until then:
/// both readings must come from one clock. With the system's `Date()` beside a clock the test
/// moves, a test could not say what delay a date means (it was the date minus whatever wall time
/// had passed). CourierTesting's `TestClock` is one: its date moves when the test moves it.
package protocol DateTellingClock: Sendable {
    /// The date at the clock's current instant.
    var date: Date { get }
}
