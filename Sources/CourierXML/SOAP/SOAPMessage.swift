/// The namespace bindings in scope at an element, built by walking down from the root.
struct NamespaceScope {
    /// Prefix to URI; `""` is the default namespace.
    private var bindings: [String: String] = ["xml": "http://www.w3.org/XML/1998/namespace"]

    /// The scope inside `node`: this scope plus the `xmlns` attributes of `node`.
    func entering(_ node: XMLTreeNode) -> NamespaceScope {
        var scope = self
        for attribute in node.attributes {
            if attribute.name == "xmlns" {
                scope.bindings[""] = attribute.value
            } else if attribute.name.hasPrefix("xmlns:") {
                scope.bindings[String(attribute.name.dropFirst(6))] = attribute.value
            }
        }
        return scope
    }

    /// The URI bound to `prefix` (`nil`: the default namespace); `nil` when unbound (an empty
    /// default namespace is no namespace).
    func uri(forPrefix prefix: String?) -> String? {
        let uri = bindings[prefix ?? ""]
        return uri?.isEmpty == true ? nil : uri
    }

    /// The namespace of an element in this scope (the scope must include the element itself).
    func namespace(of node: XMLTreeNode) -> String? {
        uri(forPrefix: node.prefix)
    }

    /// A QName written as text (`soap:Server`), resolved; an unprefixed one takes the default
    /// namespace, as XML Schema's QName type does.
    func resolve(qualifiedName text: String) -> SOAPFault.Code {
        let trimmed = XMLTreeNode.trimmingXMLWhitespace(text)
        guard let colon = trimmed.firstIndex(of: ":") else {
            return SOAPFault.Code(trimmed, namespace: uri(forPrefix: nil))
        }
        return SOAPFault.Code(
            String(trimmed[trimmed.index(after: colon)...]),
            namespace: uri(forPrefix: String(trimmed[..<colon])))
    }

    /// `node` with every binding of this scope that it does not declare itself added as an
    /// `xmlns` attribute, so that it can be read on its own.
    func declaringAll(on node: XMLTreeNode) -> XMLTreeNode {
        var node = node
        for (prefix, uri) in bindings.sorted(by: { $0.key < $1.key }) where prefix != "xml" {
            let name = prefix.isEmpty ? "xmlns" : "xmlns:\(prefix)"
            if node[attribute: name] == nil {
                node.attributes.append(XMLTreeNode.Attribute(name: name, value: uri))
            }
        }
        return node
    }
}

/// A SOAP 1.1 or 1.2 message read from a document: its version, body entries and fault.
struct SOAPMessage {
    var version: SOAPVersion
    /// The elements inside `Body`, each with the scope that applies inside it.
    var bodyEntries: [(node: XMLTreeNode, scope: NamespaceScope)]
    /// The `Fault`, when the first body entry is one.
    var fault: SOAPFault?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// - Throws: `DecodingError.dataCorrupted` when the root is not a SOAP `Envelope`;
    ///   `DecodingError.keyNotFound` when it has no `Body`.
    init(_ document: XMLTreeDocument) throws(DecodingError) {
        let root = document.root
        let rootScope = NamespaceScope().entering(root)
        let namespace = rootScope.namespace(of: root)
        guard root.localName == "Envelope", let namespace, let version = SOAPVersion(namespace: namespace) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "not a SOAP envelope: the root element is <\(root.name)> in namespace \(namespace ?? "none")"))
        }
        self.version = version
        let bodyWithScope = root.elements.lazy
            .map { (node: $0, scope: rootScope.entering($0)) }
            .first { $0.node.localName == "Body" && $0.scope.namespace(of: $0.node) == namespace }
        guard let body = bodyWithScope else {
            throw DecodingError.keyNotFound(
                Key("Body"),
                DecodingError.Context(
                    codingPath: [Key("Envelope")], debugDescription: "the SOAP envelope has no Body"))
        }
        bodyEntries = body.node.elements.map { (node: $0, scope: body.scope.entering($0)) }
        if let first = bodyEntries.first, first.node.localName == "Fault", first.scope.namespace(of: first.node) == namespace {
            fault = Self.fault(first.node, scope: first.scope, version: version)
        }
    }

    /// Reads a `Fault` element of either version. Children are matched by local name: SOAP 1.1
    /// fault children are unqualified, SOAP 1.2 ones are in the envelope namespace.
    private static func fault(_ element: XMLTreeNode, scope: NamespaceScope, version: SOAPVersion) -> SOAPFault {
        func child(_ parent: XMLTreeNode, _ localName: String) -> XMLTreeNode? {
            parent.firstChild { $0.localName == localName }
        }
        func text(_ node: XMLTreeNode?) -> String? {
            node.map(\.trimmedText)
        }
        switch version {
        case .v1_1:
            let codeElement = child(element, "faultcode")
            let code = codeElement.map { scope.entering($0).resolve(qualifiedName: $0.text) } ?? SOAPFault.Code("")
            let reason = child(element, "faultstring").map { SOAPFault.Text($0.trimmedText, language: $0[attribute: "xml:lang"]) }
            return SOAPFault(
                version: version, code: code, reasons: reason.map { [$0] } ?? [],
                role: text(child(element, "faultactor")), detail: child(element, "detail"))
        case .v1_2:
            var codes: [SOAPFault.Code] = []
            var level = child(element, "Code")
            var levelScope = level.map(scope.entering)
            while let current = level, let currentScope = levelScope {
                if let value = child(current, "Value") {
                    codes.append(currentScope.entering(value).resolve(qualifiedName: value.text))
                }
                level = child(current, "Subcode")
                levelScope = level.map(currentScope.entering)
            }
            let reasons =
                child(element, "Reason").map { reason in
                    reason.children { $0.localName == "Text" }.map { SOAPFault.Text($0.trimmedText, language: $0[attribute: "xml:lang"]) }
                } ?? []
            return SOAPFault(
                version: version, code: codes.first ?? SOAPFault.Code(""), subcodes: Array(codes.dropFirst()),
                reasons: reasons, role: text(child(element, "Role")), node: text(child(element, "Node")),
                detail: child(element, "Detail"))
        }
    }
}
