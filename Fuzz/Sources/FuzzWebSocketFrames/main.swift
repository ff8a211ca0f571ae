import Foundation
import FuzzSupport

// A server's WebSocket frames (`WebSocketAssembler`), as SwiftNIO's frame decoder hands them over.
//
// The first 2 bytes are the message limit (big-endian, 15 bits) and, in the top bit, whether
// permessage-deflate was negotiated; then frames, each a header byte (bit 7 FIN, bit 6 RSV2,
// bit 5 masked, bit 4 RSV1 (compressed), bits 0–3 the opcode), a length byte and that many
// payload bytes. Compressed messages go through a model inflater that repeats each byte
// `byte & 7` times and refuses 0xFF. Invariants: never traps; a delivered message is at most the
// limit and is exactly its fragments (inflated when compressed; text or binary as its first frame
// said); after a close or a failure nothing more happens; a peer's close code is one a peer may
// send, or 1005; a failure closes with 1002, 1007 or 1009. The whole input is also a server's
// `Sec-WebSocket-Extensions` answer: an agreement only for permessage-deflate.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzWebSocketFrames_main` (see `runLibFuzzer`).
@_cdecl("FuzzWebSocketFrames_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if let agreement = try? PerMessageDeflate.agreement([String(decoding: bytes, as: UTF8.self)]) {
        check(String(decoding: bytes, as: UTF8.self).lowercased().contains("permessage-deflate"), "an agreement on \(agreement) from another extension")
    }
    guard bytes.count >= 2 else { return 0 }
    let limit = Int(bytes[0] & 0x7F) << 8 | Int(bytes[1])
    let negotiated = bytes[0] & 0x80 != 0
    var assembler = WebSocketAssembler(maximumMessageSize: limit, inflater: negotiated ? RepeatingInflater() : nil)
    var index = 2
    // The model: the fragments of the message in progress (inflated), and whether it is compressed.
    var fragments: (isText: Bool, data: Data)?
    var compressedMessage = false
    var ended = false
    while index + 2 <= bytes.count {
        let header = bytes[index], length = Int(bytes[index + 1])
        var payload = Data(bytes[(index + 2)..<min(bytes.count, index + 2 + length)])
        index += 2 + length
        let fin = header & 0x80 != 0, reserved = header & 0x40 != 0, masked = header & 0x20 != 0, opcode = header & 0x0F
        let compressed = header & 0x10 != 0
        let action = assembler.receive(fin: fin, opcode: opcode, compressed: compressed, reserved: reserved, masked: masked, payload: payload)
        if opcode == 1 || opcode == 2 { compressedMessage = compressed }
        if compressedMessage && (opcode <= 2) { payload = RepeatingInflater.model(payload) }
        guard !ended else {
            if case .none = action {} else { check(false, "an action after the end: \(action)") }
            continue
        }
        switch action {
        case .none:
            check(!fin || opcode == 0 || opcode == 1 || opcode == 2, "a whole control frame did nothing")
            if opcode == 0 {
                fragments?.data.append(payload)
            } else {
                fragments = (opcode == 1, payload)
            }
        case .deliver(let message):
            var expected = fragments?.data ?? Data()
            let isText = opcode == 0 ? fragments?.isText ?? false : opcode == 1
            if opcode == 0 { expected.append(payload) } else { expected = payload }
            switch message {
            case .text(let text):
                check(isText, "a binary message delivered as text")
                check(Data(text.utf8) == expected, "a text message that is not its fragments")
            case .data(let data):
                check(!isText, "a text message delivered as binary")
                check(data == expected, "a binary message that is not its fragments")
            }
            check(expected.count <= limit, "a message of \(expected.count) bytes over the limit \(limit)")
            fragments = nil
        case .pong(let echoed):
            check(opcode == 9 && echoed == payload, "a pong that does not echo a ping")
        case .ponged:
            check(opcode == 10, "a pong from another opcode")
        case .closed(let close):
            check(opcode == 8, "a close from another opcode")
            check(close.code == 1005 || WebSocketClose.isValidOnTheWire(close.code), "the close code \(close.code)")
            ended = true
        case .fail(let code, _):
            check([1002, 1007, 1009].contains(code), "a failure with code \(code)")
            ended = true
        }
        check(assembler.isEnded == ended, "isEnded disagrees")
        check(!compressed || negotiated || ended, "a compressed frame accepted without permessage-deflate")
    }
    return 0
}

/// A model of an inflater: each byte repeated `byte & 7` times; 0xFF is not deflate.
final class RepeatingInflater: WebSocketInflater {
    static func model(_ data: Data) -> Data {
        Data(data.flatMap { repeatElement($0, count: Int($0 & 7)) })
    }

    func inflate(_ data: Data, final: Bool, limit: Int) throws -> Data? {
        guard !data.contains(0xFF) else { throw CancellationError() }
        let inflated = Self.model(data)
        return inflated.count <= limit ? inflated : nil
    }
}
