#if AsyncHTTPClientLinked && !canImport(Darwin)
    import CNIOExtrasZlib
    @testable import Courier
    import CourierWebSockets
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket
    import PropertyBased
    import Testing

    /// permessage-deflate (RFC 7692): the server's answer checked, compressed messages inflated
    /// within the message limit, the window kept or not as agreed, and protocol breaks refused.
    @Suite("WebSocket permessage-deflate")
    struct WebSocketDeflateTests {
        // MARK: The server's answer

        @Test(
            "answers RFC 7692 allows are agreed",
            arguments: [
                ("permessage-deflate", false),
                ("permessage-deflate; server_no_context_takeover", true),
                ("PerMessage-Deflate ; client_max_window_bits=12; server_max_window_bits=\"9\"", false),
                ("permessage-deflate; client_no_context_takeover; server_no_context_takeover; server_max_window_bits=15", true),
                (", permessage-deflate ,", false),  // empty list elements are ignored (RFC 9110 §5.6.1)
            ])
        func agreed(_ answer: String, noContextTakeover: Bool) throws {
            let agreement = try PerMessageDeflate.agreement([answer])
            #expect(agreement == PerMessageDeflate.Agreement(serverNoContextTakeover: noContextTakeover))
        }

        @Test("no answer, or a blank one, is no extension")
        func noExtension() throws {
            #expect(try PerMessageDeflate.agreement([]) == nil)
            #expect(try PerMessageDeflate.agreement(["  "]) == nil)
            #expect(try PerMessageDeflate.agreement([" , ,"]) == nil)
        }

        @Test(
            "answers outside RFC 7692 are refused",
            arguments: [
                "x-webkit-deflate-frame", "permessage-deflate, permessage-deflate", "permessage-deflate; server_max_window_bits=16",
                "permessage-deflate; server_max_window_bits=7", "permessage-deflate; server_max_window_bits", "permessage-deflate; client_max_window_bits",
                "permessage-deflate; server_no_context_takeover; server_no_context_takeover", "permessage-deflate; server_no_context_takeover=1",
                "permessage-deflate; mystery", "permessage-deflate; server_max_window_bits=09", "permessage-deflate;",
            ])
        func refused(_ answer: String) {
            #expect(throws: PerMessageDeflate.Refusal.self) { try PerMessageDeflate.agreement([answer]) }
        }

        @Test("the server's answer is parsed safely, whatever it is (property)")
        func answersNeverTrap() async {
            let alphabet = Array("permessage-deflate;,= \"server_no_context_takeover15x")
            let answers = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }.array(of: 0...80).map { String($0) }
            await propertyCheck(count: 300, input: answers) { answer in
                if (try? PerMessageDeflate.agreement([answer])) != nil {
                    #expect(answer.lowercased().contains("permessage-deflate"))
                }
            }
        }

        // MARK: The inflater

        @Test("what a sender compresses inflates back, in any fragments, with the window kept or not (property)")
        func roundTrip() async throws {
            let messages = Gen.uint8(in: 0...3).array(of: 0...3000).array(of: 1...6)
            await propertyCheck(input: messages, Gen.bool, Gen.int(in: 1...7)) { messages, noContextTakeover, pieces in
                let deflater = TestDeflater()
                let inflater = try #require(try? BodyInflater(raw: true, resetsAfterMessage: noContextTakeover))
                for message in messages {
                    let compressed = deflater.compress(Data(message), reset: noContextTakeover)
                    var inflated = Data()
                    let cuts = Self.split(compressed, into: pieces)
                    for (index, piece) in cuts.enumerated() {
                        let out = try #require(try inflater.inflate(piece, final: index == cuts.count - 1, limit: 4000 - inflated.count))
                        inflated.append(out)
                    }
                    #expect(inflated == Data(message))
                }
            }
        }

        @Test("inflation stops at the limit: nothing over it is returned")
        func limit() throws {
            let inflater = try BodyInflater(raw: true)
            let bomb = TestDeflater().compress(Data(count: 16 << 20), reset: false)
            #expect(bomb.count < 20_000)
            #expect(try inflater.inflate(bomb, final: true, limit: 1 << 20) == nil)
            let small = TestDeflater().compress(Data(count: 1 << 20), reset: false)
            #expect(try BodyInflater(raw: true).inflate(small, final: true, limit: 1 << 20)?.count == 1 << 20)
        }

        @Test("data that is not raw deflate is refused")
        func garbage() throws {
            #expect(throws: (any Error).self) { try BodyInflater(raw: true).inflate(Data([0xFF, 0xFF, 0xFF, 0xFF]), final: true, limit: 100) }
        }

        // MARK: Frames

        @Test("RSV1 is refused without the extension, on a continuation and on a control frame")
        func reservedBit() throws {
            var plain = WebSocketAssembler(maximumMessageSize: 100)
            #expect(plain.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
            var continuation = WebSocketAssembler(maximumMessageSize: 100, inflater: try BodyInflater(raw: true))
            #expect(continuation.receive(fin: false, opcode: 1, compressed: false, reserved: false, masked: false, payload: Data("a".utf8)).failureCode == nil)
            #expect(continuation.receive(fin: true, opcode: 0, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
            var control = WebSocketAssembler(maximumMessageSize: 100, inflater: try BodyInflater(raw: true))
            #expect(control.receive(fin: true, opcode: 9, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
        }

        @Test("a compressed text message must inflate to UTF-8; one that does not inflate closes with 1007")
        func badCompressedMessages() throws {
            let deflater = TestDeflater()
            var assembler = WebSocketAssembler(maximumMessageSize: 100, inflater: try BodyInflater(raw: true))
            let invalid = deflater.compress(Data([0xC0, 0xAF]), reset: false)
            #expect(assembler.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: invalid).failureCode == 1007)
            var broken = WebSocketAssembler(maximumMessageSize: 100, inflater: try BodyInflater(raw: true))
            #expect(broken.receive(fin: true, opcode: 2, compressed: true, reserved: false, masked: false, payload: Data([0xFF, 0xFF])).failureCode == 1007)
        }

        // MARK: Over the network

        @Test("a server that agreed sends compressed, fragmented and plain messages; each arrives whole", arguments: [false, true])
        func overTheNetwork(noContextTakeover: Bool) async throws {
            let deflater = TestDeflater()
            let texts = ["hello", String(repeating: "courier ", count: 5_000), "hello"]
            var frames: [WebSocketFrame] = []
            for text in texts {
                let compressed = deflater.compress(Data(text.utf8), reset: noContextTakeover)
                let half = compressed.count / 2
                frames.append(WebSocketFrame(fin: false, rsv1: true, opcode: .text, data: ByteBuffer(bytes: compressed.prefix(half))))
                frames.append(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(bytes: compressed.dropFirst(half))))
            }
            frames.append(.text("plain"))
            let answer = noContextTakeover ? "permessage-deflate; server_no_context_takeover" : "permessage-deflate"
            try await WebSocketTestServer.run(plan: { [frames] _ in Self.plan(answer, frames) }) { server in
                let socket = try await WebSocketIntegrationTests.client().enqueue(SocketEndpoint(base: server.baseURL, pathString: "/z")).webSocket()
                var iterator = socket.messages.makeAsyncIterator()
                for text in texts + ["plain"] {
                    #expect(try await iterator.next() == .text(text))
                }
                #expect(server.requests.withLock { $0.first?.headers["Sec-WebSocket-Extensions"] } == [PerMessageDeflate.offer])
                await socket.close()
            }
        }

        @Test("a bomb from the server ends at the message limit with 1009 and responseTooLarge")
        func bomb() async throws {
            let bomb = TestDeflater().compress(Data(count: 8 << 20), reset: false)
            let frame = WebSocketFrame(fin: true, rsv1: true, opcode: .binary, data: ByteBuffer(bytes: bomb))
            try await WebSocketTestServer.run(plan: { _ in Self.plan("permessage-deflate", [frame]) }) { server in
                let socket = try await WebSocketIntegrationTests.client().enqueue(SocketEndpoint(base: server.baseURL, pathString: "/bomb"))
                    .webSocket(WebSocket.Options(maximumMessageSize: 64 << 10))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == 1009)
            }
        }

        @Test(
            "an extension answer the client did not offer fails the handshake",
            arguments: ["x-webkit-deflate-frame", "permessage-deflate; server_max_window_bits=20", "permessage-deflate; mystery=1"])
        func unofferedAnswer(_ answer: String) async throws {
            try await WebSocketTestServer.run(plan: { _ in Self.plan(answer, []) }) { server in
                let error = await #expect(throws: CourierError.self) {
                    try await WebSocketIntegrationTests.client().enqueue(SocketEndpoint(base: server.baseURL, pathString: "/x")).webSocket()
                }
                #expect(error?.transportKind == .badResponse)
            }
        }

        static func plan(_ answer: String, _ frames: [WebSocketFrame]) -> WebSocketTestServer.Plan {
            var plan = WebSocketTestServer.Plan()
            plan.headers.add(name: "Sec-WebSocket-Extensions", value: answer)
            plan.frames = frames
            return plan
        }

        /// `data` cut into at most `count` pieces (an empty one included when it is short).
        static func split(_ data: Data, into count: Int) -> [Data] {
            let size = max(1, data.count / count)
            var pieces: [Data] = []
            var start = data.startIndex
            while start < data.endIndex && pieces.count < count - 1 {
                let end = min(data.endIndex, start + size)
                pieces.append(data[start..<end])
                start = end
            }
            pieces.append(data[start...])
            return pieces
        }
    }

    extension WebSocketAssembler.Action {
        /// The close code of a failure, `nil` for any other action.
        var failureCode: UInt16? {
            if case .fail(let code, _) = self { return code }
            return nil
        }
    }

    /// Compresses messages as a permessage-deflate sender does: raw deflate, each message ended by
    /// a sync flush whose 4-byte tail is stripped (RFC 7692 §7.2.1).
    final class TestDeflater {
        private let stream: UnsafeMutablePointer<cnioextras_z_stream>

        init() {
            stream = .allocate(capacity: 1)
            stream.initialize(to: cnioextras_z_stream())
            _ = CNIOExtrasZlib_deflateInit2(stream, 6, CNIOEXTRAS_Z_DEFLATED, -15, 8, CNIOEXTRAS_Z_DEFAULT_STRATEGY)
        }

        deinit {
            _ = cnioextras_z_deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// One message compressed; `reset` empties the window after it (no context takeover).
        func compress(_ message: Data, reset: Bool) -> Data {
            var input = [UInt8](message)
            var output = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let stream = stream
            input.withUnsafeMutableBytes { input in
                stream.pointee.next_in = input.baseAddress.map { CNIOExtrasZlib_voidPtr_to_BytefPtr($0) }
                stream.pointee.avail_in = UInt32(input.count)
                repeat {
                    buffer.withUnsafeMutableBytes { out in
                        stream.pointee.next_out = CNIOExtrasZlib_voidPtr_to_BytefPtr(out.baseAddress!)
                        stream.pointee.avail_out = UInt32(out.count)
                        _ = cnioextras_z_deflate(stream, CNIOEXTRAS_Z_SYNC_FLUSH)
                        output.append(contentsOf: out.prefix(out.count - Int(stream.pointee.avail_out)))
                    }
                } while stream.pointee.avail_out == 0
                stream.pointee.next_in = nil
            }
            if reset { _ = cnioextras_z_deflateReset(stream) }
            return output.dropLast(4)
        }
    }
#endif
