import Courier
import CourierWebSockets
import Foundation

/// Transfers against the demo API: a Server-Sent Events stream that survives a dropped
/// connection, and a download to disk that resumes after one.
extension Demo {
    /// Reads the event stream to its end: the server ends the first stream after event 3,
    /// the source reconnects with `Last-Event-ID: 3` after the server's `retry: 100`, gets events
    /// 4–6, and the next reconnection is answered 204 (no more events), which ends the loop.
    func serverSentEvents() async -> Outcome {
        let started = ContinuousClock.now
        var ids: [String] = []
        do {
            for try await event in client.enqueue(StreamEvents(api: api)).events() where event.type == "progress" {
                ids.append(event.id ?? "?")
            }
        } catch {
            return unexpected(error, expected: "six events over two connections")
        }
        guard ids == ["1", "2", "3", "4", "5", "6"] else {
            return .failed("expected events 1…6 once each, in order, got \(ids)")
        }
        return .passed("events 1–3, the stream closed, events 4–6 after Last-Event-ID: 3, then 204; \(Self.format(ContinuousClock.now - started))")
    }
}

extension Demo {
    /// Downloads the 64 MiB report to a temporary file, drawing a progress bar when stdout is a
    /// terminal. The server drops the connection halfway; the download continues with `Range`
    /// and `If-Range` and the file ends whole (checked byte by byte against the pattern).
    func download() async -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        let bar = ProgressBar()
        let started = ContinuousClock.now
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let call = client.enqueue(DownloadReport(api: api, dropOnce: true)).withProgress()
            async let drawn: Void = bar.draw(call.downloadProgress)
            let file = try await call.download(to: destination)
            await drawn  // the progress ends with the download: the last value is drawn
            bar.clear()
            let elapsed = ContinuousClock.now - started
            guard let mismatch = Self.firstMismatch(in: destination) else {
                let mebibytes = Double(file.byteCount) / Double(1 << 20)
                return .passed(
                    String(format: "%.0f MiB to disk; dropped halfway, resumed %d× with Range/If-Range; byte-identical; ", mebibytes, file.resumeCount)
                        + Self.format(elapsed))
            }
            return .failed("the file differs from the server's at byte \(mismatch)")
        } catch let error as CourierError {
            bar.clear()
            return unexpected(error, expected: "the whole file on disk")
        } catch {
            bar.clear()
            return .failed("could not make a temporary directory: \(error)")
        }
    }

    /// The first offset where the file is not the pattern `i % 251` (or is too short or long),
    /// or `nil` when it is exactly the server's file.
    static func firstMismatch(in file: URL) -> Int? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return 0 }
        defer { try? handle.close() }
        var offset = 0
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            for (index, byte) in chunk.enumerated() where byte != UInt8((offset + index) % 251) {
                return offset + index
            }
            offset += chunk.count
        }
        return offset == DemoFile.size ? nil : offset
    }
}

/// A one-line progress bar on a terminal (`\r`-redrawn); nothing at all when stdout is not one,
/// so that logs stay clean.
final class ProgressBar: Sendable {
    private let isTerminal = isatty(STDOUT_FILENO) == 1

    /// Draws each value of `updates` until they end.
    func draw(_ updates: TransferProgressUpdates) async {
        for await progress in updates { draw(progress) }
    }

    func draw(_ progress: TransferProgress) {
        guard isTerminal, let fraction = progress.fraction else { return }
        let width = 30
        let filled = Int(fraction * Double(width))
        let line =
            "  [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + String(format: "%3.0f%%", fraction * 100)
        FileHandle.standardOutput.write(Data(("\r" + line).utf8))
    }

    func clear() {
        guard isTerminal else { return }
        FileHandle.standardOutput.write(Data(("\r" + String(repeating: " ", count: 40) + "\r").utf8))
    }
}

extension Demo {
    /// Opens a WebSocket to the echo, sends a text and a binary message, reads both back, pings,
    /// and closes with 1000.
    func webSocket() async -> Outcome {
        let started = ContinuousClock.now
        do {
            let socket = try await client.enqueue(LiveEcho(api: api)).webSocket()
            let sent: [WebSocket.Message] = [.text("hello, socket"), .data(Data((0..<32).map { UInt8($0) }))]
            var messages = socket.messages.makeAsyncIterator()
            var echoed: [WebSocket.Message] = []
            for message in sent {
                try await socket.send(message)
                if let back = try await messages.next() { echoed.append(back) }
            }
            try await socket.ping()
            await socket.close()
            guard echoed == sent else { return .failed("expected the two messages back, got \(echoed)") }
            return .passed("101, a text and a binary message echoed, ping answered, closed with 1000; \(Self.format(ContinuousClock.now - started))")
        } catch .invalidRequest(.webSocketUnavailable(let reason)) {
            return .passed("skipped: \(reason)")
        } catch {
            return unexpected(error, expected: "an echoing WebSocket")
        }
    }
}
