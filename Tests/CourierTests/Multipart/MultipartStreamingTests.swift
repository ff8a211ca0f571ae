import Foundation
import Testing

@testable import Courier

/// Files and streams inside multipart bodies: lengths, chunking, replay, and what happens when
/// the bytes on disk are not what they were when the request was built.
@Suite("Multipart: streamed parts")
struct MultipartStreamingTests {
    static let boundary = "fixed"

    @Test func aMixedFormWithAMultiMegabyteFileParsesBackPartForPart() async throws {
        try await withTemporaryDirectory { directory in
            let big = splitMixBytes(count: 5_000_003, seed: 0xB16)
            let small = splitMixBytes(count: 1_000, seed: 0x5A11)
            let streamed = splitMixBytes(count: 150_001, seed: 0x57)
            let inMemory = splitMixBytes(count: 70_000, seed: 0xDA7A)
            let bigURL = try writeFile(big, named: "big.bin", in: directory)
            let smallURL = try writeFile(small, named: "small.jpg", in: directory)
            var form = MultipartForm()
            form.append(text: "Ada", name: "author")
            form.append(fileAt: bigURL, name: "archive")
            form.append(text: "déjà vu", name: "note", headers: [HeaderItem(name: "X-Order", value: "3")])
            form.append(data: inMemory, name: "blob", filename: "blob.dat")
            form.append(fileAt: smallURL, name: "photo", filename: "Photo \"1\".jpg")
            form.append(
                stream: multipartChunks([streamed.prefix(100_000), streamed.dropFirst(100_000)]),
                length: Int64(streamed.count), name: "stream", contentType: "application/x-ndjson")

            let (stream, contentType) = try multipartBody(form)
            let chunks = try await readChunks(stream)
            let body = chunks.reduce(into: Data()) { $0.append($1) }

            #expect(stream.length == Int64(body.count))
            #expect(!stream.isReplayable)
            #expect(chunks.allSatisfy { !$0.isEmpty && $0.count <= bodyChunkSize })
            let parts = try MultipartTestParser.parse(body, boundary: MultipartTestParser.boundary(fromContentType: contentType))
            #expect(parts.map(\.name) == ["author", "archive", "note", "blob", "photo", "stream"])
            #expect(parts.map(\.filename) == [nil, "big.bin", nil, "blob.dat", "Photo \"1\".jpg", nil])
            #expect(
                parts.map { $0.header("Content-Type") } == [
                    nil, "application/octet-stream", nil, "application/octet-stream",
                    "image/jpeg", "application/x-ndjson",
                ])
            #expect(parts[2].header("X-Order") == "3")
            #expect(parts.map(\.body) == [Data("Ada".utf8), big, Data("déjà vu".utf8), inMemory, small, streamed])
        }
    }

    @Test func fullFileChunksPassThroughAndSmallNeighboursAreCoalesced() async throws {
        try await withTemporaryDirectory { directory in
            let file = try writeFile(splitMixBytes(count: 3 * bodyChunkSize + 3_392, seed: 1), named: "f.bin", in: directory)
            var form = MultipartForm(boundary: Self.boundary)
            for index in 0..<20 { form.append(text: "value \(index)", name: "field\(index)") }
            form.append(fileAt: file, name: "file")
            for index in 0..<20 { form.append(text: "value \(index)", name: "after\(index)") }

            let (stream, _) = try multipartBody(form)
            let sizes = try await readChunks(stream).map(\.count)

            // The 20 fields and the file's head; three whole file chunks; the file's last 3,392
            // bytes with the 20 fields after it and the closing delimiter.
            #expect(sizes.count == 5, "\(sizes)")
            #expect(sizes[0] < 2_000)
            #expect(sizes[1...3] == [bodyChunkSize, bodyChunkSize, bodyChunkSize])
            #expect(sizes[4] > 3_392 && sizes[4] < 6_000)
            #expect(Int64(sizes.reduce(0, +)) == stream.length)
        }
    }

    @Test func bigInMemoryPartsAndBigStreamChunksAreCutInto64KiBChunks() async throws {
        let data = splitMixBytes(count: 300_000, seed: 2)
        let streamed = splitMixBytes(count: 500_000, seed: 3)
        var form = MultipartForm(boundary: Self.boundary)
        form.append(data: data, name: "data")
        form.append(stream: multipartChunks([streamed]), length: nil, name: "stream")

        let (stream, _) = try multipartBody(form)
        let chunks = try await readChunks(stream)

        #expect(chunks.allSatisfy { !$0.isEmpty && $0.count <= bodyChunkSize })
        let parts = try MultipartTestParser.parse(chunks.reduce(Data(), +), boundary: Self.boundary)
        #expect(parts.map(\.body) == [data, streamed])
    }

    @Test func aFormWithFilesIsReplayableAndReadsTheSameTwice() async throws {
        try await withTemporaryDirectory { directory in
            let file = try writeFile(splitMixBytes(count: 200_000, seed: 4), named: "f.bin", in: directory)
            var form = MultipartForm()
            form.append(text: "t", name: "t")
            form.append(fileAt: file, name: "f")
            let (stream, _) = try multipartBody(form)

            let first = try await readAll(stream)
            let second = try await readAll(stream)

            #expect(stream.isReplayable)
            #expect(first == second)
            #expect(Int64(first.count) == stream.length)
        }
    }

    @Test func aStreamPartWithoutALengthMakesTheLengthUnknownAndTheFormSingleUse() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(text: "t", name: "t")
        form.append(stream: multipartChunks([Data("abc".utf8), Data("def".utf8)]), length: nil, name: "s")

        let (stream, _) = try multipartBody(form)
        let body = try await readAll(stream)

        #expect(stream.length == nil)
        #expect(!stream.isReplayable)
        #expect(try MultipartTestParser.parse(body, boundary: Self.boundary).map(\.body) == [Data("t".utf8), Data("abcdef".utf8)])
        let again = await courierError { _ = try stream.makeReader() }
        guard case .invalidRequest(.bodyNotReplayable)? = again else {
            Issue.record("expected bodyNotReplayable, got \(String(describing: again))")
            return
        }
    }

    @Test func aStreamPartWithALengthKeepsTheLengthKnownAndMustDeliverIt() async throws {
        var exact = MultipartForm(boundary: Self.boundary)
        exact.append(stream: multipartChunks([Data("abc".utf8)]), length: 3, name: "s")
        let (exactStream, _) = try multipartBody(exact)
        #expect(exactStream.length == Int64(try await readAll(exactStream).count))

        var short = MultipartForm(boundary: Self.boundary)
        short.append(stream: multipartChunks([Data("abc".utf8)]), length: 10, name: "s")
        let (shortStream, _) = try multipartBody(short)
        let error = await courierError { _ = try await readAll(shortStream) }
        #expect(bodySourceReason(error)?.contains("3 of the 10") == true, "got \(String(describing: error))")
    }

    @Test func aTwoGibibyteSparseFileIsSizedWithoutBeingRead() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("sparse.bin")
            let size: UInt64 = 2 << 30
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: size)
            try handle.close()
            var form = MultipartForm(boundary: Self.boundary)
            form.append(fileAt: url, name: "big")

            let readBefore = bytesReadByProcess()
            let (stream, _) = try multipartBody(form)
            let readAfter = bytesReadByProcess()

            let head =
                "--fixed\r\nContent-Disposition: form-data; name=\"big\"; filename=\"sparse.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n"
            let tail = "\r\n--fixed--\r\n"
            #expect(stream.length == Int64(size) + Int64(head.utf8.count + tail.utf8.count))
            if let readBefore, let readAfter {
                // Other tests read files in parallel, but far less than the 2 GiB building it would take.
                #expect(readAfter - readBefore < 1 << 30)
            }
            // And the first chunks do come from it, lazily.
            var reader = try stream.makeReader()
            let firstChunk = try await reader.next()
            let firstFileChunk = try await reader.next()
            #expect(firstChunk == Data(head.utf8))
            #expect(firstFileChunk == Data(count: bodyChunkSize))
        }
    }

    /// Where the delimiter is put in a file part: at its very start (as `--boundary`), in the
    /// middle of a chunk, straddling a 64 KiB chunk edge, or right at one.
    @Test("the boundary inside a file part stops the upload", arguments: [0, 100, bodyChunkSize - 3, bodyChunkSize, 3 * bodyChunkSize - 1])
    func boundaryInAFilePart(offset: Int) async throws {
        try await withTemporaryDirectory { directory in
            var content = splitMixBytes(count: 4 * bodyChunkSize, seed: 5)
            let marker = offset == 0 ? Data("--\(Self.boundary)".utf8) : Data("\r\n--\(Self.boundary)".utf8)
            content.replaceSubrange(offset..<offset + marker.count, with: marker)
            let file = try writeFile(content, named: "evil.txt", in: directory)
            var form = MultipartForm(boundary: Self.boundary)
            form.append(text: "t", name: "t")
            form.append(fileAt: file, name: "upload")

            let (stream, _) = try multipartBody(form)  // building does not read the file
            let error = await courierError { _ = try await readAll(stream) }

            let reason = bodySourceReason(error)
            #expect(reason?.contains("the boundary occurs in part 2 (\"upload\")") == true, "got \(String(describing: error))")
        }
    }

    @Test func aRandomBoundaryFoundInAFileAlsoStopsTheUpload() async throws {
        try await withTemporaryDirectory { directory in
            var form = MultipartForm()
            let file = try writeFile(Data("x\r\n--\(form.boundary)--\r\n".utf8), named: "f.txt", in: directory)
            form.append(fileAt: file, name: "f")
            let (stream, _) = try multipartBody(form)
            let error = await courierError { _ = try await readAll(stream) }
            #expect(bodySourceReason(error)?.contains("boundary") == true, "got \(String(describing: error))")
        }
    }

    @Test func theBoundarySplitAcrossStreamChunksStopsTheUpload() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(
            stream: multipartChunks([Data("abc\r".utf8), Data("\n-".utf8), Data("-fi".utf8), Data("xed".utf8)]),
            length: nil, name: "s")
        let (stream, _) = try multipartBody(form)
        let error = await courierError { _ = try await readAll(stream) }
        #expect(bodySourceReason(error)?.contains("the boundary occurs in part 1 (\"s\")") == true, "got \(String(describing: error))")
    }

    @Test("near misses across chunk edges do not stop the upload", arguments: [bodyChunkSize - 4, bodyChunkSize - 1])
    func nearMissAcrossAChunkEdge(offset: Int) async throws {
        try await withTemporaryDirectory { directory in
            var content = splitMixBytes(count: 2 * bodyChunkSize, seed: 6)
            let marker = Data("\r\n--fixe\r\n-fixed--fixed".utf8)
            content.replaceSubrange(offset..<offset + marker.count, with: marker)
            let file = try writeFile(content, named: "f.bin", in: directory)
            var form = MultipartForm(boundary: Self.boundary)
            form.append(fileAt: file, name: "f")
            let (body, _) = try await encodedMultipart(form)
            #expect(try MultipartTestParser.parse(body, boundary: Self.boundary).map(\.body) == [content])
        }
    }

    enum FileChange: String, CaseIterable, CustomTestStringConvertible {
        case disappears, shrinks, grows
        var testDescription: String { rawValue }
    }

    @Test("a file that changes between building and sending fails the upload", arguments: FileChange.allCases)
    func fileChangesAfterBuilding(change: FileChange) async throws {
        try await withTemporaryDirectory { directory in
            let content = splitMixBytes(count: 100_000, seed: 7)
            let file = try writeFile(content, named: "f.bin", in: directory)
            var form = MultipartForm(boundary: Self.boundary)
            form.append(text: "t", name: "t")
            form.append(fileAt: file, name: "f")
            let (stream, _) = try multipartBody(form)

            switch change {
            case .disappears: try FileManager.default.removeItem(at: file)
            case .shrinks: try content.prefix(50_000).write(to: file)
            case .grows: try (content + Data([1])).write(to: file)
            }
            let error = await courierError { _ = try await readAll(stream) }

            let reason = bodySourceReason(error)
            #expect(reason?.hasPrefix("part 2 (\"f\"): ") == true, "got \(String(describing: error))")
            #expect(reason?.contains("f.bin") == true)
        }
    }

    @Test func aFailedReadStaysFailed() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("gone.bin")
            var source = try MultipartSource(segments: [.file(file, size: 3, label: "part 1")], delimiter: Array("\r\n--x".utf8))
            let first = await courierError { _ = try await source.next() }
            let second = await courierError { _ = try await source.next() }
            #expect(bodySourceReason(first) != nil)
            #expect(bodySourceReason(second) == bodySourceReason(first))
        }
    }
}
