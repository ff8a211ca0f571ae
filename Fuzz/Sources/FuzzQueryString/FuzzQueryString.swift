import Foundation
import FuzzSupport

// The query-string encoder (`QueryStringEncoder`, used for URLs and form bodies) as a round trip.
//
// The bytes describe formatting options, flat `QueryItem`s and nested `QueryParameters` (strings
// with any UTF-8, integers, doubles including NaN and infinities, decimals, bools, nulls, arrays
// and dictionaries up to 4 levels deep). The encoder's output is then read back by the small,
// independent decoder below (split at "&", at the first "=", at "," for comma-separated lists,
// then percent-decode) and compared with what a reference flattening of the input says each
// pair must be.
//
// Invariants: encoding fails (with `encodingFailed`) exactly when a number is NaN or infinite;
// otherwise the output decodes to exactly the expected pairs, in order; it holds only unreserved
// characters, "%XX" escapes with upper-case hex, the separators "&", "=" (at most one per pair)
// and "," (between list elements), the reserved characters the options leave alone, and "+"
// only where the options write it; "#", "[", "]", space, control and non-ASCII bytes never appear
// raw; and it makes a valid URL whose query is the output unchanged.
@testable import Courier

private typealias Options = QueryStringFormattingOptions

/// The process's entry point: SwiftPM names it `FuzzQueryString_main` (see `runLibFuzzer`).
@_cdecl("FuzzQueryString_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let options = readOptions(&reader)
    let items = (0..<reader.choice(4)).map { _ in
        QueryItem(name: reader.string(maximumLength: 24), value: reader.bool() ? reader.string(maximumLength: 24) : nil)
    }
    var values: [String: QueryValue] = [:]
    for _ in 0..<reader.choice(5) {
        values[reader.string(maximumLength: 12)] = readValue(&reader, depth: 0)
    }
    let parameters = reader.bool() ? QueryParameters(values) : nil

    let expectsFailure = parameters.map { $0.values.values.contains(where: hasNonFiniteNumber) } ?? false
    let query: String
    do {
        query = try QueryStringEncoder(options: options).encode(items: items, parameters: parameters)
    } catch {
        guard case .invalidRequest(.encodingFailed) = error else {
            check(false, "encoding threw \(error)")
            return 0
        }
        check(expectsFailure, "encoding failed without a NaN or infinite number")
        return 0
    }
    check(!expectsFailure, "a NaN or infinite number was written")

    let model = Model(options: options)
    var expected = items.map { item in
        Pair(name: model.text(item.name), value: item.value.map { .text(model.text($0)) } ?? .bare)
    }
    for (key, value) in (parameters?.values ?? [:]).sorted(by: { $0.key < $1.key }) {
        model.flatten(value, name: model.text(key), into: &expected)
    }

    checkCharacters(query, options: options)
    // Nothing to write is an empty query; otherwise every pair is there, even a bare empty name
    // (which makes an empty pair: "" alone, or "&" for two).
    let rawPairs = query.split(separator: "&", omittingEmptySubsequences: false)
    if expected.isEmpty {
        check(query.isEmpty, "\(query) written for nothing")
        return 0
    }
    check(rawPairs.count == expected.count, "\(rawPairs.count) pairs written, \(expected.count) expected")
    let commaEncoded = options.percentEncodedReservedCharacterSet.contains(",")
    for (raw, pair) in zip(rawPairs, expected) {
        let parts = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        // A "," the options encode may appear raw only between the elements of a list.
        if commaEncoded {
            if case .list = pair.value {
                check(!parts[0].contains(","), "a raw \",\" in the name \(parts[0])")
            } else {
                check(!raw.contains(","), "a raw \",\" in \(raw)")
            }
        }
        check(!parts[0].isEmpty || pair.name.isEmpty, "an empty name")
        check(model.decode(parts[0]) == Array(pair.name.utf8), "name \(parts[0]) does not decode to \(pair.name.debugDescription)")
        switch pair.value {
        case .bare:
            check(parts.count == 1, "a null or nil value was written with \"=\"")
        case .text(let text):
            check(parts.count == 2 && !parts[1].contains("="), "pair \(raw) is not name=value")
            check(model.decode(parts[1]) == Array(text.utf8), "value \(parts[1]) does not decode to \(text.debugDescription)")
        case .list(let elements):
            check(parts.count == 2 && !parts[1].contains("="), "pair \(raw) is not name=list")
            let written = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            check(
                written.map { model.decode($0) } == elements.map { Array($0.utf8) },
                "list \(parts[1]) does not decode to \(elements)")
        }
    }
    let url = URL(string: "https://fuzz.example/search" + (query.isEmpty ? "" : "?" + query))
    check(url != nil, "the query does not make a valid URL")
    if !query.isEmpty {
        check(url?.query(percentEncoded: true) == query, "the URL changed the query")
    }
    return 0
}

