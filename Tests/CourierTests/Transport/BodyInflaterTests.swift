#if AsyncHTTPClientLinked
    import CNIOExtrasZlib
    import Foundation
    import NIOCore
    import NIOHTTPCompression
    import Testing

    @testable import Courier

    /// The inflater of streamed bodies on async-http-client: whatever a read inflates to, it is
    /// handed over a bounded piece at a time, and a reader that stops stops the inflation.
    @Suite("BodyInflater: streamed gzip and deflate, a bounded piece at a time")
    struct BodyInflaterTests {
        enum Format: String, CaseIterable, Sendable {
            case gzip, deflate

            /// zlib's window bits for this format (`deflate` is zlib-wrapped, RFC 9110 §8.4.1.2).
            var windowBits: Int32 { self == .gzip ? 15 + 16 : 15 }
        }

        /// `data` compressed in `format` at zlib's best compression.
        static func compress(_ data: Data, _ format: Format) -> Data {
            var stream = cnioextras_z_stream()
            #expect(CNIOExtrasZlib_deflateInit2(&stream, 9, CNIOEXTRAS_Z_DEFLATED, format.windowBits, 8, CNIOEXTRAS_Z_DEFAULT_STRATEGY) == CNIOEXTRAS_Z_OK)
            defer { _ = cnioextras_z_deflateEnd(&stream) }
            var input = [UInt8](data)
            var output = [UInt8](repeating: 0, count: data.count / 2 + 1_024)
            var written = 0
            input.withUnsafeMutableBytes { source in
                stream.next_in = CNIOExtrasZlib_voidPtr_to_BytefPtr(source.baseAddress!)
                stream.avail_in = UInt32(source.count)
                while true {
                    if written == output.count { output.append(contentsOf: [UInt8](repeating: 0, count: output.count)) }
                    let code = output.withUnsafeMutableBytes { target -> Int32 in
                        stream.next_out = CNIOExtrasZlib_voidPtr_to_BytefPtr(target.baseAddress! + written)
                        stream.avail_out = UInt32(target.count - written)
                        let code = cnioextras_z_deflate(&stream, CNIOEXTRAS_Z_FINISH)
                        written = target.count - Int(stream.avail_out)
                        return code
                    }
                    if code == CNIOEXTRAS_Z_STREAM_END { break }
                }
            }
            return Data(output[..<written])
        }

        /// Feeds `compressed` in reads of `readSize` bytes and collects what comes out.
        static func inflate(_ compressed: Data, readSize: Int) async throws -> (Data, largestPiece: Int) {
            let inflater = try BodyInflater()
            var output = Data()
            var largest = 0
            var offset = 0
            while offset < compressed.count {
                let read = ByteBuffer(bytes: compressed[offset..<min(offset + readSize, compressed.count)])
                offset += readSize
                _ = try await inflater.inflate(read) { piece in
                    largest = max(largest, piece.count)
                    output.append(piece)
                    return true
                }
            }
            try inflater.finish()
            return (output, largest)
        }

        @Test("a body inflates to what was compressed, whatever the size of the reads", arguments: Format.allCases, [1, 4_096, 1 << 20])
        func roundTrip(format: Format, readSize: Int) async throws {
            var generator = SystemRandomNumberGenerator()
            let text = Data((0..<100_000).map { index in index % 7 == 0 ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "a") })
            let (inflated, largest) = try await Self.inflate(Self.compress(text, format), readSize: readSize)
            #expect(inflated == text)
            #expect(largest <= BodyInflater.pieceSize)
        }

        @Test("a 64 KiB read of a bomb comes out in pieces of at most 64 KiB, and a reader that stops gets one", arguments: Format.allCases)
        func aBombIsInflatedAPieceAtATime(format: Format) async throws {
            let bomb = Self.compress(Data(count: 64 << 20), format)
            #expect(bomb.count < 100_000)
            let inflater = try BodyInflater()
            var pieces = 0
            var total = 0
            let goesOn = try await inflater.inflate(ByteBuffer(bytes: bomb)) { piece in
                #expect(piece.count <= BodyInflater.pieceSize)
                pieces += 1
                total += piece.count
                return pieces < 3
            }
            // Stopped by the reader after three pieces: nothing more was inflated.
            #expect(!goesOn && pieces == 3 && total == 3 * BodyInflater.pieceSize)
        }

        @Test("a body cut short, bytes after its end, and data that is not compressed fail; an empty body is empty")
        func malformedBodies() async throws {
            let body = Self.compress(Data(repeating: 42, count: 100_000), .gzip)
            await #expect(throws: NIOHTTPDecompression.ExtraDecompressionError.truncatedData) {
                _ = try await Self.inflate(body.dropLast(9), readSize: 512)
            }
            await #expect(throws: NIOHTTPDecompression.ExtraDecompressionError.invalidTrailingData) {
                _ = try await Self.inflate(body + Data("junk".utf8), readSize: 512)
            }
            await #expect(throws: NIOHTTPDecompression.DecompressionError.self) {
                _ = try await Self.inflate(Data("this is not gzip at all, not even close".utf8), readSize: 512)
            }
            #expect(try await Self.inflate(Data(), readSize: 512).0.isEmpty)
        }

        /// A fuzz-like sweep (the fuzz package does not build the async-http-client trait):
        /// mutated and arbitrary bodies, in arbitrary reads, end in a body or a thrown error, and
        /// never trap, hang or hand over a piece past the bound.
        @Test("2,000 mutated or arbitrary bodies end in a body or an error, never a trap or an oversized piece")
        func mutatedBodies() async throws {
            var generator = SplitMix64(seed: 37)
            let valid = [Self.compress(Data(repeating: 7, count: 200_000), .gzip), Self.compress(Data("hello".utf8), .deflate)]
            for round in 0..<2_000 {
                let arbitraryCount = Int.random(in: 0...64, using: &generator)
                var body =
                    round % 4 == 0 ? Data((0..<arbitraryCount).map { _ in UInt8.random(in: 0...255, using: &generator) }) : valid[round % 2]
                if round % 4 != 0, !body.isEmpty {
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        body[Int.random(in: 0..<body.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                    }
                }
                do {
                    let (_, largest) = try await Self.inflate(body, readSize: Int.random(in: 1...8_192, using: &generator))
                    #expect(largest <= BodyInflater.pieceSize)
                } catch {
                    #expect(error is NIOHTTPDecompression.DecompressionError || error is NIOHTTPDecompression.ExtraDecompressionError)
                }
            }
        }
    }

#endif
