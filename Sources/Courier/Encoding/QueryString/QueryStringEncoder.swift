/// Writes flat ``QueryItem``s and nested ``QueryParameters`` as a query string (or a form
/// body), following ``QueryStringFormattingOptions``.
///
/// The output is byte-for-byte deterministic: flat items keep their order and come first,
/// then the nested parameters with dictionary keys sorted (plain `String` `<`) at every level;
/// array elements keep their order. Brackets in generated names are always `%5B` and `%5D`.
struct QueryStringEncoder {
    let options: QueryStringFormattingOptions
    /// For each ASCII byte, whether it is written as it is (space and `+` aside).
    private let kept: [Bool]

    init(options: QueryStringFormattingOptions) {
        self.options = options
        var kept = (0..<128).map { PercentEncoding.isUnreserved(UInt8($0)) }
        for character in QueryStringFormattingOptions.reservedCharacters
        where !options.percentEncodedReservedCharacterSet.contains(character) {
            if let byte = character.asciiValue { kept[Int(byte)] = true }
        }
        self.kept = kept
    }

    private static let openBracket = "%5B"
    private static let closeBracket = "%5D"

    /// `name=value&…` without a leading `?`; empty when there is nothing to write.
    /// - Throws: ``InvalidRequest/encodingFailed(_:underlyingError:)`` naming the parameter (never its value)
    ///   when a number is NaN or infinite.
    func encode(items: [QueryItem], parameters: QueryParameters?) throws(CourierError) -> String {
        var pairs: [String] = []
        for item in items {
            let name = escape(item.name)
            pairs.append(item.value.map { name + "=" + escape($0) } ?? name)
        }
        if let parameters {
            for (key, value) in parameters.values.sorted(by: { $0.key < $1.key }) {
                try append(value, name: escape(key), to: &pairs)
            }
        }
        return pairs.joined(separator: "&")
    }

    /// Writes `value` under the already-escaped `name`.
    private func append(_ value: QueryValue, name: String, to pairs: inout [String]) throws(CourierError) {
        switch value {
        case .null:
            pairs.append(name)
        case .array(let elements):
            try appendArray(elements, name: name, to: &pairs)
        case .dictionary(let children):
            for (key, child) in children.sorted(by: { $0.key < $1.key }) {
                let childName =
                    switch options.dictionaryFormat {
                    case .subscripted: name + Self.openBracket + escape(key) + Self.closeBracket
                    case .dotNotated: name + "." + escape(key)
                    }
                try append(child, name: childName, to: &pairs)
            }
        case .string, .integer, .double, .decimal, .bool:
            pairs.append(name + "=" + escape(try scalarText(value, name: name)))
        }
    }

    private func appendArray(_ elements: [QueryValue], name: String, to pairs: inout [String]) throws(CourierError) {
        switch options.arrayFormat {
        case .indexed:
            try appendIndexed(elements, name: name, to: &pairs)
        case .bracketed:
            for element in elements {
                try append(element, name: name + Self.openBracket + Self.closeBracket, to: &pairs)
            }
        case .duplicatedKeys:
            for (index, element) in elements.enumerated() {
                let elementName = element.isContainer ? Self.indexed(name, index) : name
                try append(element, name: elementName, to: &pairs)
            }
        case .commaSeparated:
            guard !elements.isEmpty else { return }
            guard !elements.contains(where: \.isContainer) else {
                try appendIndexed(elements, name: name, to: &pairs)
                return
            }
            var texts: [String] = []
            texts.reserveCapacity(elements.count)
            for element in elements {
                texts.append(element == .null ? "" : escape(try scalarText(element, name: name), isListElement: true))
            }
            pairs.append(name + "=" + texts.joined(separator: ","))
        }
    }

    private func appendIndexed(_ elements: [QueryValue], name: String, to pairs: inout [String]) throws(CourierError) {
        for (index, element) in elements.enumerated() {
            try append(element, name: Self.indexed(name, index), to: &pairs)
        }
    }

    private static func indexed(_ name: String, _ index: Int) -> String {
        name + openBracket + String(index) + closeBracket
    }

    /// The text of a scalar: integers in decimal, doubles as their shortest round-trip
    /// description, decimals by `description`, bools as `true`/`false`.
    private func scalarText(_ value: QueryValue, name: String) throws(CourierError) -> String {
        switch value {
        case .string(let string):
            return string
        case .integer(let integer):
            return String(integer)
        case .double(let double):
            guard double.isFinite else { throw Self.notFinite(name) }
            return double.description
        case .decimal(let decimal):
            guard !decimal.isNaN else { throw Self.notFinite(name) }
            return decimal.description
        case .bool(let bool):
            return bool ? "true" : "false"
        case .null, .array, .dictionary:
            return ""
        }
    }

    private static func notFinite(_ escapedName: String) -> CourierError {
        let name = PercentEncoding.decodeBytes(escapedName).map { String(decoding: $0, as: UTF8.self) } ?? escapedName
        return .invalidRequest(
            .encodingFailed(
                "the query parameter \(name.debugDescription) is a NaN or infinite number, which cannot be written"
            ))
    }

    /// Percent-encodes a name, a key or a value: space and `+` by their rules, kept bytes as
    /// they are, every other byte as `%XX`. In a comma-separated list element `,` is always
    /// encoded, so the separators stay unambiguous.
    func escape(_ string: String, isListElement: Bool = false) -> String {
        let space: String =
            switch options.spaceEncodingRule {
            case .encoded: "%20"
            case .replacedWithDecodedPlus: "+"
            }
        let plus: String =
            switch options.plusSymbolEncodingRule {
            case .replacedWithEncodedPlus: "%2B"
            case .replacedWithEncodedSpace: "%20"
            case .decoded: "+"
            }
        let keep: (UInt8) -> Bool = { [kept] byte in
            byte < 128 && kept[Int(byte)] && !(isListElement && byte == UInt8(ascii: ","))
        }
        // Space and `+` are ASCII, so splitting the UTF-8 bytes around them never splits a
        // multi-byte character.
        let utf8 = string.utf8
        var result = ""
        var runStart = utf8.startIndex
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "+") else { continue }
            result += PercentEncoding.encode(String(decoding: utf8[runStart..<index], as: UTF8.self), keeping: keep)
            result += byte == UInt8(ascii: " ") ? space : plus
            runStart = utf8.index(after: index)
        }
        if runStart == utf8.startIndex { return PercentEncoding.encode(string, keeping: keep) }
        result += PercentEncoding.encode(String(decoding: utf8[runStart...], as: UTF8.self), keeping: keep)
        return result
    }
}

extension QueryValue {
    /// Whether this is an array or a dictionary.
    var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        default: false
        }
    }
}