private func readOptions(_ reader: inout FuzzReader) -> Options {
    let arrayFormats: [Options.ArrayFormat] = [.indexed, .bracketed, .duplicatedKeys, .commaSeparated]
    let spaceRules: [Options.SpaceEncodingRule] = [.encoded, .replacedWithDecodedPlus]
    let plusRules: [Options.PlusSymbolEncodingRule] = [.replacedWithEncodedPlus, .replacedWithEncodedSpace, .decoded]
    var options = Options(
        arrayFormat: arrayFormats[reader.choice(4)],
        dictionaryFormat: reader.bool() ? .subscripted : .dotNotated,
        spaceEncodingRule: spaceRules[reader.choice(2)],
        plusSymbolEncodingRule: plusRules[reader.choice(3)]
    )
    // The 12 reserved characters, plus characters the documentation says are ignored in the set.
    let candidates: [Character] = Array("!*'();:@$,/?") + ["&", "=", "a", "%", "+", " ", "é"]
    let mask = UInt32(reader.byte()) << 16 | UInt32(reader.byte()) << 8 | UInt32(reader.byte())
    options.percentEncodedReservedCharacterSet = Set(candidates.indices.filter { mask >> $0 & 1 == 1 }.map { candidates[$0] })
    return options
}

private func readValue(_ reader: inout FuzzReader, depth: Int) -> QueryValue {
    switch reader.choice(depth >= 3 ? 6 : 8) {
    case 0: return .string(reader.string(maximumLength: 24))
    case 1: return .integer(Int64(bitPattern: reader.uint64()))
    case 2: return .double(Double(bitPattern: reader.uint64()))
    case 3:
        let decimals: [Decimal] = [
            Decimal(Int64(bitPattern: reader.uint64())) / 1000, .nan, Decimal(string: "0.1") ?? 0,
            Decimal.greatestFiniteMagnitude, -Decimal.leastNonzeroMagnitude,
        ]
        return .decimal(decimals[reader.choice(decimals.count)])
    case 4: return .bool(reader.bool())
    case 5: return .null
    case 6: return .array((0..<reader.choice(4)).map { _ in readValue(&reader, depth: depth + 1) })
    default:
        var children: [String: QueryValue] = [:]
        for _ in 0..<reader.choice(4) {
            children[reader.string(maximumLength: 8)] = readValue(&reader, depth: depth + 1)
        }
        return .dictionary(children)
    }
}

private func hasNonFiniteNumber(_ value: QueryValue) -> Bool {
    switch value {
    case .double(let double): !double.isFinite
    case .decimal(let decimal): decimal.isNaN
    case .array(let elements): elements.contains(where: hasNonFiniteNumber)
    case .dictionary(let children): children.values.contains(where: hasNonFiniteNumber)
    case .string, .integer, .bool, .null: false
    }
}

/// One expected pair, in the decoded domain: the name and value a server reads.
private struct Pair {
    enum Value { case bare, text(String), list([String]) }
    var name: String
    var value: Value
}

/// The reference: what each pair must decode to, and the decoder that reads the output.
private struct Model {
    let options: Options

