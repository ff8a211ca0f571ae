import Foundation

/// Turns a peer's WebSocket frames into messages (RFC 6455 §5): a pure value, checked frame by
/// frame, that a transport feeds and obeys. It enforces the rules a client must: no reserved bits
/// (no extension was negotiated), no masked frames from a server, control frames whole and at
/// most 125 bytes, continuations only inside a fragmented message, text valid UTF-8, valid close
/// codes, and a bound on the size of one message.
struct WebSocketAssembler {
    /// What the transport does with a frame.
    enum Action {
        /// Nothing yet (a fragment was kept).
        case none
        /// A whole message for the reader.
        case deliver(WebSocket.Message)
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
    private var fragments: (isText: Bool, data: Data)?
    /// Whether the socket ended; every later frame is ignored.
    private(set) var isEnded = false

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = max(0, maximumMessageSize)
    }

    /// The action for one frame: `fin`, its 4-bit `opcode`, whether any reserved bit or a mask
    /// was set, and its (unmasked) payload.
    mutating func receive(fin: Bool, opcode rawOpcode: UInt8, reserved: Bool, masked: Bool, payload: Data) -> Action {
        guard !isEnded else { return .none }
        guard !reserved else { return fail(1002, "a frame with a reserved bit set, and no extension was negotiated") }
        guard !masked else { return fail(1002, "a masked frame from the server") }
        guard let opcode = Opcode(rawValue: rawOpcode) else { return fail(1002, "an unknown opcode \(rawOpcode)") }
        switch opcode {
        case .close, .ping, .pong:
            guard fin, payload.count <= 125 else { return fail(1002, "a fragmented or longer than 125 bytes control frame") }
            switch opcode {
            case .ping: return .pong(payload)
            case .pong: return .ponged
            default: return close(payload)
            }
        case .text, .binary:
            guard fragments == nil else { return fail(1002, "a new message inside a fragmented one") }
            return append(payload, isText: opcode == .text, fin: fin, starting: true)
        case .continuation:
            guard let fragments else { return fail(1002, "a continuation frame outside a fragmented message") }
            return append(payload, isText: fragments.isText, fin: fin, starting: false)
        }
    }

    private mutating func append(_ payload: Data, isText: Bool, fin: Bool, starting: Bool) -> Action {
        let kept = starting ? 0 : fragments?.data.count ?? 0
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
            fragments = (isText, data)
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
