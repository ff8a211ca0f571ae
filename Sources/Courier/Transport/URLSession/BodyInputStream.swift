import Foundation

extension BodyPump {
    /// An `InputStream` that URLSession reads the body from.
    ///
    /// - Linux: corelibs-foundation opens the request's `httpBodyStream` and calls `read` on
    ///   libcurl's work queue whenever libcurl wants more bytes, so a subclass that reads from the
    ///   pump is all it takes.
    /// - Apple platforms: CFNetwork schedules the body stream on its own run loop through private
    ///   CFStream methods that an `InputStream` subclass does not have, so the body goes through a
    ///   bound stream pair instead, filled from the pump by a writer thread.
    func makeInputStream() -> InputStream {
        #if canImport(FoundationNetworking)
            return PumpInputStream(pump: self)
        #else
            var input: InputStream?
            var output: OutputStream?
            Stream.getBoundStreams(withBufferSize: bodyChunkSize, inputStream: &input, outputStream: &output)
            guard let input, let output else {
                failBody("the request body's bound stream pair could not be made")
                return InputStream(data: Data())
            }
            startWriter(to: output)
            return input
        #endif
    }

    /// Starts a thread that copies the pump into `output` (see ``write(to:)``).
    /// - Parameter onExit: called on that thread once it stopped writing (for tests).
    func startWriter(to output: OutputStream, onExit: (@Sendable () -> Void)? = nil) {
        // The stream is handed over: from here on only the writer thread touches it.
        nonisolated(unsafe) let output = output
        let writer = Thread { [self] in
            self.write(to: output)
            onExit?()
        }
        writer.name = "Courier.BodyPump"
        writer.start()
    }

    /// Copies the pump into `output` until the body ends, the pump fails or is cancelled, or the
    /// reader goes away; then closes `output`, which the reader sees as the end of the body.
    ///
    /// It writes only when `output` has space, so it never blocks inside `write` where nothing
    /// could wake it: while the reader is slower than the body, it waits on the pump instead, which
    /// a cancellation or failure wakes at once (and otherwise looks again every
    /// ``writerSpacePollInterval``). Compiled and tested on every platform; only Apple platforms'
    /// URLSession reads a bound stream.
    func write(to output: OutputStream) {
        output.open()
        defer { output.close() }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bodyChunkSize)
        defer { buffer.deallocate() }
        while true {
            let count = read(into: buffer, maxLength: bodyChunkSize)
            guard count > 0 else { return }  // 0: the end; -1: failed or cancelled
            var written = 0
            while written < count {
                guard waitForSpace(in: output) else { return }
                let result = output.write(buffer.advanced(by: written), maxLength: count - written)
                guard result > 0 else {
                    cancel()
                    return
                }
                written += result
            }
        }
    }

    /// Returns once `output` can take bytes: `false` instead when the pump was cancelled or failed,
    /// or the stream closed or failed, meanwhile (the pump is then cancelled).
    private func waitForSpace(in output: OutputStream) -> Bool {
        while !output.hasSpaceAvailable {
            switch output.streamStatus {
            case .error, .closed, .atEnd:
                cancel()
                return false
            default:
                break
            }
            guard waitWhileRunning(upTo: Self.writerSpacePollInterval) else { return false }
        }
        return true
    }
}

#if canImport(FoundationNetworking)
    /// The request body, as corelibs-foundation's URLSession reads it (see ``BodyPump/makeInputStream()``).
    ///
    /// Only libcurl's work queue calls it, after `open()`: `hasBytesAvailable` stays true until the
    /// end has been read, as corelibs stops at the first `false`; `read` blocks until the pump has
    /// bytes, returns `0` at the end and `-1` when the body failed (libcurl then aborts the transfer).
    final class PumpInputStream: InputStream {
        private let pump: BodyPump
        private var status = Stream.Status.notOpen

        init(pump: BodyPump) {
            self.pump = pump
            super.init(data: Data())
        }

        override func open() {
            status = .open
        }

        override func close() {
            status = .closed
        }

        override var streamStatus: Stream.Status {
            status
        }

        override var hasBytesAvailable: Bool {
            status == .open
        }

        override var streamError: (any Error)? {
            pump.error
        }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
            guard status == .open else { return status == .atEnd ? 0 : -1 }
            let count = pump.read(into: buffer, maxLength: length)
            if count == 0 { status = .atEnd }
            if count < 0 { status = .error }
            return count
        }

        override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
            false
        }
    }
#endif
