#if AsyncHTTPClientLinked
    import CNIOExtrasZlib
    import Foundation
    import NIOCore
    import NIOHTTPCompression

    /// Inflates a `gzip` or `deflate` response body that streams with no size limit, a piece of
    /// at most ``pieceSize`` bytes at a time, so that its reader's backpressure bounds what is in
    /// memory however far the body inflates.
    ///
    /// async-http-client's own decompression inflates each read whole before anything can pause
    /// it: a read of 64 KiB that inflates 1,000-fold is 64 MB at once. Its limits only end the
    /// body (which a stream without a limit must not), so streamed bodies are inflated here.
    ///
    /// Used by one task only (the exchange's pull); the stream's memory is its own. A WebSocket's
    /// frame handler uses one in raw mode for permessage-deflate (``WebSocketInflater``).
    final class BodyInflater {
        /// The most one inflated piece holds.
        static let pieceSize = 64 << 10

        /// The `Content-Encoding`s inflated here, as async-http-client reads them: the first
        /// field's value, lowercased, `gzip` or `deflate` (zlib-wrapped; detected from the data).
        static func inflates(contentEncoding: String?) -> Bool {
            guard let encoding = contentEncoding?.lowercased() else { return false }
            return encoding == "gzip" || encoding == "deflate"
        }

        private let stream: UnsafeMutablePointer<cnioextras_z_stream>
        private var isInitialized = false
        /// Whether the compressed data ended (its trailer was read).
        private(set) var isComplete = false
        /// Whether any compressed byte arrived.
        private var receivedAny = false
        /// Where each piece is inflated before it is copied out at its size.
        private var scratch = [UInt8](repeating: 0, count: BodyInflater.pieceSize)

        /// Whether each message starts with an empty window (raw mode only).
        private let resetsAfterMessage: Bool
        /// What followed the end of the current WebSocket message's deflate stream (BFINAL).
        private var trailer = Data()

        /// An inflater of `gzip` or `zlib` data, or with `raw`, of raw deflate data (RFC 1951),
        /// whose window `resetsAfterMessage` empties after each WebSocket message.
        /// - Throws: the zlib failure that kept it from starting (out of memory).
        init(raw: Bool = false, resetsAfterMessage: Bool = false) throws(NIOHTTPDecompression.DecompressionError) {
            self.resetsAfterMessage = resetsAfterMessage
            stream = .allocate(capacity: 1)
            stream.initialize(to: cnioextras_z_stream())
            // 15 + 32: the largest window, with a gzip or zlib header detected from the data;
            // -15: the largest window, no header.
            let code = CNIOExtrasZlib_inflateInit2(stream, raw ? -15 : 15 + 32)
            guard code == CNIOEXTRAS_Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                throw .initializationError(Int(code))
            }
            isInitialized = true
        }

        deinit {
            if isInitialized { _ = cnioextras_z_inflateEnd(stream) }
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// Inflates `compressed`, handing each piece to `emit`, which returns `false` to stop
        /// (the reader went away).
        /// - Returns: `false` when `emit` stopped it.
        /// - Throws: `NIOHTTPDecompression.DecompressionError.inflationError` for data that is not
        ///   what the encoding says; `ExtraDecompressionError.invalidTrailingData` for bytes after
        ///   the end of the compressed data.
        func inflate(_ compressed: ByteBuffer, emit: (Data) async -> Bool) async throws -> Bool {
            var input = compressed
            receivedAny = receivedAny || input.readableBytes > 0
            var outputPending = false
            while true {
                if isComplete {
                    if input.readableBytes > 0 { throw NIOHTTPDecompression.ExtraDecompressionError.invalidTrailingData }
                    return true
                }
                if input.readableBytes == 0 && !outputPending { return true }
                let (written, consumed) = try input.withUnsafeReadableBytes { available throws in try step(available) }
                input.moveReaderIndex(forwardBy: consumed)
                if written > 0, await !emit(Data(scratch[..<written])) { return false }
                // A full piece may leave output in zlib's window; no progress at all needs input.
                outputPending = written == Self.pieceSize
                if written == 0 && consumed == 0 { return true }
            }
        }

        /// Checks that the compressed data ended: a body cut short inflates to less than was sent.
        /// An empty body is an empty body, whatever its `Content-Encoding`.
        /// - Throws: `ExtraDecompressionError.truncatedData`.
        func finish() throws {
            if receivedAny && !isComplete { throw NIOHTTPDecompression.ExtraDecompressionError.truncatedData }
        }

        /// Inflates what `available` holds into ``scratch``, at most ``pieceSize`` bytes.
        /// - Returns: how many bytes it wrote, and how many bytes of `available` it used.
        private func step(_ available: UnsafeRawBufferPointer) throws -> (written: Int, consumed: Int) {
            var code = CNIOEXTRAS_Z_OK
            var consumed = 0
            let stream = stream
            let written = scratch.withUnsafeMutableBytes { output -> Int in
                if let base = available.baseAddress {
                    stream.pointee.next_in = CNIOExtrasZlib_voidPtr_to_BytefPtr(UnsafeMutableRawPointer(mutating: base))
                }
                stream.pointee.avail_in = UInt32(clamping: available.count)
                stream.pointee.next_out = CNIOExtrasZlib_voidPtr_to_BytefPtr(output.baseAddress!)
                stream.pointee.avail_out = UInt32(output.count)
                defer {
                    stream.pointee.next_in = nil
                    stream.pointee.avail_in = 0
                    stream.pointee.next_out = nil
                    stream.pointee.avail_out = 0
                }
                code = cnioextras_z_inflate(stream, CNIOEXTRAS_Z_NO_FLUSH)
                consumed = Int(UInt32(clamping: available.count)) - Int(stream.pointee.avail_in)
                return output.count - Int(stream.pointee.avail_out)
            }
            switch code {
            case CNIOEXTRAS_Z_OK, CNIOEXTRAS_Z_BUF_ERROR:
                break  // more to come (a buffer error: no progress until more input arrives)
            case CNIOEXTRAS_Z_STREAM_END:
                isComplete = true
            default:
                throw NIOHTTPDecompression.DecompressionError.inflationError(Int(code))
            }
            return (written, consumed)
        }
    }

    extension BodyInflater: WebSocketInflater {
        /// The four bytes a sender strips from the end of each compressed message (RFC 7692 §7.2.2).
        private static let messageTail = Data([0, 0, 0xFF, 0xFF])

        func inflate(_ data: Data, final: Bool, limit: Int) throws -> Data? {
            let input = final ? data + Self.messageTail : data
            var output = Data()
            var offset = 0
            while !isComplete {
                let (written, consumed) = try input.withUnsafeBytes { bytes throws in try step(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
                offset += consumed
                guard written <= limit - output.count else { return nil }
                output.append(contentsOf: scratch[..<written])
                // A full piece may leave output in zlib's window; otherwise all input was used.
                if written < Self.pieceSize && (offset == input.count || consumed == 0) { break }
            }
            if isComplete {
                // What may follow a deflate stream's end (BFINAL): the tail appended here, after at
                // most one zero octet, the header of the empty stored block a sender's flush adds
                // (RFC 7692 §7.2.3.3), in this frame or a later one of the message.
                trailer.append(input.dropFirst(offset))
                let padding = trailer.count - (final ? Self.messageTail.count : 0)
                guard padding <= 1, trailer.prefix(max(padding, 0)).allSatisfy({ $0 == 0 }) else {
                    throw NIOHTTPDecompression.ExtraDecompressionError.invalidTrailingData
                }
            }
            if final {
                trailer = Data()
                if resetsAfterMessage || isComplete {
                    // A message that ended its deflate stream starts the next one afresh.
                    guard cnioextras_z_inflateReset(stream) == CNIOEXTRAS_Z_OK else { throw NIOHTTPDecompression.DecompressionError.inflationError(0) }
                    isComplete = false
                }
            }
            return output
        }
    }
#endif
