/// What XMLCoder will spend joining the pieces of text `XMLParser` reports, counted while
/// CourierXML checks a document, so that a document it would take seconds to join is refused
/// instead.
///
/// `XMLParser` reports an element's text in pieces: one at every entity or character reference
/// (`&amp;`, `&#233;`), after every CR, every few hundred non-ASCII characters. XMLCoder's
/// `XMLStackParser` joins each piece to the text so far with `old + piece`, copying it all every
/// time: quadratic. CourierXML cannot change XMLCoder, but it sees the same pieces (the same
/// `XMLParser`, given the same bytes), so it adds up the characters each join would copy and
/// stops past ``budget``.
struct XMLCoderTextJoining {
    /// Characters (UTF-8 bytes) XMLCoder may copy joining one run of text: 2^33, about a quarter
    /// of a second in a release build. Text reported in one piece costs its length once, so only
    /// text in many pieces comes near it, and the time XMLCoder can be made to spend grows
    /// linearly with the size of the document, not with its square.
    static let budget = 1 << 33

    /// One run of text being joined: its length so far and what joining it has cost.
    private var runs: [(length: Int, cost: Int)] = [(0, 0)]

    /// An element starts: its text is a run of its own.
    mutating func startElement() {
        runs.append((0, 0))
    }

    /// An element ends: XMLCoder appends it to its parent, so the parent's next text starts a
    /// new run.
    mutating func endElement() {
        if runs.count > 1 { runs.removeLast() }
        runs[runs.count - 1] = (0, 0)
    }

    /// A piece of `length` bytes is added to the current run; `false` once the run costs more
    /// than the budget.
    mutating func add(_ length: Int) -> Bool {
        let last = runs.count - 1
        runs[last].length += length
        runs[last].cost += runs[last].length
        return runs[last].cost <= Self.budget
    }
}
