import Foundation
import Testing

@testable import Courier

/// Bad input fails the call with a typed error when the request is built, and nothing is sent.
@Suite("Multipart: typed errors")
struct MultipartValidationTests {
    static let controlCharacters = [
        "a\rb", "a\nb", "x\r\nContent-Type: text/html", "nul\u{0}", "tab\there", "del\u{7F}", "\u{1B}[31mred", "\u{1F}",
    ]

    @Test("a name with a control character is refused", arguments: controlCharacters)
    func controlCharacterInName(name: String) async {
        var form = MultipartForm(boundary: "b")
        form.append(text: "v", name: name)
        let error = await courierError { _ = try multipartBody(form) }
        let reason = multipartFormReason(error)
        #expect(reason?.contains("name") == true, "got \(String(describing: error))")
        #expect(reason?.contains("part 1") == true)
    }

    @Test("a filename with a control character is refused", arguments: controlCharacters)
    func controlCharacterInFilename(filename: String) async {
        var form = MultipartForm(boundary: "b")
        form.append(text: "fine", name: "ok")
        form.append(data: Data("v".utf8), name: "file", filename: filename)
        let error = await courierError { _ = try multipartBody(form) }
        let reason = multipartFormReason(error)
        #expect(reason?.contains("filename") == true, "got \(String(describing: error))")
        #expect(reason?.contains("part 2") == true)
    }

    @Test("a file part's filename is checked too, and a CR/LF one never reaches the transport")
    func controlCharacterInFilePartFilenameThroughTheClient() async throws {
        try await withTemporaryDirectory { directory in
            let file = try writeFile(Data("v".utf8), named: "a.txt", in: directory)
            var form = MultipartForm()
            form.append(fileAt: file, name: "f", filename: "a.txt\r\nX-Injected: 1")
            let transport = RecordingTransport()

            let result = await makeClient(transport).enqueue(TestEndpoint(method: .post, body: .multipart(form))).multipartResult()

            guard case .failure(.invalidRequest(.invalidMultipartForm)) = result else {
                Issue.record("expected invalidMultipartForm, got \(result)")
                return
            }
            #expect(await transport.count == 0)
        }
    }

    @Test("a per-part header name that is not a token is refused", arguments: ["", "Bad Header", "X:Y", "Ünï", "a\r\nb", "(x)"])
    func badHeaderName(name: String) async {
        var form = MultipartForm(boundary: "b")
        form.append(text: "v", name: "n", headers: [HeaderItem(name: name, value: "1")])
        let error = await courierError { _ = try multipartBody(form) }
        guard case .invalidRequest(.invalidHeaderName(let reported))? = error else {
            Issue.record("expected invalidHeaderName, got \(String(describing: error))")
            return
        }
        #expect(reported == name)
    }

    @Test("a per-part header value with a control character is refused", arguments: ["a\r\nX-Evil: 1", "nul\u{0}", "lf\n", "del\u{7F}"])
    func badHeaderValue(value: String) async {
        var form = MultipartForm(boundary: "b")
        form.append(data: Data(), name: "n", headers: [HeaderItem(name: "X-Note", value: value)])
        let error = await courierError { _ = try multipartBody(form) }
        guard case .invalidRequest(.invalidHeaderValue(name: "X-Note"))? = error else {
            Issue.record("expected invalidHeaderValue, got \(String(describing: error))")
            return
        }
        #expect(!String(describing: error).contains("X-Evil"))
    }

    @Test("a content type with a control character is refused")
    func badContentType() async {
        var form = MultipartForm(boundary: "b")
        form.append(data: Data(), name: "n", contentType: "text/plain\r\nX-Evil: 1")
        let error = await courierError { _ = try multipartBody(form) }
        guard case .invalidRequest(.invalidHeaderValue(name: "Content-Type"))? = error else {
            Issue.record("expected invalidHeaderValue(Content-Type), got \(String(describing: error))")
            return
        }
    }

    @Test("a per-part Content-Disposition is refused", arguments: ["Content-Disposition", "content-disposition", "CONTENT-DISPOSITION"])
    func perPartContentDisposition(name: String) async {
        var form = MultipartForm(boundary: "b")
        form.append(text: "v", name: "n", headers: [HeaderItem(name: name, value: "form-data; name=\"other\"")])
        let error = await courierError { _ = try multipartBody(form) }
        #expect(multipartFormReason(error)?.contains("Content-Disposition") == true, "got \(String(describing: error))")
    }

    @Test func twoPerPartContentTypesAreRefused() async {
        var form = MultipartForm(boundary: "b")
        form.append(text: "v", name: "n", headers: [.contentType("text/plain"), .contentType("text/html")])
        let error = await courierError { _ = try multipartBody(form) }
        #expect(multipartFormReason(error)?.contains("more than one Content-Type") == true, "got \(String(describing: error))")
    }

    @Test(
        "an invalid fixed boundary is refused",
        arguments: [
            "", String(repeating: "a", count: 71), "ends with space ", "quote\"", "cr\r\nlf", "ünï", "semi;colon", "at@sign",
            "back\\slash", "tab\tx",
        ])
    func invalidBoundary(boundary: String) async {
        var form = MultipartForm(boundary: boundary)
        form.append(text: "v", name: "n")
        let error = await courierError { _ = try multipartBody(form) }
        #expect(multipartFormReason(error)?.contains("boundary") == true, "got \(String(describing: error))")
    }

