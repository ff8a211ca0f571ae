import Courier
import Foundation
import Testing

/// The outputs mindbody/Conduit's own tests assert (Tests/ConduitTests/…/QueryStringTests.swift and
/// QueryStringArrayTests.swift), reproduced with the same inputs and options. Where Conduit only
/// checked `contains`, the same fragments are checked verbatim and the whole query as well.
@Suite("QueryString Conduit compatibility")
struct QueryStringConduitCompatibilityTests {
    typealias Options = QueryStringFormattingOptions

    /// Conduit's `["foo": ["foo", "bar", 1_234, 1.234]]`.
    static let mixedArray: QueryParameters = ["foo": ["foo", "bar", 1234, 1.234]]

    @Test func flatScalarsMatchConduit() throws {
        #expect(try formatted(["foo": "bar"]).contains("foo=bar"))
        #expect(try formatted(["foo": nil]) == "foo")
        #expect(try formatted(["foo": 1_234]).contains("foo=1234"))
        #expect(try formatted(["foo": 1.234]).contains("foo=1.234"))
    }

    @Test func indexedArraysMatchConduit() throws {
        let query = try formatted(Self.mixedArray, Options(arrayFormat: .indexed))
        for fragment in ["foo%5B0%5D=foo", "foo%5B1%5D=bar", "foo%5B2%5D=1234", "foo%5B3%5D=1.234"] {
            #expect(query.contains(fragment))
        }
        #expect(query == "foo%5B0%5D=foo&foo%5B1%5D=bar&foo%5B2%5D=1234&foo%5B3%5D=1.234")
    }

    @Test func duplicatedKeyArraysMatchConduit() throws {
        #expect(try formatted(Self.mixedArray, Options(arrayFormat: .duplicatedKeys)) == "foo=foo&foo=bar&foo=1234&foo=1.234")
    }

    @Test func bracketedArraysMatchConduit() throws {
        #expect(
            try formatted(Self.mixedArray, Options(arrayFormat: .bracketed))
                == "foo%5B%5D=foo&foo%5B%5D=bar&foo%5B%5D=1234&foo%5B%5D=1.234")
    }

    @Test func commaSeparatedArraysMatchConduit() throws {
        #expect(try formatted(Self.mixedArray, Options(arrayFormat: .commaSeparated)) == "foo=foo,bar,1234,1.234")
    }

    /// Conduit's dictionary fixture, with `.duplicatedKeys` as in its tests.
    static let dictionaries: QueryParameters = [
        "param1": ["key1": "value1", "key2": 2],
        "param2": ["nested": ["key4": 3.45], "array": [1, "two", 3.45]],
    ]

    @Test func dotNotatedDictionariesMatchConduit() throws {
        let query = try formatted(Self.dictionaries, Options(arrayFormat: .duplicatedKeys, dictionaryFormat: .dotNotated))
        #expect(query == "param1.key1=value1&param1.key2=2&param2.array=1&param2.array=two&param2.array=3.45&param2.nested.key4=3.45")
    }

    @Test func subscriptedDictionariesMatchConduit() throws {
        let query = try formatted(Self.dictionaries, Options(arrayFormat: .duplicatedKeys, dictionaryFormat: .subscripted))
        #expect(query.contains("param1%5Bkey1%5D=value1"))
        #expect(
            query == "param1%5Bkey1%5D=value1&param1%5Bkey2%5D=2&param2%5Barray%5D=1&param2%5Barray%5D=two"
                + "&param2%5Barray%5D=3.45&param2%5Bnested%5D%5Bkey4%5D=3.45")
    }

    @Test func plusAndSpaceRulesMatchConduit() throws {
        #expect(try formatted(["key1": "value+1"]) == "key1=value%2B1")
        #expect(try formatted(["key1": "value+1"], Options(plusSymbolEncodingRule: .replacedWithEncodedSpace)) == "key1=value%201")
        #expect(try formatted(["key1": "value+1"], Options(plusSymbolEncodingRule: .replacedWithEncodedPlus)) == "key1=value%2B1")
        #expect(try formatted(["key1": "value+1"], Options(plusSymbolEncodingRule: .decoded)) == "key1=value+1")
        #expect(try formatted(["key1": "value 1"]) == "key1=value%201")
        #expect(try formatted(["key1": "value 1"], Options(spaceEncodingRule: .replacedWithDecodedPlus)) == "key1=value+1")
    }

    @Test func spaceEncodingDoesNotConflictWithPlusEncodingAsInConduit() throws {
        let options = Options(spaceEncodingRule: .replacedWithDecodedPlus, plusSymbolEncodingRule: .replacedWithEncodedSpace)
        let query = try formatted(["key1": "value+1", "key2": "value 2", "key3": "value +3"], options)
        #expect(query.contains("key1=value%201"))
        #expect(query.contains("key2=value+2"))
        #expect(query.contains("key3=value+%203"))
        #expect(query == "key1=value%201&key2=value+2&key3=value+%203")
    }

    @Test func reservedCharactersAreNotEncodedByDefaultAsInConduit() throws {
        #expect(try formatted(["!*'();:@$,/": "!*'();:@$,/"]) == "!*'();:@$,/=!*'();:@$,/")
    }

    @Test func nonConflictingReservedCharactersAreEncodedWhenSpecifiedAsInConduit() throws {
        let options = Options(
            spaceEncodingRule: .replacedWithDecodedPlus, plusSymbolEncodingRule: .replacedWithEncodedSpace,
            percentEncodedReservedCharacterSet: Set("!*'();:@$,/&%=abc"))
        #expect(
            try formatted(["!*'();:@$,/&=abc+ ": "!*'();:@$,/&=abc+ "], options)
                == "%21%2A%27%28%29%3B%3A%40%24%2C%2F%26%3Dabc%20+=%21%2A%27%28%29%3B%3A%40%24%2C%2F%26%3Dabc%20+")
    }

    /// Conduit's README example. Its option names do not exist in Conduit itself
    /// (`spaceEncodingRule = .replacedWithPlus`, `plusSymbolEncodingRule = .replacedWithDecodedPlus`);
    /// the closest real cases are `.replacedWithDecodedPlus` and `.decoded`. The README shows no output.
    @Test func readmeExampleWithTheClosestRealOptions() throws {
        let parameters: QueryParameters = ["options": ["include": ["fuzzy", "fluffy", "not mean"], "2+2": 4]]
        let options = Options(
            arrayFormat: .commaSeparated, dictionaryFormat: .dotNotated,
            spaceEncodingRule: .replacedWithDecodedPlus, plusSymbolEncodingRule: .decoded)
        #expect(try formatted(parameters, options) == "options.2+2=4&options.include=fuzzy,fluffy,not+mean")
    }
}
