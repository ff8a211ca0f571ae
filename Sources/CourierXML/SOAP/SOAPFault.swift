public import Courier

/// A SOAP fault, from either version, in one shape (``code``, ``subcodes``, ``reasons``,
/// ``role``, ``node``, ``detail``).
///
/// A fault with status 500 fails the call with `CourierError/response(_:)`; a fault in a 200
/// makes ``SOAPBodyDecoder`` throw it. `CourierError/soapFault` finds it either way:
///
/// ```swift
/// do {
///     let price = try await client.enqueue(GetPrice(item: "Apples")).resume(expecting: Price.self)
/// } catch {
///     if let fault = error.soapFault {
///         print(fault.code.localName, fault.reason)   // Client Unknown item
///     }
/// }
/// ```
public struct SOAPFault: Error, Sendable, Equatable {
    // | field | SOAP 1.1 | SOAP 1.2 |
    // | --- | --- | --- |
    // | code | `faultcode` | `Code/Value` |
    // | subcodes | none (dotted 1.1 codes such as `Client.Auth` stay in code) | `Code/Subcode/Value`, outermost first |
    // | reasons | `faultstring` (its `xml:lang`, if any) | every `Reason/Text` with its `xml:lang` |
    // | role | `faultactor` | `Role` |
    // | node | none | `Node` |
    // | detail | `detail` | `Detail` |
    //
    // In a 200 the decoder's fault is kept in DecodingFailure.Reason.decoderError(_:).

    /// A fault code: a qualified name, resolved to its namespace.
    ///
    /// ```swift
    /// let code = SOAPFault.Code("Server", namespace: SOAPVersion.v1_1.namespace)
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The namespace URI of the code's prefix; `nil` when the prefix is not declared (or the
        /// code has no prefix and there is no default namespace).
        ///
        /// ```swift
        /// fault.code.namespace   // "http://schemas.xmlsoap.org/soap/envelope/"
        /// ```
        public var namespace: String?
        /// The local part: `"Server"`, `"Sender"`, `"Client.Authentication"`, …
        ///
        /// ```swift
        /// fault.code.localName   // "Server"
        /// ```
        public var localName: String

        /// Creates a code.
        ///
        /// ```swift
        /// let sender = SOAPFault.Code("Sender", namespace: SOAPVersion.v1_2.namespace)
        /// ```
        public init(_ localName: String, namespace: String? = nil) {
            self.localName = localName
            self.namespace = namespace
        }

