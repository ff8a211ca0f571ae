/// How query strings and form bodies are formatted: arrays, dictionaries, spaces, plus signs and
/// reserved characters. The names follow mindbody/Conduit's `QueryStringFormattingOptions`.
///
/// ```swift
/// // ["tags": ["a b", "c+d"], "filter": ["size": 2]]
/// QueryStringFormattingOptions()   // filter%5Bsize%5D=2&tags%5B0%5D=a%20b&tags%5B1%5D=c%2Bd
/// QueryStringFormattingOptions(arrayFormat: .commaSeparated, dictionaryFormat: .dotNotated,
///                              spaceEncodingRule: .replacedWithDecodedPlus)   // filter.size=2&tags=a+b,c%2Bd
/// ```
///
/// Set it with ``Configuration/queryStringOptions`` or ``Requestable/queryStringOptions``.
/// Whatever the options, `&`, `=`, `#`, `[`, `]`, `%` and non-ASCII characters are always
/// percent-encoded inside names and values, so no value can change the query's structure.
public struct QueryStringFormattingOptions: Sendable, Equatable {
    // Always percent-encoded: every character outside RFC 3986's unreserved set (letters, digits,
    // `-`, `.`, `_`, `~`) except the reserved characters `!*'();:@$,/?` (see
    // percentEncodedReservedCharacterSet), and every non-ASCII character (as UTF-8 bytes,
    // upper-case hex: `é` → `%C3%A9`). Space and `+` follow spaceEncodingRule and
    // plusSymbolEncodingRule. Conduit's names let code written against Conduit migrate by renaming
    // the module; the defaults give the most widely understood output.

    /// How an array parameter is written; for `["foo": ["a", "b"]]`:
    ///
    /// - `indexed`: `foo%5B0%5D=a&foo%5B1%5D=b`
    /// - `bracketed`: `foo%5B%5D=a&foo%5B%5D=b`
    /// - `duplicatedKeys`: `foo=a&foo=b`
    /// - `commaSeparated`: `foo=a,b`
    public enum ArrayFormat: Sendable, Equatable {
        /// `foo[0]=a&foo[1]=b` (brackets percent-encoded). The default. Arrays and dictionaries
        /// inside the array nest under the index: `foo[0][bar]=c`.
        case indexed
        /// `foo[]=a&foo[]=b` (brackets percent-encoded). Arrays and dictionaries inside the array
        /// nest under the empty brackets: `foo[][bar]=c`.
        case bracketed
        /// `foo=a&foo=b`. An element that is itself an array or a dictionary cannot be written
        /// this way without ambiguity and falls back to ``indexed`` for that element, keeping its
        /// position: `["foo": ["a", ["bar": "c"], ["x", "y"]]]` gives
        /// `foo=a&foo[1][bar]=c&foo[2]=x&foo[2]=y` (the inner array's own elements again
        /// duplicate their key).
        case duplicatedKeys
        /// `foo=a,b`. A comma inside an element is always encoded as `%2C`, even when `,` is not
        /// in ``QueryStringFormattingOptions/percentEncodedReservedCharacterSet``, so the list
        /// stays unambiguous: `["a,b", "c"]` gives `foo=a%2Cb,c`. A `null` element is an empty
        /// string between commas. An array holding any array or dictionary cannot be joined and
        /// is written as ``indexed`` instead.
        case commaSeparated
    }

    /// How a dictionary parameter is written; for `["a": ["b": ["c": "d"]]]`:
    ///
    /// - `subscripted`: `a%5Bb%5D%5Bc%5D=d`
    /// - `dotNotated`: `a.b.c=d`
    public enum DictionaryFormat: Sendable, Equatable {
        /// `a[b]=c` (brackets percent-encoded). The default.
        case subscripted
        /// `a.b=c`. An array inside still uses brackets: `a.b[0]=x` (as `a.b%5B0%5D=x`). A key
        /// that itself contains `.` is written as it is (`.` is unreserved and is never encoded),
        /// so avoid such keys with this format.
        case dotNotated
    }

