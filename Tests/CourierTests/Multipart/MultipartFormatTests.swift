import Foundation
import Testing

@testable import Courier

/// The exact bytes of `multipart/form-data` bodies, with a fixed boundary.
@Suite("Multipart: exact bytes")
struct MultipartFormatTests {
    static let boundary = "XyZ-boundary"

    /// `lines` joined with CRLF, and a final CRLF: the expected body, readable in the test.
    static func crlf(_ lines: String...) -> Data {
        Data(lines.map { $0 + "\r\n" }.joined().utf8)
    }

    @Test func anEmptyFormIsOnlyTheClosingDelimiter() async throws {
        let (body, contentType) = try await encodedMultipart(MultipartForm(boundary: Self.boundary))
        #expect(body == Data("--XyZ-boundary--\r\n".utf8))
        #expect(contentType == "multipart/form-data; boundary=XyZ-boundary")
    }

    @Test func textFieldsHaveNoContentTypeAndAreUTF8() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(text: "Ada", name: "author")
        form.append(text: "héllo wörld ✓", name: "greeting")
        form.append(text: "", name: "empty")
        form.append(text: "line 1\r\nline 2", name: "multiline")

        let (body, _) = try await encodedMultipart(form)

        #expect(
            body
                == Self.crlf(
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"author\"",
                    "",
                    "Ada",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"greeting\"",
                    "",
                    "héllo wörld ✓",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"empty\"",
                    "",
                    "",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"multiline\"",
                    "",
                    "line 1\r\nline 2",
                    "--XyZ-boundary--"
                ))
    }

    @Test func dataPartsCarryTheirFilenameAndContentType() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(data: Data([0x00, 0x01, 0xFF]), name: "avatar", filename: "me.PNG")
        form.append(data: Data("{\"a\":1}".utf8), name: "meta", contentType: "application/json")
        form.append(data: Data("raw".utf8), name: "raw")
        form.append(data: Data("?".utf8), name: "odd", filename: "notes.unknownext")
        form.append(data: Data("x".utf8), name: "typed", filename: "a.png", contentType: "image/apng")

        let (body, _) = try await encodedMultipart(form)

        var expected = Self.crlf(
            "--XyZ-boundary",
            "Content-Disposition: form-data; name=\"avatar\"; filename=\"me.PNG\"",
            "Content-Type: image/png",
            ""
        )
        expected.append(contentsOf: [0x00, 0x01, 0xFF])
        expected.append(
            Self.crlf(
                "",
                "--XyZ-boundary",
                "Content-Disposition: form-data; name=\"meta\"",
                "Content-Type: application/json",
                "",
                "{\"a\":1}",
                "--XyZ-boundary",
                "Content-Disposition: form-data; name=\"raw\"",
                "Content-Type: application/octet-stream",
                "",
                "raw",
                "--XyZ-boundary",
                "Content-Disposition: form-data; name=\"odd\"; filename=\"notes.unknownext\"",
                "Content-Type: application/octet-stream",
                "",
                "?",
                "--XyZ-boundary",
                "Content-Disposition: form-data; name=\"typed\"; filename=\"a.png\"",
                "Content-Type: image/apng",
                "",
                "x",
                "--XyZ-boundary--"
            ))
        #expect(body == expected)
    }

    @Test func filePartsTakeTheirNameAndTypeFromTheFileUnlessOverridden() async throws {
        try await withTemporaryDirectory { directory in
            let pdf = try writeFile(Data("%PDF-1.7".utf8), named: "report.pdf", in: directory)
            let readme = try writeFile(Data("read me".utf8), named: "README", in: directory)
            let empty = try writeFile(Data(), named: "empty.txt", in: directory)
            var form = MultipartForm(boundary: Self.boundary)
            form.append(fileAt: pdf, name: "report")
            form.append(fileAt: pdf, name: "renamed", filename: "2024 Q1.pdf", contentType: "application/x-custom")
            form.append(fileAt: readme, name: "readme")
            form.append(fileAt: empty, name: "nothing")

            let (body, _) = try await encodedMultipart(form)

            #expect(
                body
                    == Self.crlf(
                        "--XyZ-boundary",
                        "Content-Disposition: form-data; name=\"report\"; filename=\"report.pdf\"",
                        "Content-Type: application/pdf",
                        "",
                        "%PDF-1.7",
                        "--XyZ-boundary",
                        "Content-Disposition: form-data; name=\"renamed\"; filename=\"2024 Q1.pdf\"",
                        "Content-Type: application/x-custom",
                        "",
                        "%PDF-1.7",
                        "--XyZ-boundary",
                        "Content-Disposition: form-data; name=\"readme\"; filename=\"README\"",
                        "Content-Type: application/octet-stream",
                        "",
                        "read me",
                        "--XyZ-boundary",
                        "Content-Disposition: form-data; name=\"nothing\"; filename=\"empty.txt\"",
                        "Content-Type: text/plain",
                        "",
                        "",
                        "--XyZ-boundary--"
                    ))
        }
    }

    @Test func perPartHeadersFollowTheContentTypeAndAPartContentTypeReplacesIt() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(
            text: "v", name: "field",
            headers: [
                HeaderItem(name: "X-Trace", value: "abc"), .contentType("text/plain; charset=utf-8"),
            ])
        form.append(
            data: Data("x".utf8), name: "image", filename: "a.png",
            headers: [
                HeaderItem(name: "content-type", value: "image/apng"), HeaderItem(name: "Content-Language", value: "en"),
                HeaderItem(name: "X-Empty", value: ""),
            ])

        let (body, _) = try await encodedMultipart(form)

        #expect(
            body
                == Self.crlf(
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"field\"",
                    "Content-Type: text/plain; charset=utf-8",
                    "X-Trace: abc",
                    "",
                    "v",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"image\"; filename=\"a.png\"",
                    "content-type: image/apng",
                    "Content-Language: en",
                    "X-Empty: ",
                    "",
                    "x",
                    "--XyZ-boundary--"
                ))
    }

    @Test func nonASCIINamesAndFilenamesAreSentAsRawUTF8() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(data: Data("1".utf8), name: "名前", filename: "résumé 📄.txt")
        form.append(text: "2", name: "Ünïcödé")

        let (body, _) = try await encodedMultipart(form)

        #expect(
            body
                == Self.crlf(
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"名前\"; filename=\"résumé 📄.txt\"",
                    "Content-Type: text/plain",
                    "",
                    "1",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"Ünïcödé\"",
                    "",
                    "2",
                    "--XyZ-boundary--"
                ))
        #expect(!String(decoding: body, as: UTF8.self).contains("filename*"))
    }

    @Test func quotesInNamesAndFilenamesAreWrittenAsPercent22AndNothingElseIsEscaped() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(data: Data("q".utf8), name: "say \"hi\"", filename: "\"quoted\"; x=\\y.bin")
        form.append(text: "%22 stays", name: "100%")

        let (body, _) = try await encodedMultipart(form)

        #expect(
            body
                == Self.crlf(
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"say %22hi%22\"; filename=\"%22quoted%22; x=\\y.bin\"",
                    "Content-Type: application/octet-stream",
                    "",
                    "q",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"100%\"",
                    "",
                    "%22 stays",
                    "--XyZ-boundary--"
                ))
    }

    @Test func aStreamPartIsFramedLikeADataPart() async throws {
        var form = MultipartForm(boundary: Self.boundary)
        form.append(
            stream: multipartChunks([Data("ab".utf8), Data(), Data("c".utf8)]), length: 3, name: "s",
            filename: "s.json")
        form.append(text: "after", name: "t")

        let (body, _) = try await encodedMultipart(form)

        #expect(
            body
                == Self.crlf(
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"s\"; filename=\"s.json\"",
                    "Content-Type: application/json",
                    "",
                    "abc",
                    "--XyZ-boundary",
                    "Content-Disposition: form-data; name=\"t\"",
                    "",
                    "after",
                    "--XyZ-boundary--"
                ))
    }

    @Test(
        "the boundary is quoted in Content-Type only when it holds a non-token character",
        arguments: [
            ("simple-boundary_1.2+3'", "multipart/form-data; boundary=simple-boundary_1.2+3'"),
            ("with space", "multipart/form-data; boundary=\"with space\""),
            ("a:b/c=d?e(f)g,h", "multipart/form-data; boundary=\"a:b/c=d?e(f)g,h\""),
        ])
    func boundaryQuoting(boundary: String, contentType: String) async throws {
        var form = MultipartForm(boundary: boundary)
        form.append(text: "v", name: "n")
        let (body, sentContentType) = try await encodedMultipart(form)
        #expect(sentContentType == contentType)
        let parsed = try MultipartTestParser.parse(body, boundary: MultipartTestParser.boundary(fromContentType: sentContentType))
        #expect(parsed.map(\.name) == ["n"])
        #expect(parsed.map(\.body) == [Data("v".utf8)])
    }

    @Test func aRandomBoundaryIsCourierAnd32HexDigitsAndDiffersEachTime() {
        let boundaries = (0..<100).map { _ in MultipartForm().boundary }
        for boundary in boundaries {
            #expect(boundary.hasPrefix("courier-"))
            let digits = boundary.dropFirst("courier-".count)
            #expect(digits.count == 32)
            #expect(digits.allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(Set(boundaries).count == boundaries.count)
    }

    @Test func thePartsDescribeWhatWillBeSent() {
        var form = MultipartForm(boundary: Self.boundary)
        let url = URL(fileURLWithPath: "/tmp/clip.mp4")
        form.append(text: "Ada", name: "author")
        form.append(data: Data([1]), name: "thumb", filename: "t.jpg")
        form.append(fileAt: url, name: "clip", headers: [HeaderItem(name: "X-Part", value: "3")])
        form.append(stream: multipartChunks([]), length: nil, name: "log")

        #expect(form.parts.map(\.name) == ["author", "thumb", "clip", "log"])
        #expect(form.parts.map(\.filename) == [nil, "t.jpg", "clip.mp4", nil])
        #expect(form.parts.map(\.contentType) == [nil, "image/jpeg", "video/mp4", "application/octet-stream"])
        #expect(form.parts.map(\.content) == [.text("Ada"), .data(Data([1])), .file(url), .stream(length: nil)])
        #expect(form.parts[2].headers == [HeaderItem(name: "X-Part", value: "3")])
        #expect(form.boundary == Self.boundary)
        #expect(!form.isReplayable)
    }

    @Test func theRequestCarriesTheMultipartContentTypeAndTheExactLength() async throws {
        let transport = RecordingTransport()
        var form = MultipartForm(boundary: Self.boundary)
        form.append(text: "Ada", name: "author")
        form.append(data: Data(repeating: 7, count: 100_000), name: "blob", filename: "b.bin")
        let endpoint = TestEndpoint(method: .post, body: .multipart(form))

        _ = try await makeClient(transport).enqueue(endpoint).resume()

        let request = try #require(await transport.last)
        #expect(request.header("Content-Type") == "multipart/form-data; boundary=XyZ-boundary")
        guard case .stream(let stream)? = request.body else {
            Issue.record("expected a streamed body, got \(String(describing: request.body))")
            return
        }
        let body = try await readAll(stream)
        #expect(stream.length == Int64(body.count))
        #expect(stream.isReplayable)
        let parts = try MultipartTestParser.parse(body, boundary: Self.boundary)
        #expect(parts.map(\.name) == ["author", "blob"])
        #expect(parts[1].body == Data(repeating: 7, count: 100_000))
    }
}
