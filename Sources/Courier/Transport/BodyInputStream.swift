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
            guard let input, let output else { return InputStream(data: Data()) }
            let writer = Thread { [self] in
                self.write(to: output)
            }
            writer.name = "Courier.BodyPump"
            writer.start()
            return input
        #endif
    }

    #if !canImport(FoundationNetworking)
        /// Copies the pump into `output` until the body ends, the pump fails or the reader goes away.
        private func write(to output: OutputStream) {
            output.open()
            defer { output.close() }
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bodyChunkSize)
            defer { buffer.deallocate() }
            while true {
                let count = read(into: buffer, maxLength: bodyChunkSize)
                guard count > 0 else { return }
                var written = 0
                while written < count {
                    let result = output.write(buffer.advanced(by: written), maxLength: count - written)
                    guard result > 0 else {
                        cancel()
                        return
                    }
                    written += result
                }
            }
        }
    #endif
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
