/// How much structure a parsed XML document may have: bounds that keep a hostile document from
/// crashing the process or making it work for a long time.
///
/// Every XML reader in CourierXML takes one. A document past a limit fails with an
/// ``XMLParsingError`` (``XMLParsingError/Reason/tooDeep(maximumDepth:)``,
/// ``XMLParsingError/Reason/tooManyElements(maximumElementCount:)`` or
/// ``XMLParsingError/Reason/tooManyAttributes(maximumAttributesPerElement:)``) before any tree is
/// built or XMLCoder sees it.
///
/// ```swift
/// var limits = XMLParsingLimits()
/// limits.maximumDepth = 32                      // our documents are shallow
/// let decoder = XMLBodyDecoder(limits: limits)
/// ```
public struct XMLParsingLimits: Sendable, Hashable {
    // Deep nesting overflows the stack of recursive code such as XMLCoder's decoder. The readers:
    // XMLTreeDocument.init(data:charset:preservingWhitespace:limits:), XMLBodyDecoder,
    // SOAPBodyDecoder, Response.xmlDocument(limits:) and Response.soapPayload(limits:).

    /// How deeply elements may nest; the root element is at depth 1. 128 by default.
    ///
    /// XMLCoder decodes recursively; 128 leaves room to spare on a 512 KB stack, the size of
    /// secondary threads on Apple platforms. A model that contains itself (a category with
    /// subcategories) adds its own recursion per level: lower this limit to what such a model
    /// needs.
    ///
    /// ```swift
    /// let limits = XMLParsingLimits(maximumDepth: 32)
    /// ```
    public var maximumDepth: Int
    /// How many elements a document may hold in all. 100,000 by default.
    ///
    /// Each element costs far more in memory than the 4 bytes `<a/>` takes in the body, as an
    /// ``XMLTreeDocument`` and more so inside XMLCoder's decoder. Raise it for documents known to
    /// be larger.
    ///
    /// ```swift
    /// let limits = XMLParsingLimits(maximumElementCount: 50_000)
    /// ```
    public var maximumElementCount: Int
    /// How many attributes (namespace declarations included) one element may have. 256 by
    /// default: `XMLParser` (libxml2) checks for duplicate attributes in quadratic time, before
    /// any limit on the size of the document helps.
    ///
    /// ```swift
    /// let limits = XMLParsingLimits(maximumAttributesPerElement: 32)
    /// ```
    public var maximumAttributesPerElement: Int

    /// Creates limits; every argument has the default described on its property. A limit below 1
    /// refuses every document (a document has at least one element).
    ///
    /// ```swift
    /// let limits = XMLParsingLimits(maximumDepth: 64, maximumElementCount: 100_000)
    /// ```
    public init(maximumDepth: Int = 128, maximumElementCount: Int = 100_000, maximumAttributesPerElement: Int = 256) {
        self.maximumDepth = maximumDepth
        self.maximumElementCount = maximumElementCount
        self.maximumAttributesPerElement = maximumAttributesPerElement
    }

    /// The default limits: depth 128, 100,000 elements, 256 attributes per element.
    ///
    /// ```swift
    /// XMLParsingLimits.default.maximumDepth   // 128
    /// ```
    public static let `default` = XMLParsingLimits()

    /// No limits, for checking XML that CourierXML or XMLCoder wrote from the app's own values.
    static let unlimited = XMLParsingLimits(maximumDepth: .max, maximumElementCount: .max, maximumAttributesPerElement: .max)
}