    /// `text` as a server reads it back: a space stays a space (as `%20`, or `+` read as a space);
    /// a plus becomes what its rule writes, read back by the same decoder.
    func text(_ text: String) -> String {
        let plus: String =
            switch options.plusSymbolEncodingRule {
            case .replacedWithEncodedPlus: "+"
            case .replacedWithEncodedSpace: " "
            case .decoded: options.spaceEncodingRule == .replacedWithDecodedPlus ? " " : "+"
            }
        // By bytes, as the encoder and a server work: `replacingOccurrences(of: "+", …)` compares
        // grapheme clusters and skips a "+" that a combining mark follows ("+\u{06E4}").
        return String(decoding: text.utf8.flatMap { $0 == UInt8(ascii: "+") ? Array(plus.utf8) : [$0] }, as: UTF8.self)
    }

    /// Percent-decodes `raw`, reading `+` as a space when spaces are written as `+`; a malformed
    /// escape is a violation.
    func decode(_ raw: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                let high = iterator.next().flatMap(PercentEncoding.hexValue)
                let low = iterator.next().flatMap(PercentEncoding.hexValue)
                guard let high, let low else {
                    check(false, "a malformed escape in \(raw)")
                    return []
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where options.spaceEncodingRule == .replacedWithDecodedPlus:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return bytes
    }

    func flatten(_ value: QueryValue, name: String, into pairs: inout [Pair]) {
        switch value {
        case .null:
            pairs.append(Pair(name: name, value: .bare))
        case .string, .integer, .double, .decimal, .bool:
            pairs.append(Pair(name: name, value: .text(text(scalar(value)))))
        case .dictionary(let children):
            for (key, child) in children.sorted(by: { $0.key < $1.key }) {
                let childName =
                    switch options.dictionaryFormat {
                    case .subscripted: name + "[" + text(key) + "]"
                    case .dotNotated: name + "." + text(key)
                    }
                flatten(child, name: childName, into: &pairs)
            }
        case .array(let elements):
            let isContainer: (QueryValue) -> Bool = { if case .array = $0 { true } else if case .dictionary = $0 { true } else { false } }
            switch options.arrayFormat {
            case .indexed:
                for (index, element) in elements.enumerated() { flatten(element, name: "\(name)[\(index)]", into: &pairs) }
            case .bracketed:
                for element in elements { flatten(element, name: name + "[]", into: &pairs) }
            case .duplicatedKeys:
                for (index, element) in elements.enumerated() {
                    flatten(element, name: isContainer(element) ? "\(name)[\(index)]" : name, into: &pairs)
                }
            case .commaSeparated:
                if elements.isEmpty { return }
                if elements.contains(where: isContainer) {
                    for (index, element) in elements.enumerated() { flatten(element, name: "\(name)[\(index)]", into: &pairs) }
                } else {
                    pairs.append(Pair(name: name, value: .list(elements.map { $0 == .null ? "" : text(scalar($0)) })))
                }
            }
        }
    }

    private func scalar(_ value: QueryValue) -> String {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .double(let double): double.description
        case .decimal(let decimal): decimal.description
        case .bool(let bool): bool ? "true" : "false"
        case .null, .array, .dictionary: ""
        }
    }
}

/// Only the characters the options allow appear raw in `query`.
private func checkCharacters(_ query: String, options: Options) {
    let keptReserved = Set(
        "!*'();:@$,/?".utf8.filter {
            !options.percentEncodedReservedCharacterSet.contains(Character(UnicodeScalar($0)))
        })
    let plusAllowed = options.spaceEncodingRule == .replacedWithDecodedPlus || options.plusSymbolEncodingRule == .decoded
    var bytes = Array(query.utf8)[...]
    while let byte = bytes.popFirst() {
        switch byte {
        case _ where PercentEncoding.isUnreserved(byte), UInt8(ascii: "&"), UInt8(ascii: "="):
            continue
        case UInt8(ascii: "%"):
            let hex = bytes.prefix(2)
            check(
                hex.count == 2 && hex.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) },
                "\"%\" not followed by two upper-case hex digits")
            bytes = bytes.dropFirst(2)
        case UInt8(ascii: "+"):
            check(plusAllowed, "a raw \"+\" although neither rule writes one")
        case UInt8(ascii: ","):
            continue  // kept, or a list separator; the pair comparison tells which
        default:
            check(keptReserved.contains(byte), "the byte \(byte) appears raw")
        }
    }
}
