/// The children of an ``XMLTreeNode``, in a class whose `deinit` frees a tree without recursion.
///
/// Nested value types are freed recursively: releasing a node's children array releases each
/// child node, which releases its own children, and so on, one stack frame (or more) per level.
/// A tree 50,000 levels deep then overflows an 8 MB stack, and a few thousand levels overflow the
/// 512 KB stack of a secondary thread on Apple platforms. Here, a storage that is freed takes its
/// descendants apart level by level on a heap-allocated work list instead.
///
/// It is a copy-on-write buffer: ``XMLTreeNode/children`` replaces a shared storage before
/// changing it, so a storage reachable from more than one node is never mutated, which is what
/// makes the `@unchecked Sendable` sound.
final class XMLTreeNodeStorage: @unchecked Sendable {
    var children: [XMLTreeNode.Child]

    init(_ children: [XMLTreeNode.Child]) {
        self.children = children
    }

    deinit {
        guard children.contains(where: \.isElement) else { return }
        var pending = [children]
        children = []
        while var list = pending.popLast() {
            for index in list.indices {
                guard case .element(var node) = list[index] else { continue }
                // Drop the list's reference, so that `node` holds the only one unless the node is
                // also shared elsewhere (then freeing our copy frees nothing, and is shallow).
                list[index] = .text("")
                if isKnownUniquelyReferenced(&node.storage), node.storage.children.contains(where: \.isElement) {
                    pending.append(node.storage.children)
                    node.storage.children = []
                }
                // `node` is released here with no element children: its own deinit returns at once.
            }
        }
    }
}

extension XMLTreeNode.Child {
    /// Whether this child is an element.
    var isElement: Bool {
        if case .element = self { return true }
        return false
    }
}

// Equality and hashing walk the tree with a work list: the synthesized versions would recurse
// once per level.
extension XMLTreeNode {
    /// Whether two elements have the same name, attributes (in order) and children.
    ///
    /// ```swift
    /// XMLTreeNode("a", text: "1") == XMLTreeNode("a", text: "1")   // true
    /// ```
    public static func == (lhs: XMLTreeNode, rhs: XMLTreeNode) -> Bool {
        var pending = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            guard left.name == right.name, left.attributes == right.attributes else { return false }
            if left.storage === right.storage { continue }
            let leftChildren = left.children
            let rightChildren = right.children
            guard leftChildren.count == rightChildren.count else { return false }
            for (leftChild, rightChild) in zip(leftChildren, rightChildren) {
                switch (leftChild, rightChild) {
                case (.element(let leftNode), .element(let rightNode)):
                    pending.append((leftNode, rightNode))
                case (.text(let leftText), .text(let rightText)), (.cdata(let leftText), .cdata(let rightText)):
                    guard leftText == rightText else { return false }
                default:
                    return false
                }
            }
        }
        return true
    }

    /// Hashes the name, attributes and children, consistently with `==`.
    ///
    /// ```swift
    /// let unique = Set([XMLTreeNode("a"), XMLTreeNode("a")])   // one element
    /// ```
    public func hash(into hasher: inout Hasher) {
        var pending = [self]
        while let node = pending.popLast() {
            hasher.combine(node.name)
            hasher.combine(node.attributes)
            let children = node.children
            hasher.combine(children.count)
            for child in children {
                switch child {
                case .element(let element):
                    hasher.combine(0 as UInt8)
                    pending.append(element)
                case .text(let text):
                    hasher.combine(1 as UInt8)
                    hasher.combine(text)
                case .cdata(let text):
                    hasher.combine(2 as UInt8)
                    hasher.combine(text)
                }
            }
        }
    }
}
