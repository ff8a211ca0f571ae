extension Pipeline {
    /// The names of the stages that apply to `call`, outermost first.
    func stageNames(for call: StageCall) -> [String] {
        stages.filter { $0.applies(to: call) }.map(\.name)
    }
}
