import Foundation

/// How a call decodes its response: the client's JSON decoder and
/// ``Configuration/responseDecoders``, and the endpoint's own ``Requestable/responseDecoder``.
///
/// A response carries its call's (``Response/decode(_:using:)``, ``StreamedResponse/decodedLines(_:decoder:maximumLength:)``),
/// so that decoding it later gives what ``Call/resume(expecting:)`` would have. A class, built
/// once per client: a call whose endpoint has no decoder of its own only adds a reference.
final class DecodingContext: Sendable {
    /// The decoder for JSON bodies (``Configuration/decoder``).
    let json: JSONDecoder
    /// The decoders for other media types, in order (``Configuration/responseDecoders``).
    let decoders: [any ResponseBodyDecoder]
    /// The endpoint's own decoder, which reads every body when set.
    let preferred: (any ResponseBodyDecoder)?

    init(json: JSONDecoder, decoders: [any ResponseBodyDecoder], preferred: (any ResponseBodyDecoder)? = nil) {
        self.json = json
        self.decoders = decoders
        self.preferred = preferred
    }

    /// A client's context, from its configuration.
    convenience init(_ configuration: Configuration) {
        self.init(json: configuration.decoder, decoders: configuration.responseDecoders)
    }

    /// What a client with the default configuration decodes with (``Configuration``'s defaults:
    /// a plain `JSONDecoder`, no other decoders): for a response made by hand.
    static let standard = DecodingContext(json: JSONDecoder(), decoders: [])

    /// This context for an endpoint with `decoder` as its own (this one when `nil`).
    func preferring(_ decoder: (any ResponseBodyDecoder)?) -> DecodingContext {
        guard let decoder else { return self }
        return DecodingContext(json: json, decoders: decoders, preferred: decoder)
    }
}

extension DecodingContext: CustomReflectable {
    /// Nothing: a decoder's `userInfo` may hold anything, and dumping a response must not show it.
    var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .class)
    }
}
