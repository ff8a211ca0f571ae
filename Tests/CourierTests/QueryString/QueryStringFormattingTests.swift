import Foundation
import Testing

@testable import Courier

@Suite("QueryString formatting")
struct QueryStringFormattingTests {
    typealias Options = QueryStringFormattingOptions

    // MARK: arrays × dictionaries

    /// A flat array, a dictionary holding a scalar and an array, and an array of dictionaries.
    static let fixture: QueryParameters = [
        "list": ["x", "y"],
        "obj": ["key": "v", "arr": [1, 2]],
        "rows": [["id": 1], ["id": 2]],
    ]

    struct FormatCase: Sendable, CustomTestStringConvertible {
        var arrayFormat: Options.ArrayFormat
        var dictionaryFormat: Options.DictionaryFormat
        var expected: String
        var testDescription: String { "\(arrayFormat) × \(dictionaryFormat)" }
    }

    static let formatCases: [FormatCase] = [
        FormatCase(
            arrayFormat: .indexed, dictionaryFormat: .subscripted,
            expected:
                "list%5B0%5D=x&list%5B1%5D=y&obj%5Barr%5D%5B0%5D=1&obj%5Barr%5D%5B1%5D=2&obj%5Bkey%5D=v&rows%5B0%5D%5Bid%5D=1&rows%5B1%5D%5Bid%5D=2"),
        FormatCase(
            arrayFormat: .indexed, dictionaryFormat: .dotNotated,
            expected:
                "list%5B0%5D=x&list%5B1%5D=y&obj.arr%5B0%5D=1&obj.arr%5B1%5D=2&obj.key=v&rows%5B0%5D.id=1&rows%5B1%5D.id=2"),
        FormatCase(
            arrayFormat: .bracketed, dictionaryFormat: .subscripted,
            expected:
                "list%5B%5D=x&list%5B%5D=y&obj%5Barr%5D%5B%5D=1&obj%5Barr%5D%5B%5D=2&obj%5Bkey%5D=v&rows%5B%5D%5Bid%5D=1&rows%5B%5D%5Bid%5D=2"),
        FormatCase(
            arrayFormat: .bracketed, dictionaryFormat: .dotNotated,
            expected:
                "list%5B%5D=x&list%5B%5D=y&obj.arr%5B%5D=1&obj.arr%5B%5D=2&obj.key=v&rows%5B%5D.id=1&rows%5B%5D.id=2"),
        FormatCase(
            arrayFormat: .duplicatedKeys, dictionaryFormat: .subscripted,
            expected:
                "list=x&list=y&obj%5Barr%5D=1&obj%5Barr%5D=2&obj%5Bkey%5D=v&rows%5B0%5D%5Bid%5D=1&rows%5B1%5D%5Bid%5D=2"),
        FormatCase(
            arrayFormat: .duplicatedKeys, dictionaryFormat: .dotNotated,
            expected:
                "list=x&list=y&obj.arr=1&obj.arr=2&obj.key=v&rows%5B0%5D.id=1&rows%5B1%5D.id=2"),
        FormatCase(
            arrayFormat: .commaSeparated, dictionaryFormat: .subscripted,
            expected:
                "list=x,y&obj%5Barr%5D=1,2&obj%5Bkey%5D=v&rows%5B0%5D%5Bid%5D=1&rows%5B1%5D%5Bid%5D=2"),
        FormatCase(
            arrayFormat: .commaSeparated, dictionaryFormat: .dotNotated,
            expected:
                "list=x,y&obj.arr=1,2&obj.key=v&rows%5B0%5D.id=1&rows%5B1%5D.id=2"),
    ]

    @Test("every array format × dictionary format writes the nested fixture exactly", arguments: formatCases)
    func everyArrayAndDictionaryFormatCombinationIsByteExact(_ formatCase: FormatCase) throws {
        let options = Options(arrayFormat: formatCase.arrayFormat, dictionaryFormat: formatCase.dictionaryFormat)
        #expect(try formatted(Self.fixture, options) == formatCase.expected)
    }

    @Test func theDefaultsAreIndexedArraysAndSubscriptedDictionaries() throws {
        let options = Options()
        #expect(options.arrayFormat == .indexed)
        #expect(options.dictionaryFormat == .subscripted)
        #expect(options.spaceEncodingRule == .encoded)
        #expect(options.plusSymbolEncodingRule == .replacedWithEncodedPlus)
        #expect(options.percentEncodedReservedCharacterSet.isEmpty)
        #expect(try formatted(Self.fixture, options) == Self.formatCases[0].expected)
    }