    /// How a space is written; for `"value 1"`:
    ///
    /// - `encoded`: `value%201`
    /// - `replacedWithDecodedPlus`: `value+1`
    public enum SpaceEncodingRule: Sendable, Equatable {
        /// `%20`. The default; every server reads it as a space.
        case encoded
        /// `+`, as HTML forms do (`application/x-www-form-urlencoded`).
        case replacedWithDecodedPlus
    }

    /// How a plus sign is written; for `"value+1"`:
    ///
    /// - `replacedWithEncodedPlus`: `value%2B1`
    /// - `replacedWithEncodedSpace`: `value%201`
    /// - `decoded`: `value+1`
    public enum PlusSymbolEncodingRule: Sendable, Equatable {
        /// `%2B`. The default: the server receives the `+` that was sent.
        case replacedWithEncodedPlus
        /// `%20`: the `+` becomes a space.
        case replacedWithEncodedSpace
        /// `+`, left as it is. Many servers read it as a space.
        case decoded
    }

    /// How arrays are written. Default: ``ArrayFormat/indexed``.
    ///
    /// ```swift
    /// options.arrayFormat = .commaSeparated  // foo=a,b
    /// ```
    public var arrayFormat: ArrayFormat
    /// How dictionaries are written. Default: ``DictionaryFormat/subscripted``.
    ///
    /// ```swift
    /// options.dictionaryFormat = .dotNotated  // a.b=c
    /// ```
    public var dictionaryFormat: DictionaryFormat
    /// How spaces are written. Default: ``SpaceEncodingRule/encoded`` (`%20`).
    ///
    /// ```swift
    /// options.spaceEncodingRule = .replacedWithDecodedPlus  // "a b" → a+b
    /// ```
    public var spaceEncodingRule: SpaceEncodingRule
    /// How plus signs are written. Default: ``PlusSymbolEncodingRule/replacedWithEncodedPlus`` (`%2B`).
    ///
    /// ```swift
    /// options.plusSymbolEncodingRule = .decoded  // "a+b" → a+b
    /// ```
    public var plusSymbolEncodingRule: PlusSymbolEncodingRule
    /// Which of the reserved characters `!*'();:@$,/?` are percent-encoded; empty (none) by default.
    ///
    /// These characters are legal in a query (RFC 3986 §3.4) and left as they are unless listed
    /// here. Any other character in the set is ignored: `&`, `=`, `#`, `[`, `]` and `%` are
    /// always encoded, letters and digits never, and space and `+` have their own rules.
    ///
    /// ```swift
    /// options.percentEncodedReservedCharacterSet = ["/", "?"]
    /// // ["path": "a/b?c"] → path=a%2Fb%3Fc   (default: path=a/b?c)
    /// options.percentEncodedReservedCharacterSet = Set("!*'();:@$,/?")
    /// // encodes all of them
    /// ```
    public var percentEncodedReservedCharacterSet: Set<Character>

    /// The reserved characters that are left as they are unless listed in
    /// ``percentEncodedReservedCharacterSet``: `!*'();:@$,/?`.
    ///
    /// ```swift
    /// var options = QueryStringFormattingOptions()
    /// options.percentEncodedReservedCharacterSet = QueryStringFormattingOptions.reservedCharacters
    /// ```
    package static let reservedCharacters: Set<Character> = Set("!*'();:@$,/?")

    /// Creates formatting options; every parameter has the default described on its property.
    ///
    /// ```swift
    /// let options = QueryStringFormattingOptions(arrayFormat: .bracketed, spaceEncodingRule: .replacedWithDecodedPlus)
    /// ```
    public init(
        arrayFormat: ArrayFormat = .indexed,
        dictionaryFormat: DictionaryFormat = .subscripted,
        spaceEncodingRule: SpaceEncodingRule = .encoded,
        plusSymbolEncodingRule: PlusSymbolEncodingRule = .replacedWithEncodedPlus,
        percentEncodedReservedCharacterSet: Set<Character> = []
    ) {
        self.arrayFormat = arrayFormat
        self.dictionaryFormat = dictionaryFormat
        self.spaceEncodingRule = spaceEncodingRule
        self.plusSymbolEncodingRule = plusSymbolEncodingRule
        self.percentEncodedReservedCharacterSet = percentEncodedReservedCharacterSet
    }
}
