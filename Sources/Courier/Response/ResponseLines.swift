public import Foundation
import HTTPTypes

extension StreamedResponse {
    /// The body as lines of text, as they arrive: each line without its terminator (`LF` or
    /// `CRLF`), decoded as UTF-8 (a malformed sequence becomes U+FFFD). A last line with no
    /// terminator is delivered too; an empty body has no lines.
    ///
    /// ```swift
    /// for try await line in try await client.enqueue(TailLog()).stream().lines() {
    ///     print(line)
    /// }
    /// ```
    /// - Parameter maximumLength: the most bytes one line may have (1 MiB by default). A server
    ///   that never sends a line break cannot make the reader buffer more: past it, reading fails
    ///   with a ``TransportFailure/Kind/responseTooLarge`` failure and the transfer is stopped.
    public func lines(maximumLength: Int = 1 << 20) -> ResponseLines {
        ResponseLines(body: body, url: head.url, maximumLength: maximumLength)
    }

    /// The body as newline-delimited JSON (NDJSON, JSON Lines): one `T` per line, decoded as it
    /// arrives. Blank lines are skipped.
    ///
    /// ```swift
    /// for try await event in try await client.enqueue(Changes()).stream().decodedLines(Change.self) {
    ///     apply(event)
    /// }
    /// ```
    /// - Parameters:
    ///   - type: the type each line decodes to.
    ///   - decoder: decodes each line; by default the JSON decoder of the client that received
    ///     the response (``Configuration/decoder``).
    ///   - maximumLength: the most bytes one line may have, as for ``lines(maximumLength:)``.
    /// - Returns: a sequence that throws ``CourierError/decoding(_:)`` for a line that is not a
    ///   `T` (the failure's ``DecodingFailure/response`` holds that line as its body) and stops
    ///   the transfer, or what reading the body throws.
    public func decodedLines<T: Decodable & Sendable>(
        _ type: T.Type, decoder: JSONDecoder? = nil, maximumLength: Int = 1 << 20
    ) -> DecodedLines<T> {
        DecodedLines(
            lines: ResponseLines(body: body, url: head.url, maximumLength: maximumLength), head: head,
            decoder: decoder ?? (self.decoding ?? .standard).json)
    }
}

/// A streamed body's lines of text (``StreamedResponse/lines(maximumLength:)``).
public struct ResponseLines: AsyncSequence, Sendable {
    /// A line, without its terminator.
    public typealias Element = String
    /// Reading lines fails only with ``CourierError``.
    public typealias Failure = CourierError

    let body: ResponseBody
    let url: URL
    let maximumLength: Int

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), body: body, splitter: LineSplitter(maximumLength: maximumLength), url: url)
    }

    /// Reads lines in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Reading lines fails only with ``CourierError``.
        public typealias Failure = CourierError

        var chunks: ResponseBody.Iterator
        let body: ResponseBody
        var splitter: LineSplitter
        let url: URL

        /// The next line, or `nil` at the end of the body.
        /// - Throws: a ``TransportFailure/Kind/responseTooLarge`` failure for a line past the
        ///   maximum length, or what reading the body throws.
        public mutating func next() async throws(CourierError) -> String? {
            guard let bytes = try await nextBytes() else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// ``next()``; the isolation does not matter, as lines are `Sendable`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> String? {
            try await next()
        }

        /// The next line's bytes.
        mutating func nextBytes() async throws(CourierError) -> Data? {
            while true {
                switch splitter.nextLine() {
                case .line(let line): return line
                case .tooLong:
                    body.cancel()
                    throw .transport(.responseTooLarge(limit: splitter.maximumLength, url: url))
                case .needsMore: break
                }
                guard let chunk = try await chunks.next() else { return splitter.finish() }
                splitter.append(chunk)
            }
        }
    }
}

/// A streamed body's newline-delimited JSON values (``StreamedResponse/decodedLines(_:decoder:maximumLength:)``).
public struct DecodedLines<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A value decoded from one line.
    public typealias Element = Value
    /// Reading values fails only with ``CourierError``.
    public typealias Failure = CourierError

    let lines: ResponseLines
    /// The head of the response the lines come from, for the response a decoding error keeps.
    let head: ResponseHead
    let decoder: JSONDecoder

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), sequence: self)
    }

    /// Reads values in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Reading values fails only with ``CourierError``.
        public typealias Failure = CourierError

        var lines: ResponseLines.Iterator
        let sequence: DecodedLines

        /// The next value, or `nil` at the end of the body.
        /// - Throws: ``CourierError/decoding(_:)`` for a line that is not a `Value`, or what
        ///   reading the lines throws.
        public mutating func next() async throws(CourierError) -> Value? {
            while let line = try await lines.nextBytes() {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                do {
                    return try sequence.decoder.decode(Value.self, from: line)
                } catch {
                    sequence.lines.body.cancel()
                    let response = Response(head: sequence.head, body: line)
                    let reason: DecodingFailure.Reason = (error as? DecodingError).map { .decodingError($0) } ?? .decoderError(error)
                    throw .decoding(DecodingFailure(reason: reason, response: response, expectedType: String(describing: Value.self)))
                }
            }
            return nil
        }

        /// ``next()``; the isolation does not matter, as values are `Sendable`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Value? {
            try await next()
        }
    }
}

/// Splits bytes into lines ended by `LF` or `CRLF`, holding at most `maximumLength` bytes of an
/// unfinished line: a pure value, fed chunks as they arrive.
struct LineSplitter: Sendable {
    let maximumLength: Int
    private var buffer = Data()
    /// Where the search for the next `LF` resumes: the bytes before it hold none.
    private var scanned = 0

    init(maximumLength: Int) {
        self.maximumLength = max(1, maximumLength)
    }

    enum Next: Equatable {
        case line(Data)
        case needsMore
        case tooLong
    }

    mutating func append(_ chunk: Data) {
        if buffer.isEmpty {
            buffer = chunk
            scanned = 0
        } else {
            buffer.append(chunk)
        }
    }

    /// The next complete line, if the buffer holds one.
    mutating func nextLine() -> Next {
        let start = buffer.startIndex
        if let newline = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start, buffer[end - 1] == 0x0D { end -= 1 }
            guard end - start <= maximumLength else { return .tooLong }
            let line = Data(buffer[start..<end])
            buffer = buffer[(newline + 1)...]
            scanned = 0
            if buffer.isEmpty { buffer = Data() }
            return .line(line)
        }
        scanned = buffer.count
        // An unfinished line may end with the CR of a CRLF still to come.
        let pending = buffer.last == 0x0D ? buffer.count - 1 : buffer.count
        return pending > maximumLength ? .tooLong : .needsMore
    }

    /// The last line, unterminated, at the end of the body; `nil` when nothing is left.
    mutating func finish() -> Data? {
        defer {
            buffer = Data()
            scanned = 0
        }
        let line = buffer.last == 0x0D ? buffer.dropLast() : buffer[...]
        return line.isEmpty && buffer.isEmpty ? nil : Data(line)
    }
}