    @Test func indexedArraysNestArraysAndDictionariesUnderTheIndex() throws {
        let parameters: QueryParameters = ["a": [["b": "c"], ["d", "e"]]]
        #expect(try formatted(parameters) == "a%5B0%5D%5Bb%5D=c&a%5B1%5D%5B0%5D=d&a%5B1%5D%5B1%5D=e")
    }

    @Test func bracketedArraysNestArraysAndDictionariesUnderEmptyBrackets() throws {
        let parameters: QueryParameters = ["a": [["b": "c"], ["d"]]]
        #expect(try formatted(parameters, Options(arrayFormat: .bracketed)) == "a%5B%5D%5Bb%5D=c&a%5B%5D%5B%5D=d")
    }

    @Test func duplicatedKeysFallBackToIndexedOnlyForNestedElementsKeepingTheirPosition() throws {
        let parameters: QueryParameters = ["foo": ["a", ["bar": "c"], ["x", "y"], nil, "z"]]
        #expect(
            try formatted(parameters, Options(arrayFormat: .duplicatedKeys))
                == "foo=a&foo%5B1%5D%5Bbar%5D=c&foo%5B2%5D=x&foo%5B2%5D=y&foo&foo=z")
        // The inner array's own scalars are written with duplicated keys again, under the index.
    }

    @Test func commaSeparatedArraysHoldingAContainerAreWrittenIndexed() throws {
        let parameters: QueryParameters = ["foo": ["a", ["bar": "c"]], "ok": ["a", "b"]]
        #expect(
            try formatted(parameters, Options(arrayFormat: .commaSeparated))
                == "foo%5B0%5D=a&foo%5B1%5D%5Bbar%5D=c&ok=a,b")
    }

    @Test func commaSeparatedArraysEncodeCommasInsideElements() throws {
        let parameters: QueryParameters = ["tags": ["a,b", "c", "d,,"]]
        #expect(try formatted(parameters, Options(arrayFormat: .commaSeparated)) == "tags=a%2Cb,c,d%2C%2C")
        // Elsewhere a comma is a reserved character left as it is by default.
        #expect(try formatted(["tag": "a,b"], Options(arrayFormat: .commaSeparated)) == "tag=a,b")
        #expect(try formatted(parameters, Options(arrayFormat: .indexed)) == "tags%5B0%5D=a,b&tags%5B1%5D=c&tags%5B2%5D=d,,")
    }

    @Test func commaSeparatedSeparatorsStayLiteralWhenCommasAreInTheEncodedReservedSet() throws {
        let options = Options(arrayFormat: .commaSeparated, percentEncodedReservedCharacterSet: [","])
        #expect(try formatted(["tags": ["a,b", "c"], "one": "x,y"], options) == "one=x%2Cy&tags=a%2Cb,c")
    }

    @Test func commaSeparatedNullElementsAreEmptyBetweenCommas() throws {
        #expect(try formatted(["k": ["a", nil, "c"]], Options(arrayFormat: .commaSeparated)) == "k=a,,c")
    }

    @Test func commaSeparatedElementsFollowTheSpaceAndPlusRules() throws {
        let options = Options(arrayFormat: .commaSeparated, spaceEncodingRule: .replacedWithDecodedPlus)
        #expect(try formatted(["k": ["a b", "c+d", 1.5, true]], options) == "k=a+b,c%2Bd,1.5,true")
    }

    @Test func dotNotationChainsKeysAndKeepsEncodedBracketsForArrays() throws {
        let parameters: QueryParameters = ["a": ["b": ["c": "d", "list": ["x", "y"]]]]
        #expect(try formatted(parameters, Options(dictionaryFormat: .dotNotated)) == "a.b.c=d&a.b.list%5B0%5D=x&a.b.list%5B1%5D=y")
    }

    @Test func subscriptedDictionariesEncodeSpecialCharactersInKeys() throws {
        let parameters: QueryParameters = ["a": ["k [1]&=": "v"]]
        #expect(try formatted(parameters) == "a%5Bk%20%5B1%5D%26%3D%5D=v")
    }

    @Test func arraysOfArraysNestIndexByIndex() throws {
        #expect(try formatted(["m": [[1, 2], [3]]]) == "m%5B0%5D%5B0%5D=1&m%5B0%5D%5B1%5D=2&m%5B1%5D%5B0%5D=3")
    }

    // MARK: empty containers

    @Test(
        "empty arrays and dictionaries write nothing, in every array format",
        arguments: [Options.ArrayFormat.indexed, .bracketed, .duplicatedKeys, .commaSeparated])
    func emptyArraysAndDictionariesWriteNothing(_ arrayFormat: Options.ArrayFormat) throws {
        let parameters: QueryParameters = ["e": [], "d": [:], "n": ["inner": [], "deeper": [[], [:]]], "x": 1]
        #expect(try formatted(parameters, Options(arrayFormat: arrayFormat)) == "x=1")
        #expect(try formatted(["e": [], "d": [:]], Options(arrayFormat: arrayFormat)) == "")
    }

    // MARK: scalars

    @Test func nullIsABareNameWithoutEqualsSign() throws {
        #expect(try formatted(["flag": nil]) == "flag")
        #expect(try formatted(["a": ["b": nil]]) == "a%5Bb%5D")
        #expect(try formatted(["a": [nil, "x"]]) == "a%5B0%5D&a%5B1%5D=x")
    }

    @Test func emptyStringsKeepTheirEqualsSign() throws {
        #expect(try formatted(["empty": ""]) == "empty=")
    }

    @Test func boolsAreWrittenAsTrueAndFalse() throws {
        #expect(try formatted(["no": false, "yes": true]) == "no=false&yes=true")
    }

    @Test func integersAreWrittenInDecimal() throws {
        #expect(
            try formatted(["a": 1234, "b": -7, "c": .integer(.max), "d": .integer(.min), "e": 0])
                == "a=1234&b=-7&c=9223372036854775807&d=-9223372036854775808&e=0")
    }

    @Test func doublesAreWrittenAsTheirShortestRoundTripDescription() throws {
        let parameters: QueryParameters = ["a": 1.234, "b": 3.0, "c": 0.1, "d": 1e-7, "e": 1e21, "f": -0.5, "g": .double(0.1 + 0.2)]
        #expect(try formatted(parameters) == "a=1.234&b=3.0&c=0.1&d=1e-07&e=1e%2B21&f=-0.5&g=0.30000000000000004")
    }

    @Test func decimalsAreWrittenByTheirDescription() throws {
        let parameters: QueryParameters = [
            "a": .decimal(Decimal(string: "12.50")!),
            "b": .decimal(Decimal(string: "0.1")!),
            "c": .decimal(Decimal(string: "-123456789012345678901234567890")!),
        ]
        #expect(try formatted(parameters) == "a=12.5&b=0.1&c=-123456789012345678901234567890")
    }

    @Test(
        "a NaN or infinite number fails with encodingFailed naming the parameter",
        arguments: [QueryValue.double(.nan), .double(.infinity), .double(-.infinity), .decimal(.nan)])
    func nonFiniteNumbersFailNamingTheParameter(_ value: QueryValue) throws {
        let reason = try #require(encodingFailure { _ = try formatted(["outer": ["inner key": [value]]]) })
        #expect(reason.contains("outer[inner key][0]"))
        let commaReason = try #require(
            encodingFailure {
                _ = try formatted(["list": [1, value]], Options(arrayFormat: .commaSeparated))
            })
        #expect(commaReason.contains("list"))
    }

    // MARK: spaces and plus signs

    struct SpacePlusCase: Sendable, CustomTestStringConvertible {
        var space: Options.SpaceEncodingRule
        var plus: Options.PlusSymbolEncodingRule
        /// How `n m+o` (name) and `a b+c` (value) are written.
        var expected: String
        var testDescription: String { "space \(space), plus \(plus)" }
    }

    static let spacePlusCases: [SpacePlusCase] = [
        SpacePlusCase(space: .encoded, plus: .replacedWithEncodedPlus, expected: "n%20m%2Bo=a%20b%2Bc"),
        SpacePlusCase(space: .encoded, plus: .replacedWithEncodedSpace, expected: "n%20m%20o=a%20b%20c"),
        SpacePlusCase(space: .encoded, plus: .decoded, expected: "n%20m+o=a%20b+c"),
        SpacePlusCase(space: .replacedWithDecodedPlus, plus: .replacedWithEncodedPlus, expected: "n+m%2Bo=a+b%2Bc"),
        SpacePlusCase(space: .replacedWithDecodedPlus, plus: .replacedWithEncodedSpace, expected: "n+m%20o=a+b%20c"),
        SpacePlusCase(space: .replacedWithDecodedPlus, plus: .decoded, expected: "n+m+o=a+b+c"),
    ]

    @Test("every space rule × plus rule writes names and values exactly", arguments: spacePlusCases)
    func everySpaceAndPlusRuleCombinationIsByteExact(_ spacePlusCase: SpacePlusCase) throws {
        let options = Options(spaceEncodingRule: spacePlusCase.space, plusSymbolEncodingRule: spacePlusCase.plus)
        // Nested parameters, flat items, and a key inside brackets all follow the same rules.
        #expect(try formatted(["n m+o": "a b+c"], options) == spacePlusCase.expected)
        #expect(try formatted(nil, items: [QueryItem(name: "n m+o", value: "a b+c")], options) == spacePlusCase.expected)
        let nested = try formatted(["p": ["n m+o": "a b+c"]], options)
        #expect(nested == "p%5B" + spacePlusCase.expected.replacingOccurrences(of: "=", with: "%5D="))
    }

    @Test func spacesAndPlusesNextToMultiByteCharactersAreSplitOnBytes() throws {
        // A space followed by a combining accent is one Character but two scalars.
        let options = Options(spaceEncodingRule: .replacedWithDecodedPlus, plusSymbolEncodingRule: .replacedWithEncodedSpace)
        #expect(try formatted(["k": " \u{301}é+ü "], options) == "k=+%CC%81%C3%A9%20%C3%BC+")
    }

    // MARK: reserved characters

    /// Each reserved character and its escape, written out by hand.
    static let reservedEscapes: [(Character, String)] = [
        ("!", "%21"), ("*", "%2A"), ("'", "%27"), ("(", "%28"), (")", "%29"), (";", "%3B"),
        (":", "%3A"), ("@", "%40"), ("$", "%24"), (",", "%2C"), ("/", "%2F"), ("?", "%3F"),
    ]
    static let allReserved = "!*'();:@$,/?"

    @Test func reservedCharactersAreLeftAsTheyAreByDefault() throws {
        #expect(try formatted([Self.allReserved: .string(Self.allReserved)]) == "!*'();:@$,/?=!*'();:@$,/?")
        #expect(QueryStringFormattingOptions.reservedCharacters == Set(Self.allReserved))
    }

    @Test(
        "each reserved character alone is encoded when it is in the set, and only it",
        arguments: reservedEscapes.map(\.0))
    func eachReservedCharacterIsEncodedOnlyWhenListed(_ character: Character) throws {
        let escape = try #require(Self.reservedEscapes.first { $0.0 == character }?.1)
        let expectedPart = Self.allReserved.map { $0 == character ? escape : String($0) }.joined()
        let options = Options(percentEncodedReservedCharacterSet: [character])
        #expect(try formatted(["k": .string(Self.allReserved)], options) == "k=" + expectedPart)
        #expect(try formatted(nil, items: [QueryItem(name: Self.allReserved)], options) == expectedPart)
    }

    @Test func allReservedCharactersAreEncodedWhenAllAreListed() throws {
        let options = Options(percentEncodedReservedCharacterSet: QueryStringFormattingOptions.reservedCharacters)
        let escaped = "%21%2A%27%28%29%3B%3A%40%24%2C%2F%3F"
        #expect(try formatted([Self.allReserved: .string(Self.allReserved)], options) == escaped + "=" + escaped)
    }

    @Test func charactersOutsideTheReservedSetAreIgnoredInTheEncodedSet() throws {
        // Letters stay, and `&=%` are encoded whether listed or not; space and + keep their rules.
        let options = Options(plusSymbolEncodingRule: .decoded, percentEncodedReservedCharacterSet: Set("abc&=% +-"))
        #expect(try formatted(["abc": "a&b=c% +-"], options) == "abc=a%26b%3Dc%25%20+-")
    }

    // MARK: characters that are always encoded

    static let optionVariety: [Options] = [
        Options(),
        Options(
            arrayFormat: .commaSeparated, dictionaryFormat: .dotNotated, spaceEncodingRule: .replacedWithDecodedPlus,
            plusSymbolEncodingRule: .decoded),
        Options(
            arrayFormat: .duplicatedKeys, plusSymbolEncodingRule: .replacedWithEncodedSpace,
            percentEncodedReservedCharacterSet: QueryStringFormattingOptions.reservedCharacters),
    ]

    @Test("& = # [ ] % are always encoded in names and values, whatever the options", arguments: optionVariety)
    func delimitersAreAlwaysEncodedInNamesAndValues(_ options: Options) throws {
        let expected = "%26%3D%23%5B%5D%25=%26%3D%23%5B%5D%25"
        #expect(try formatted(["&=#[]%": "&=#[]%"], options) == expected)
        #expect(try formatted(nil, items: [QueryItem(name: "&=#[]%", value: "&=#[]%")], options) == expected)
        #expect(try formatted(["list": ["&=#[]%"]], options).hasSuffix("=%26%3D%23%5B%5D%25"))
    }

    @Test func everythingElseOutsideUnreservedIsEncoded() throws {
        let parameters: QueryParameters = ["k": "\"<>\\^`{|}\n\t\u{7F}-._~AZaz09"]
        #expect(try formatted(parameters) == "k=%22%3C%3E%5C%5E%60%7B%7C%7D%0A%09%7F-._~AZaz09")
    }

    @Test func nonASCIIIsPercentEncodedAsUpperCaseUTF8() throws {
        #expect(try formatted(["ü name": "Zoë 日本 👍"]) == "%C3%BC%20name=Zo%C3%AB%20%E6%97%A5%E6%9C%AC%20%F0%9F%91%8D")
    }

    // MARK: order

    @Test func dictionaryKeysAreSortedAtEveryLevel() throws {
        let parameters: QueryParameters = [
            "b": ["z": 1, "a": ["y": 2, "B": 3], "_": 4],
            "a": 5, "10": 6, "9": 7, "B": 8,
        ]
        #expect(
            try formatted(parameters)
                == "10=6&9=7&B=8&a=5&b%5B_%5D=4&b%5Ba%5D%5BB%5D=3&b%5Ba%5D%5By%5D=2&b%5Bz%5D=1")
    }

    @Test func theSameParametersBuiltInAnotherOrderGiveTheSameQuery() throws {
        var first: [String: QueryValue] = [:]
        var second: [String: QueryValue] = [:]
        second.reserveCapacity(512)
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { first[key] = .string(key) }
        for key in keys.reversed() { second[key] = .string(key) }
        #expect(try formatted(QueryParameters(first)) == formatted(QueryParameters(second)))
        #expect(try formatted(QueryParameters(first)).hasPrefix("key0=key0&key1=key1&key10=key10&key11=key11"))
    }

    @Test func arrayElementsKeepTheirOrder() throws {
        #expect(try formatted(["a": ["z", "a", "m"]], Options(arrayFormat: .duplicatedKeys)) == "a=z&a=a&a=m")
    }

    // MARK: flat items

    @Test func flatItemsKeepTheirOrderAndDuplicatesAndComeBeforeNestedParameters() throws {
        let items = [QueryItem(name: "z", value: "1"), QueryItem(name: "a"), QueryItem(name: "z", value: "2")]
        #expect(try formatted(["b": ["c": "d"], "a": "e"], items: items) == "z=1&a&z=2&a=e&b%5Bc%5D=d")
    }

    @Test func flatItemsLeaveReservedCharactersAsTheyAreAndFollowTheOptions() throws {
        let items = [QueryItem(name: "path", value: "a/b?c:d@e"), QueryItem(name: "q", value: "x y+z")]
        #expect(try formatted(nil, items: items) == "path=a/b?c:d@e&q=x%20y%2Bz")
        let options = Options(spaceEncodingRule: .replacedWithDecodedPlus, percentEncodedReservedCharacterSet: ["/"])
        #expect(try formatted(nil, items: items, options) == "path=a%2Fb?c:d@e&q=x+y%2Bz")
    }

    @Test func nothingToWriteGivesAnEmptyQuery() throws {
        #expect(try formatted(nil) == "")
        #expect(try formatted([:]) == "")
        #expect(try RequestBuilder.queryString(items: nil, parameters: nil, options: Options()) == "")
        #expect(try RequestBuilder.queryString(items: [], parameters: ["e": []], options: Options()) == "")
        #expect(try RequestBuilder.queryString(items: [QueryItem(name: "a")], parameters: nil, options: Options()) == "?a")
    }

    // MARK: literals

    @Test func literalsBuildTheMatchingCases() {
        let value: QueryValue = ["s": "x", "i": 1, "d": 1.5, "b": true, "n": nil, "a": [1, "two"]]
        #expect(
            value
                == .dictionary([
                    "s": .string("x"), "i": .integer(1), "d": .double(1.5), "b": .bool(true), "n": .null,
                    "a": .array([.integer(1), .string("two")]),
                ]))
    }

    @Test func aKeyWrittenTwiceInALiteralKeepsItsLastValueInsteadOfTrapping() throws {
        // Spelled out: a literal with a repeated key would only draw a compiler warning.
        let parameters = QueryParameters(dictionaryLiteral: ("a", 1), ("a", 2))
        let value = QueryValue(dictionaryLiteral: ("k", "first"), ("k", "last"))
        #expect(try formatted(parameters) == "a=2")
        #expect(value == .dictionary(["k": "last"]))
    }
}
