import Foundation
import Testing

@testable import Courier

@Suite("QueryString parameters from Encodable")
struct QueryStringEncodableTests {
    struct Address: Encodable { var city: String; var zip: String }
    struct LineItem: Encodable { var id: Int; var tags: [String] }
    struct Order: Encodable {
        var customer: String
        var address: Address
        var items: [LineItem]
        var note: String?
        var express: Bool
        var weight: Double
    }

    @Test func nestedStructsAndArraysOfStructsBecomeNestedParametersAndAbsentOptionalsWriteNothing() throws {
        let order = Order(
            customer: "Ada L", address: Address(city: "London", zip: "N1 9GU"),
            items: [LineItem(id: 7, tags: ["a", "b"]), LineItem(id: 8, tags: [])],
            note: nil, express: true, weight: 1.25)
        let parameters = try QueryParameters(encoding: order)
        #expect(parameters.values["note"] == nil)
        #expect(
            try formatted(parameters) == "address%5Bcity%5D=London&address%5Bzip%5D=N1%209GU&customer=Ada%20L&express=true"
                + "&items%5B0%5D%5Bid%5D=7&items%5B0%5D%5Btags%5D%5B0%5D=a&items%5B0%5D%5Btags%5D%5B1%5D=b&items%5B1%5D%5Bid%5D=8"
                + "&weight=1.25")
        let dotted = try formatted(parameters, QueryStringFormattingOptions(arrayFormat: .bracketed, dictionaryFormat: .dotNotated))
        #expect(
            dotted == "address.city=London&address.zip=N1%209GU&customer=Ada%20L&express=true"
                + "&items%5B%5D.id=7&items%5B%5D.tags%5B%5D=a&items%5B%5D.tags%5B%5D=b&items%5B%5D.id=8&weight=1.25")
    }

    @Test func anOptionalEncodedExplicitlyAsNilIsABareName() throws {
        struct Explicit: Encodable {
            var cursor: String?
            var flag: Int?
            enum CodingKeys: CodingKey { case cursor, flag }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(cursor, forKey: .cursor)  // Optional's own encode: encodeNil
                try container.encodeNil(forKey: .flag)
            }
        }
        let parameters = try QueryParameters(encoding: Explicit(cursor: nil, flag: 3))
        #expect(parameters == ["cursor": nil, "flag": nil])
        #expect(try formatted(parameters) == "cursor&flag")
    }

    @Test func scalarTypesBecomeTheirQueryForms() throws {
        struct Scalars: Encodable {
            var int8: Int8 = -3
            var uint16: UInt16 = 65535
            var huge: UInt64 = .max
            var float: Float = 1.1
            var double: Double = 0.1
            var decimal = Decimal(string: "12.50")!
            var no = false
            var date = Date(timeIntervalSince1970: 1_714_564_800)
            var url = URL(string: "https://example.com/a?b=c")!
            var data = Data([0xFB, 0xFF])
        }
        let parameters = try QueryParameters(encoding: Scalars())
        #expect(parameters.values["huge"] == .decimal(Decimal(string: "18446744073709551615")!))
        #expect(
            try formatted(parameters) == "data=%2B/8%3D&date=2024-05-01T12:00:00Z&decimal=12.5&double=0.1&float=1.1"
                + "&huge=18446744073709551615&int8=-3&no=false&uint16=65535&url=https://example.com/a?b%3Dc")
    }

    @Test func datesAreWrittenInUTCWithWholeSeconds() throws {
        let parameters = try QueryParameters(encoding: ["at": Date(timeIntervalSince1970: 1_714_564_800.75)])
        #expect(try formatted(parameters) == "at=2024-05-01T12:00:00Z")
    }

    @Test func dictionariesAndStringBackedEnumsEncode() throws {
        enum Sort: String, Encodable { case newest }
        struct Query: Encodable { var sort: Sort; var ranges: [String: [Int]]; var byID: [Int: String] }
        let parameters = try QueryParameters(encoding: Query(sort: .newest, ranges: ["b": [1, 2], "a": []], byID: [2: "x", 1: "y"]))
        #expect(
            try formatted(parameters, QueryStringFormattingOptions(arrayFormat: .commaSeparated))
                == "byID%5B1%5D=y&byID%5B2%5D=x&ranges%5Bb%5D=1,2&sort=newest")
        #expect(try QueryParameters(encoding: ["k": ["n": 1]]) == ["k": ["n": 1]])
    }

    @Test func aWrapperThatEncodesAKeyedValueThroughASingleValueContainerIsKeyed() throws {
        struct Wrapper: Encodable {
            var inner: Address
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(inner)
            }
        }
        let parameters = try QueryParameters(encoding: Wrapper(inner: Address(city: "Oslo", zip: "0150")))
        #expect(parameters == ["city": "Oslo", "zip": "0150"])
    }

    @Test func superEncodersNestUnderSuperAndNestedContainersFillIn() throws {
        struct Custom: Encodable {
            enum Keys: String, CodingKey { case meta, list }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var meta = container.nestedContainer(keyedBy: Keys.self, forKey: .meta)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode("first")
                var pair = list.nestedUnkeyedContainer()
                try pair.encode(1)
                try pair.encode(2)
                try meta.encode("x", forKey: .list)
                let parent = container.superEncoder()
                var parentContainer = parent.singleValueContainer()
                try parentContainer.encode("base")
            }
        }
        let parameters = try QueryParameters(encoding: Custom())
        #expect(parameters == ["meta": ["list": "x"], "list": ["first", [1, 2]], "super": "base"])
    }

    @Test func anEmptyStructGivesNoParameters() throws {
        struct Empty: Encodable {}
        #expect(try QueryParameters(encoding: Empty()).isEmpty)
    }

    @Test("a top level that is an array fails with encodingFailed")
    func aTopLevelArrayIsRefusedWithATypedError() throws {
        let reason = try #require(encodingFailure { _ = try QueryParameters(encoding: [1, 2]) })
        #expect(reason.contains("keyed top level"))
        #expect(reason.contains("an array"))
    }

    @Test(
        "a top level that is a single value fails with encodingFailed",
        arguments: [0, 1, 2])
    func aTopLevelScalarIsRefusedWithATypedError(_ which: Int) throws {
        let reason = try #require(
            encodingFailure {
                switch which {
                case 0: _ = try QueryParameters(encoding: "hello")
                case 1: _ = try QueryParameters(encoding: 42)
                default: _ = try QueryParameters(encoding: Optional<Address>.none)
                }
            })
        #expect(reason.contains("a single value"))
    }

    struct Leaky: Encodable {
        var password = "hunter2"
        struct Inner: Encodable {
            var password: String
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    password,
                    EncodingError.Context(
                        codingPath: encoder.codingPath, debugDescription: "refused"))
            }
        }
        enum CodingKeys: CodingKey { case outer }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var outer = container.nestedUnkeyedContainer(forKey: .outer)
            try outer.encode(Inner(password: password))
        }
    }

    @Test func anEncodableThatThrowsFailsWithEncodingFailedNamingThePathNotTheValue() throws {
        let reason = try #require(encodingFailure { _ = try QueryParameters(encoding: Leaky()) })
        #expect(reason.contains("outer.0"))
        #expect(reason.contains("refused"))
        #expect(!reason.contains("hunter2"))
    }

    @Test func anEncodableThatThrowsItsOwnErrorFailsWithEncodingFailedNamingOnlyTheErrorType() throws {
        struct SecretError: Error, CustomStringConvertible { var description: String { "hunter2" } }
        struct Throwing: Encodable {
            func encode(to encoder: any Encoder) throws { throw SecretError() }
        }
        let reason = try #require(encodingFailure { _ = try QueryParameters(encoding: Throwing()) })
        #expect(reason.contains("SecretError"))
        #expect(!reason.contains("hunter2"))
    }

    @Test(
        "a NaN or infinite number in an Encodable fails with encodingFailed at its path",
        arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersInAnEncodableAreRefused(_ number: Double) throws {
        struct Reading: Encodable { var sensor: [String: [Double]] }
        let reason = try #require(encodingFailure { _ = try QueryParameters(encoding: Reading(sensor: ["t": [1, number]])) })
        #expect(reason.contains("sensor.t.1"))
        let floatReason = try #require(encodingFailure { _ = try QueryParameters(encoding: ["f": Float(number)]) })
        #expect(floatReason.contains("f"))
    }
}
