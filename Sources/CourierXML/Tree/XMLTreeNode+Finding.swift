extension XMLTreeNode {
    /// The order in which ``XMLTreeNode/descendants(named:order:)`` visits elements.
    ///
    /// ```swift
    /// feed.descendants(named: "title", order: .breadthFirst)
    /// ```
    public enum SearchOrder: Sendable, Hashable {
        /// Document order: an element, then its descendants, then its next sibling (pre-order).
        ///
        /// ```swift
        /// feed.descendants(named: "title", order: .depthFirst)   // in document order
        /// ```
        case depthFirst
        /// Level by level: all children, then all grandchildren, and so on, each level in
        /// document order.
        ///
        /// ```swift
        /// feed.firstDescendant(named: "title", order: .breadthFirst)   // the shallowest first
        /// ```
        case breadthFirst
    }

    /// The child elements whose qualified name is `name`, in document order.
    ///
    /// ```swift
    /// let items = order.children(named: "item")
    /// ```
    /// Names compare exactly (`"soap:Body"` is not `"Body"`); match on ``localName`` with
    /// ``children(where:)``.
    public func children(named name: String) -> [XMLTreeNode] {
        children { $0.name == name }
    }

    /// The child elements for which `predicate` is true, in document order.
    ///
    /// ```swift
    /// let bodies = envelope.children { $0.localName == "Body" }
    /// ```
    public func children(where predicate: (XMLTreeNode) throws -> Bool) rethrows -> [XMLTreeNode] {
        try elements.filter(predicate)
    }

    /// The first child element whose qualified name is `name`.
    ///
    /// ```swift
    /// let total = order.firstChild(named: "total")
    /// ```
    public func firstChild(named name: String) -> XMLTreeNode? {
        firstChild { $0.name == name }
    }

    /// The first child element for which `predicate` is true.
    ///
    /// ```swift
    /// let body = envelope.firstChild { $0.localName == "Body" }
    /// ```
    public func firstChild(where predicate: (XMLTreeNode) throws -> Bool) rethrows -> XMLTreeNode? {
        for child in children {
            if case .element(let node) = child, try predicate(node) { return node }
        }
        return nil
    }

    /// Every descendant element (children, their children, …; not this element) whose qualified
    /// name is `name`.
    ///
    /// ```swift
    /// let titles = feed.descendants(named: "title")                          // document order
    /// let shallowFirst = feed.descendants(named: "title", order: .breadthFirst)
    /// ```
    public func descendants(named name: String, order: SearchOrder = .depthFirst) -> [XMLTreeNode] {
        descendants(order: order) { $0.name == name }
    }

    /// Every descendant element for which `predicate` is true, in `order`.
    ///
    /// ```swift
    /// let priced = catalog.descendants { $0[attribute: "price"] != nil }
    /// ```
    public func descendants(
        order: SearchOrder = .depthFirst,
        where predicate: (XMLTreeNode) throws -> Bool
    ) rethrows -> [XMLTreeNode] {
        var found: [XMLTreeNode] = []
        try visitDescendants(order: order) { node in
            if try predicate(node) { found.append(node) }
            return true
        }
        return found
    }

    /// The first descendant element whose qualified name is `name`, in `order`.
    ///
    /// ```swift
    /// let price = try response.xmlDocument().root.firstDescendant(named: "m:Price")?.value(Decimal.self)
    /// ```
    public func firstDescendant(named name: String, order: SearchOrder = .depthFirst) -> XMLTreeNode? {
        firstDescendant(order: order) { $0.name == name }
    }

    /// The first descendant element for which `predicate` is true, in `order`.
    ///
    /// ```swift
    /// let fault = envelope.firstDescendant { $0.localName == "Fault" }
    /// ```
    public func firstDescendant(
        order: SearchOrder = .depthFirst,
        where predicate: (XMLTreeNode) throws -> Bool
    ) rethrows -> XMLTreeNode? {
        var found: XMLTreeNode?
        try visitDescendants(order: order) { node in
            if try predicate(node) {
                found = node
                return false
            }
            return true
        }
        return found
    }

    /// Visits descendants without recursion (a built tree can be deeper than the stack allows);
    /// `visit` returns `false` to stop.
    private func visitDescendants(order: SearchOrder, _ visit: (XMLTreeNode) throws -> Bool) rethrows {
        switch order {
        case .depthFirst:
            var stack: [XMLTreeNode] = elements.reversed()
            while let node = stack.popLast() {
                guard try visit(node) else { return }
                stack.append(contentsOf: node.elements.reversed())
            }
        case .breadthFirst:
            var level = elements
            while !level.isEmpty {
                var next: [XMLTreeNode] = []
                for node in level {
                    guard try visit(node) else { return }
                    next.append(contentsOf: node.elements)
                }
                level = next
            }
        }
    }
}
