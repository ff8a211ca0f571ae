import Foundation

/// Turns a peer's WebSocket frames into messages (RFC 6455 §5), checked frame by frame, that a
/// transport feeds and obeys. It enforces the rules a client must: no reserved bits but RSV1 on
/// the first frame of a compressed message when permessage-deflate was negotiated (RFC 7692), no
/// masked frames from a server, control frames whole and at most 125 bytes, continuations only
/// inside a fragmented message, text valid UTF-8, valid close codes, and a bound on the size of
/// one message, inflated.
///
/// A value but for its ``inflater``, whose window is the deflate context that messages share.
struct WebSocketAssembler {
    /// What the transport does with a frame.
    enum Action {
        /// Nothing yet (a fragment was kept).
        case none
        /// A whole message for the reader.
        case deliver(WebSocketMessage)
        /// Answer with a pong carrying `payload`.
        case pong(Data)
        /// A pong arrived: waiting pings are answered.
        case ponged
        /// The peer closed: answer (if not yet sent) and end the socket with `close` (code 1005
        /// when the frame carried none).
        case closed(WebSocketClose)
        /// The peer broke the protocol: send a close with `code` and end the socket with `failure`.
        case fail(code: UInt16, failure: CourierError)
    }

    /// The opcodes of RFC 6455 §5.2.
    enum Opcode: UInt8 {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
    }

    let maximumMessageSize: Int
    /// Inflates compressed messages; `nil` when permessage-deflate was not negotiated.
    let inflater: (any WebSocketInflater)?
    private var fragments: (isText: Bool, compressed: Bool, data: Data)?
    /// Whether the socket ended; every later frame is ignored.
    private(set) var isEnded = false

    init(maximumMessageSize: Int, inflater: (any WebSocketInflater)? = nil) {
        self.maximumMessageSize = max(0, maximumMessageSize)
        self.inflater = inflater
    }

    /// The action for one frame: `fin`, its 4-bit `opcode`, its reserved bits (RSV1 as `compressed`,
    /// RSV2 or RSV3 as `reserved`), whether it was masked, and its (unmasked) payload.
    mutating func receive(fin: Bool, opcode rawOpcode: UInt8, compressed: Bool = false, reserved: Bool, masked: Bool, payload: Data) -> Action {
        guard !isEnded else { return .none }
        guard !reserved, !compressed || inflater != nil else {
            return fail(1002, "a frame with a reserved bit set that no negotiated extension defines")
        }
        guard !masked else { return fail(1002, "a masked frame from the server") }
        guard let opcode = Opcode(rawValue: rawOpcode) else { return fail(1002, "an unknown opcode \(rawOpcode)") }
        switch opcode {
        case .close, .ping, .pong:
            guard fin, payload.count <= 125 else { return fail(1002, "a fragmented or longer than 125 bytes control frame") }
            guard !compressed else { return fail(1002, "a compressed control frame") }
            switch opcode {
            case .ping: return .pong(payload)
            case .pong: return .ponged
            default: return close(payload)
            }
        case .text, .binary:
            guard fragments == nil else { return fail(1002, "a new message inside a fragmented one") }
            return append(payload, isText: opcode == .text, compressed: compressed, fin: fin, starting: true)
        case .continuation:
            guard let fragments else { return fail(1002, "a continuation frame outside a fragmented message") }
            guard !compressed else { return fail(1002, "RSV1 on a continuation frame") }
            return append(payload, isText: fragments.isText, compressed: fragments.compressed, fin: fin, starting: false)
        }
    }

    private mutating func append(_ received: Data, isText: Bool, compressed: Bool, fin: Bool, starting: Bool) -> Action {
        let kept = starting ? 0 : fragments?.data.count ?? 0
        let payload: Data
        if compressed, let inflater {
            do {
                guard let inflated = try inflater.inflate(received, final: fin, limit: maximumMessageSize - kept) else {
                    fragments = nil
                    return fail(1009, limit: true)
                }
                payload = inflated
            } catch {
                fragments = nil
                return fail(1007, "a compressed message that does not inflate")
            }
        } else {
            payload = received
        }
        guard payload.count <= maximumMessageSize - kept else {
            fragments = nil
            return fail(1009, limit: true)
        }
        var data = starting ? Data() : fragments?.data ?? Data()
        if starting && fin {
            data = payload
        } else {
            fragments = nil  // one copy of the buffer while it grows
            data.append(payload)
        }
        guard fin else {
            fragments = (isText, compressed, data)
            return .none
        }
        fragments = nil
        guard isText else { return .deliver(.data(data)) }
        guard let text = String(strictUTF8: data) else { return fail(1007, "a text message that is not valid UTF-8") }
        return .deliver(.text(text))
    }

