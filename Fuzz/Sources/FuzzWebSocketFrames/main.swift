import Foundation
import FuzzSupport

// A server's WebSocket frames (`WebSocketAssembler`), as SwiftNIO's frame decoder hands them over.
//
// The first 2 bytes are the message limit (big-endian, 0–65535); then frames, each a header byte
// (bit 7 FIN, bit 6 a reserved bit, bit 5 masked, bits 0–3 the opcode), a length byte and that
// many payload bytes. Invariants: never traps; a delivered message is at most the limit and is
// exactly the concatenation of its fragments (text or binary as its first frame said); after a
// close or a failure nothing more happens; a peer's close code is one a peer may send, or 1005;
// a failure closes with 1002, 1007 or 1009.
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
    guard bytes.count >= 2 else { return 0 }
    let limit = Int(bytes[0]) << 8 | Int(bytes[1])
    var assembler = WebSocketAssembler(maximumMessageSize: limit)
    var index = 2
    // The model: the fragments of the message in progress.
    var fragments: (isText: Bool, data: Data)?
    var ended = false
    while index + 2 <= bytes.count {
        let header = bytes[index], length = Int(bytes[index + 1])
        let payload = Data(bytes[(index + 2)..<min(bytes.count, index + 2 + length)])
        index += 2 + length
        let fin = header & 0x80 != 0, reserved = header & 0x40 != 0, masked = header & 0x20 != 0, opcode = header & 0x0F
        let action = assembler.receive(fin: fin, opcode: opcode, reserved: reserved, masked: masked, payload: payload)
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
    }
    return 0
}
