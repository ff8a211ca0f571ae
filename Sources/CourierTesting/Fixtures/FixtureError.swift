public import Foundation

/// Why a fixture file could not be read, parsed or written.
///
/// Each error names the file (when there is one) and, for a malformed file, the line:
///
/// ```swift
/// do {
///     network.stub(.get, "/users/42", with: try StubResponse(contentsOf: url))
/// } catch {
///     print(error)   // "…/users/42/GET.response, line 3: a header line without a colon (a body must follow a blank line)"
/// }
/// ```
///
/// Messages never quote a header value or the body: a fixture may hold what a server sent.
public struct FixtureError: Error, Sendable, Equatable {
    /// What went wrong.
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Kind: Sendable, Equatable {
        /// There is no file at the URL.
        case fileNotFound
        /// The file is larger than the limit (``FixtureDirectory/maximumFileSize``, or the
        /// `maximumSize` you passed), in bytes; nothing was parsed.
        case fileTooLarge(limit: Int)
        /// The file could not be read: a directory, no permission, an I/O error. The system's
        /// reason.
        case unreadable(reason: String)
        /// A recorded fixture could not be written. The system's reason.
        case unwritable(reason: String)
        /// The head (status line and header lines) is longer than
        /// ``FixtureDirectory/maximumHeadSize`` bytes.
        case headTooLarge(limit: Int)
        /// A line of the head is not UTF-8 text, or holds a control character other than a tab.
        case notText(line: Int)
        /// The line is not a status line such as `HTTP/1.1 200 OK`; `found` is its beginning, or
        /// `nil` when the file ended where a status line was expected.
        case invalidStatusLine(line: Int, found: String?)
        /// The status code is outside 200–599 (a fixture holds a final response; the
        /// informational heads `curl -i` prints before it are skipped).
        case statusCodeOutOfRange(line: Int, code: Int)
        /// A header line has no `:`.
        case headerWithoutColon(line: Int)
        /// A header line starts with a space or a tab: obsolete line folding, which fixtures do
        /// not support (write the value on one line).
        case foldedHeaderLine(line: Int)
        /// The header name is empty, or holds a character a header name cannot have (a space
        /// before the colon, say).
        case invalidHeaderName(line: Int)
        /// A `Content-Length` that is not a decimal number, or two that disagree.
        case invalidContentLength(line: Int)
        /// The body is not as long as `Content-Length` says (a final line break after it is
        /// allowed and dropped). Remove the `Content-Length` line to take the body as it is.
        case contentLengthMismatch(declared: Int, actual: Int)
    }

    /// What went wrong.
    public var kind: Kind
    /// The fixture file, when the bytes came from one.
    public var file: URL?

    /// Creates an error, for tests of code that handles them.
    public init(_ kind: Kind, file: URL? = nil) {
        self.kind = kind
        self.file = file
    }

    /// This error with `file` set, unless it already names one.
    func located(at file: URL) -> FixtureError {
        FixtureError(kind, file: self.file ?? file)
    }
}

extension FixtureError: CustomStringConvertible {
    /// The file's path, the line, and what is wrong with it, e.g.
    /// `Fixtures/users/42/GET.response, line 1: expected a status line such as "HTTP/1.1 200 OK", found "HTTP/1.1 OK"`.
    public var description: String {
        let location = file.map { $0.path } ?? "fixture"
        switch kind {
        case .fileNotFound:
            return "\(location): no such fixture file"
        case .fileTooLarge(let limit):
            return "\(location): the file is larger than the limit of \(limit) bytes"
        case .unreadable(let reason):
            return "\(location): cannot be read: \(reason)"
        case .unwritable(let reason):
            return "\(location): cannot be written: \(reason)"
        case .headTooLarge(let limit):
            return "\(location): the status line and headers are longer than \(limit) bytes (is the blank line before the body missing?)"
        case .notText(let line):
            return "\(location), line \(line): not UTF-8 text, or a control character other than a tab"
        case .invalidStatusLine(let line, let found?):
            return "\(location), line \(line): expected a status line such as \"HTTP/1.1 200 OK\", found \"\(found)\""
        case .invalidStatusLine(let line, nil):
            return "\(location), line \(line): expected a status line such as \"HTTP/1.1 200 OK\", found the end of the file"
        case .statusCodeOutOfRange(let line, let code):
            return "\(location), line \(line): status \(code) is not a final response status (200–599)"
        case .headerWithoutColon(let line):
            return "\(location), line \(line): a header line without a colon (a body must follow a blank line)"
        case .foldedHeaderLine(let line):
            return "\(location), line \(line): a header line starting with white space (folded lines are not supported)"
        case .invalidHeaderName(let line):
            return "\(location), line \(line): not a valid header name before the colon"
        case .invalidContentLength(let line):
            return "\(location), line \(line): Content-Length is not a decimal number, or disagrees with an earlier one"
        case .contentLengthMismatch(let declared, let actual):
            return "\(location): Content-Length says \(declared) bytes but the body has \(actual) (remove the Content-Length line to take the body as it is)"
        }
    }
}

extension FixtureError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