    private mutating func close(_ payload: Data) -> Action {
        isEnded = true
        guard !payload.isEmpty else { return .closed(WebSocketClose(code: 1005)) }
        guard payload.count >= 2 else { return fail(1002, "a close frame of one byte") }
        let code = UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1])
        guard WebSocketClose.isValidOnTheWire(code) else { return fail(1002, "the close code \(code), which a peer may not send") }
        guard let reason = String(strictUTF8: payload.dropFirst(2)) else { return fail(1007, "a close reason that is not valid UTF-8") }
        return .closed(WebSocketClose(code: code, reason: reason))
    }

    private mutating func fail(_ code: UInt16, _ reason: String = "", limit: Bool = false) -> Action {
        isEnded = true
        let failure: CourierError =
            limit
            ? .transport(
                TransportFailure(
                    synthesizing: .responseTooLarge, url: nil,
                    message: "a WebSocket message exceeded the limit of \(maximumMessageSize) bytes"))
            : .transport(TransportFailure(synthesizing: .badResponse, url: nil, message: "the WebSocket peer sent \(reason)"))
        return .fail(code: code, failure: failure)
    }

    /// The payload of a close frame with `close`'s code and reason (cut to 123 bytes).
    static func closePayload(_ close: WebSocketClose) -> Data {
        guard close.code != 1005 else { return Data() }
        return Data([UInt8(close.code >> 8), UInt8(close.code & 0xFF)]) + Data(WebSocketClose.wireReason(close.reason).utf8)
    }
}

/// Inflates the messages of a socket that negotiated permessage-deflate (RFC 7692), one piece of
/// a message at a time, keeping the window between messages unless the server takes none over.
protocol WebSocketInflater: AnyObject {
    /// Inflates the next compressed piece of a message (`final`: its last frame).
    /// - Returns: the inflated bytes, or `nil` when they would exceed `limit` bytes (inflation
    ///   stops there: a bomb never fills memory).
    /// - Throws: when the data is not raw deflate.
    func inflate(_ data: Data, final: Bool, limit: Int) throws -> Data?
}

/// permessage-deflate (RFC 7692) as a client negotiates it: the offer it sends, and the check of
/// the server's answer. The client never compresses what it sends (RFC 7692 lets either side
/// send a message uncompressed), so only the server's parameters matter.
enum PerMessageDeflate {
    /// The `Sec-WebSocket-Extensions` offer: the client accepts any window the server asks for.
    static let offer = "permessage-deflate; client_max_window_bits"

    /// What the server's answer settled.
    struct Agreement: Equatable {
        /// Whether the server starts each message with an empty window.
        var serverNoContextTakeover = false
    }

    /// The agreement in the server's `Sec-WebSocket-Extensions` fields: `nil` when it accepted no
    /// extension.
    /// - Throws: `Refusal` for any other extension, parameter, repeated parameter or value.
    static func agreement(_ fields: [String]) throws(Refusal) -> Agreement? {
        // Empty list elements are ignored (RFC 9110 §5.6.1).
        let extensions = fields.flatMap { $0.split(separator: ",") }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard extensions.count == 1 else { throw Refusal(reason: "the server chose more than one extension") }
        let parts = extensions[0].split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts[0].lowercased() == "permessage-deflate" else {
            throw Refusal(reason: "the server chose the extension \(Redaction.singleLine(String(parts[0])).debugDescription), which was not offered")
        }
        var agreement = Agreement()
        var seen = Set<String>()
        for parameter in parts.dropFirst() {
            // Empty pieces kept: an empty parameter (`;;`, a trailing `;`) or value (`name=`) is refused, not skipped.
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            guard seen.insert(name).inserted else { throw Refusal(reason: "the server repeated the permessage-deflate parameter \(name)") }
            var value = pair.count > 1 ? pair[1] : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") { value = String(quoted.dropFirst().dropLast()) }
            switch (name, value) {
            case ("server_no_context_takeover", nil): agreement.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): break
            case ("server_max_window_bits", let bits?), ("client_max_window_bits", let bits?):
                guard let bits = Int(bits), (8...15).contains(bits), bits.description == value else {
                    throw Refusal(reason: "the server's permessage-deflate \(name) is not 8 to 15")
                }
            default:
                let shown = Redaction.singleLine(parameter).debugDescription
                throw Refusal(reason: "the server's permessage-deflate parameter \(shown) is not one RFC 7692 defines")
            }
        }
        return agreement
    }

    /// Why a server's answer was refused.
    struct Refusal: Error {
        let reason: String
    }
}
