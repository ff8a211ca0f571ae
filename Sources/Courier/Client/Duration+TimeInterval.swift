import Foundation

extension Duration {
    /// The duration in (fractional) seconds, as a Foundation `TimeInterval`.
    var timeInterval: TimeInterval {
        let (whole, attoseconds) = components
        return TimeInterval(whole) + TimeInterval(attoseconds) / 1e18
    }
}
