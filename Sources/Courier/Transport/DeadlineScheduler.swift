import Dispatch
import Foundation

/// Something with a deadline: a request in flight, or the body of a response being read.
protocol DeadlineExpiring: AnyObject, Sendable {
    /// Called once, when the deadline passes.
    func timeOut()
}

/// One timer for the deadlines of every exchange in flight.
///
/// A timer source per request would cost a kernel timer and context switches per request. Here
/// the single timer is armed for the earliest deadline only: adding a deadline later than the
/// armed one (the steady state, where every request has the same timeout) touches no timer at all,
/// and a completed exchange just leaves the table. When the timer fires it times out whatever
/// has expired and re-arms for the earliest deadline left, so deadlines stay exact.
///
/// `@unchecked Sendable` because `entries` and `armed` are shared between callers' tasks, the
/// delegate queue and the timer's queue; every access goes through `lock`.
final class DeadlineScheduler: @unchecked Sendable {
    static let shared = DeadlineScheduler()

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: (deadline: DispatchTime, exchange: any DeadlineExpiring)] = [:]
    private var armed: DispatchTime?
    private let timer: any DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    func add(_ exchange: any DeadlineExpiring, at deadline: DispatchTime) {
        lock.lock()
        entries[ObjectIdentifier(exchange)] = (deadline, exchange)
        if armed.map({ deadline < $0 }) ?? true {
            armed = deadline
            timer.schedule(deadline: deadline)
        }
        lock.unlock()
    }

    func remove(_ exchange: any DeadlineExpiring) {
        lock.lock()
        entries[ObjectIdentifier(exchange)] = nil
        lock.unlock()
    }

    private func fire() {
        let now = DispatchTime.now()
        var expired: [any DeadlineExpiring] = []
        lock.lock()
        var next: DispatchTime?
        for (key, entry) in entries {
            if entry.deadline <= now {
                expired.append(entry.exchange)
                entries[key] = nil
            } else if next.map({ entry.deadline < $0 }) ?? true {
                next = entry.deadline
            }
        }
        armed = next
        timer.schedule(deadline: next ?? .distantFuture)
        lock.unlock()
        for exchange in expired {
            exchange.timeOut()
        }
    }
}