    @Test(
        "a valid fixed boundary is kept",
        arguments: [
            "a", String(repeating: "z", count: 70), "inner space", "'()+_,-./:=?", "0123456789",
        ])
    func validBoundary(boundary: String) async throws {
        var form = MultipartForm(boundary: boundary)
        form.append(text: "v", name: "n")
        let (body, contentType) = try await encodedMultipart(form)
        #expect(try MultipartTestParser.boundary(fromContentType: contentType) == boundary)
        #expect(try MultipartTestParser.parse(body, boundary: boundary).map(\.body) == [Data("v".utf8)])
    }

    /// Contents that contain the delimiter (`CRLF--boundary`), or start with `--boundary`.
    static func colliding(_ boundary: String) -> [Data] {
        [
            Data("before\r\n--\(boundary)\r\nafter".utf8),
            Data("--\(boundary)".utf8),
            Data("x\r\n--\(boundary)--".utf8),
            Data("tail\r\n--\(boundary)".utf8),
        ]
    }

    @Test("a fixed boundary that occurs in an in-memory part fails the call", arguments: 0..<4)
    func fixedBoundaryInContent(variant: Int) async {
        let content = Self.colliding("fixed")[variant]
        for asText in [false, true] {
            var form = MultipartForm(boundary: "fixed")
            form.append(text: "fine", name: "a")
            if asText {
                form.append(text: String(decoding: content, as: UTF8.self), name: "b")
            } else {
                form.append(data: content, name: "b")
            }
            let error = await courierError { _ = try multipartBody(form) }
            let reason = multipartFormReason(error)
            #expect(reason?.contains("boundary \"fixed\" occurs in the content of part 2") == true, "got \(String(describing: error))")
        }
    }

    @Test func aFixedBoundaryInAPartHeaderFailsTheCall() async {
        var form = MultipartForm(boundary: "fixed")
        form.append(text: "v", name: "n", headers: [HeaderItem(name: "--fixed", value: "x")])
        let error = await courierError { _ = try multipartBody(form) }
        #expect(multipartFormReason(error)?.contains("headers of part 1") == true, "got \(String(describing: error))")
    }

    @Test("near misses of the delimiter are fine", arguments: ["--fixe", "a--fixed", "\r\n-fixed", "\n--fixed", "\r--fixed", "\r\n--fixe"])
    func nearMisses(content: String) async throws {
        var form = MultipartForm(boundary: "fixed")
        form.append(text: content, name: "n")
        let (body, _) = try await encodedMultipart(form)
        #expect(try MultipartTestParser.parse(body, boundary: "fixed").map(\.body) == [Data(content.utf8)])
    }

    @Test("a random boundary that occurs in an in-memory part is replaced and the body stays correct", arguments: 0..<4)
    func randomBoundaryInContent(variant: Int) async throws {
        var form = MultipartForm()
        let original = form.boundary
        let content = Self.colliding(original)[variant]
        form.append(data: content, name: "evil")
        form.append(text: String(decoding: content, as: UTF8.self), name: "evil text")

        let (body, contentType) = try await encodedMultipart(form)

        let sent = try MultipartTestParser.boundary(fromContentType: contentType)
        #expect(sent != original)
        #expect(sent.hasPrefix("courier-") && sent.count == 40)
        let parts = try MultipartTestParser.parse(body, boundary: sent)
        #expect(parts.map(\.name) == ["evil", "evil text"])
        #expect(parts.map(\.body) == [content, content])
    }

    @Test func aMissingFileFailsWhenTheRequestIsBuiltAndNothingIsSent() async throws {
        try await withTemporaryDirectory { directory in
            var form = MultipartForm()
            form.append(text: "v", name: "n")
            form.append(fileAt: directory.appendingPathComponent("missing.bin"), name: "file")
            let error = await courierError { _ = try multipartBody(form) }
            #expect(bodySourceReason(error)?.contains("missing.bin") == true, "got \(String(describing: error))")

            let transport = RecordingTransport()
            let result = await makeClient(transport).enqueue(TestEndpoint(method: .post, body: .multipart(form))).multipartResult()
            guard case .failure(.invalidRequest(.bodySourceFailed)) = result else {
                Issue.record("expected bodySourceFailed, got \(result)")
                return
            }
            #expect(await transport.count == 0)
        }
    }

    @Test func aDirectoryIsNotAFilePart() async throws {
        try await withTemporaryDirectory { directory in
            var form = MultipartForm()
            form.append(fileAt: directory, name: "dir")
            let error = await courierError { _ = try multipartBody(form) }
            #expect(bodySourceReason(error) != nil, "got \(String(describing: error))")
        }
    }

    @Test func errorsDescribeTheProblem() {
        let error = CourierError.invalidRequest(.invalidMultipartForm("the name \"a\\r\" of part 1 contains the control character U+000D"))
        #expect(error.description == "Invalid request: invalid multipart form: the name \"a\\r\" of part 1 contains the control character U+000D")
    }
}

extension Call {
    /// The outcome of ``Call/resume()`` as a `Result`, so a test can match the typed error.
    fileprivate func multipartResult() async -> Result<Response, CourierError> {
        do {
            return .success(try await resume())
        } catch {
            return .failure(error)
        }
    }
}