        /// `{namespace}localName` (James Clark notation), or the local name alone.
        ///
        /// ```swift
        /// print(fault.code)   // {http://schemas.xmlsoap.org/soap/envelope/}Server
        /// ```
        public var description: String {
            namespace.map { "{\($0)}\(localName)" } ?? localName
        }
    }

    /// A human-readable explanation, with its language.
    ///
    /// ```swift
    /// let text = SOAPFault.Text("Unknown item", language: "en")
    /// ```
    public struct Text: Sendable, Hashable {
        /// The explanation.
        ///
        /// ```swift
        /// fault.reasons.first?.text   // "Unknown item"
        /// ```
        public var text: String
        /// The `xml:lang` it was given in, if any.
        ///
        /// ```swift
        /// fault.reasons.map(\.language)   // [Optional("en"), Optional("fr")]
        /// ```
        public var language: String?

        /// Creates a reason text.
        ///
        /// ```swift
        /// let text = SOAPFault.Text("Article inconnu", language: "fr")
        /// ```
        public init(_ text: String, language: String? = nil) {
            self.text = text
            self.language = language
        }
    }

    /// The standard fault codes, the same for both versions.
    ///
    /// ```swift
    /// if fault.category == .sender { /* fix the request; do not retry as is */ }
    /// ```
    public enum Category: Sendable, Hashable {
        /// The envelope's namespace was not understood (`VersionMismatch`).
        ///
        /// ```swift
        /// if fault.category == .versionMismatch { /* resend as the other SOAP version */ }
        /// ```
        case versionMismatch
        /// A mandatory header was not understood (`MustUnderstand`).
        ///
        /// ```swift
        /// if fault.category == .mustUnderstand { /* drop the unsupported header */ }
        /// ```
        case mustUnderstand
        /// SOAP 1.2 only: an unsupported encoding style (`DataEncodingUnknown`).
        ///
        /// ```swift
        /// if fault.category == .dataEncodingUnknown { /* use literal encoding */ }
        /// ```
        case dataEncodingUnknown
        /// The request was at fault: SOAP 1.1 `Client` (and `Client.…`), SOAP 1.2 `Sender`.
        ///
        /// ```swift
        /// if fault.category == .sender { /* fix the request */ }
        /// ```
        case sender
        /// The server failed: SOAP 1.1 `Server` (and `Server.…`), SOAP 1.2 `Receiver`.
        ///
        /// ```swift
        /// if fault.category == .receiver { /* retry later */ }
        /// ```
        case receiver
    }

    /// The SOAP version of the message the fault came in.
    ///
    /// ```swift
    /// fault.version   // .v1_2
    /// ```
    public var version: SOAPVersion
    /// The fault code (1.1 `faultcode`, 1.2 `Code/Value`).
    ///
    /// ```swift
    /// fault.code.localName   // "Sender"
    /// ```
    public var code: Code
    /// SOAP 1.2 subcodes, outermost first; empty for SOAP 1.1.
    ///
    /// ```swift
    /// fault.subcodes.map(\.localName)   // ["BadItem"]
    /// ```
    public var subcodes: [Code]
    /// The explanations (1.1 one `faultstring`; 1.2 every `Reason/Text`).
    ///
    /// ```swift
    /// fault.reasons.map(\.text)   // ["Unknown item", "Article inconnu"]
    /// ```
    public var reasons: [Text]
    /// Who caused the fault: 1.1 `faultactor`, 1.2 `Role`.
    ///
    /// ```swift
    /// fault.role   // "urn:gateway"
    /// ```
    public var role: String?
    /// SOAP 1.2 `Node`: the node that generated the fault.
    ///
    /// ```swift
    /// fault.node   // "urn:node"
    /// ```
    public var node: String?
    /// The `detail` (1.1) or `Detail` (1.2) element, whose children are application-specific.
    ///
    /// ```swift
    /// let code = try fault.detail?.firstDescendant(named: "e:Code")?.value(Int.self)
    /// ```
    public var detail: XMLTreeNode?

    /// Creates a fault.
    ///
    /// ```swift
    /// let fault = SOAPFault(version: .v1_2, code: SOAPFault.Code("Sender", namespace: SOAPVersion.v1_2.namespace),
    ///                       reasons: [SOAPFault.Text("Unknown item", language: "en")])
    /// ```
    public init(
        version: SOAPVersion, code: Code, subcodes: [Code] = [], reasons: [Text] = [],
        role: String? = nil, node: String? = nil, detail: XMLTreeNode? = nil
    ) {
        self.version = version
        self.code = code
        self.subcodes = subcodes
        self.reasons = reasons
        self.role = role
        self.node = node
        self.detail = detail
    }

    /// The first explanation's text, `""` when there is none.
    ///
    /// ```swift
    /// print(fault.reason)   // "Unknown item"
    /// ```
    public var reason: String {
        reasons.first?.text ?? ""
    }

    /// The explanation in `language` (compared case-insensitively, `"en"` also matching
    /// `"en-GB"`), else ``reason``.
    ///
    /// ```swift
    /// fault.reason(preferring: "fr")   // "Article inconnu"
    /// ```
    public func reason(preferring language: String) -> String {
        let wanted = language.lowercased()
        let match = reasons.first { text in
            guard let tag = text.language?.lowercased() else { return false }
            return tag == wanted || tag.hasPrefix(wanted + "-")
        }
        return match?.text ?? reason
    }

    /// The standard code this fault carries, if its code is one of them (in the envelope's namespace).
    ///
    /// ```swift
    /// fault.category   // .receiver for a 1.1 "soap:Server" or a 1.2 "env:Receiver"
    /// ```
    public var category: Category? {
        guard code.namespace == version.namespace else { return nil }
        let base = version == .v1_1 ? String(code.localName.prefix { $0 != "." }) : code.localName
        switch (version, base) {
        case (_, "VersionMismatch"): return .versionMismatch
        case (_, "MustUnderstand"): return .mustUnderstand
        case (.v1_2, "DataEncodingUnknown"): return .dataEncodingUnknown
        case (.v1_1, "Client"), (.v1_2, "Sender"): return .sender
        case (.v1_1, "Server"), (.v1_2, "Receiver"): return .receiver
        default: return nil
        }
    }
}

extension SOAPFault: CustomStringConvertible {
    /// `SOAP fault Server: reason`, with subcodes; never the detail.
    ///
    /// ```swift
    /// print(fault)   // SOAP fault Server: Out of pears
    /// ```
    public var description: String {
        let codes = ([code] + subcodes).map(\.localName).joined(separator: " / ")
        return "SOAP fault \(codes): \(reason)"
    }
}

extension Response {
    /// The SOAP fault this response carries, when its body is a SOAP 1.1 or 1.2 envelope whose
    /// `Body` holds a `Fault`, and its `Content-Type` is XML (or absent); otherwise `nil`.
    ///
    /// ```swift
    /// do {
    ///     _ = try await client.enqueue(GetPrice(item: "Pears")).resume(expecting: Price.self)
    /// } catch .response(let response) {
    ///     if let fault = response.soapFault { print(fault.code.localName, fault.reason) }   // Server Out of pears
    /// }
    /// ```
    public var soapFault: SOAPFault? {
        if let mediaType = head.mediaType, !XMLBodyDecoder.isXML(mediaType) { return nil }
        guard let document = try? XMLTreeDocument(data: body, charset: head.charset) else { return nil }
        return try? SOAPMessage(document).fault
    }
}

extension CourierError {
    /// The SOAP fault behind this error: from a rejected response (`CourierError/response(_:)`,
    /// usually a 500), or thrown by ``SOAPBodyDecoder`` for a fault in an accepted one
    /// (`CourierError/decoding(_:)`). `nil` for any other error.
    ///
    /// ```swift
    /// do {
    ///     _ = try await client.enqueue(GetQuote(symbol: "ACME")).resume()
    /// } catch {
    ///     if let fault = error.soapFault { show(fault.reason) }
    /// }
    /// ```
    public var soapFault: SOAPFault? {
        if case .decoding(let failure) = self, case .decoderError(let error) = failure.reason,
            let fault = error as? SOAPFault
        {
            return fault
        }
        return response?.soapFault
    }
}
