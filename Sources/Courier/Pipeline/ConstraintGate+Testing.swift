// What the package's tests observe of a constraint's gate.

extension ConstraintGate {
    /// Ids handed out and not registered yet (0 when no caller is on its way in).
    var unregisteredCount: Int { flight.unregisteredCount }
}
