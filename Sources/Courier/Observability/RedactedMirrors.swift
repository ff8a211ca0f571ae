import Foundation
import HTTPTypes

// `dump(_:)`, Xcode's variables view and reflection-based loggers walk a value's `Mirror`, not its
// `description`: the default mirror of a request or response would print every header value,
// the body bytes of a small body and the URL's query. These mirrors show what the redacted
// descriptions show.

extension TransportRequest: CustomReflectable {

    /// Method, redacted URL, headers with secret values hidden (``Redaction/default``), body
    /// size and timeout.
    ///
    /// ```swift
    /// dump(request)   // ▿ POST https://h/token (2 headers, 52-byte body) …
    /// ```
    public var customMirror: Mirror {
        let redaction = Redaction.default
        return Mirror(
            self,
            children: [
                "method": head.method.rawValue,
                "url": redaction.redact(url: url),
                "headers": head.headerFields.map { field in
                    "\(field.name.rawName): \(redaction.redactedValue(ofHeader: field.name.rawName, value: field.value))"
                },
                "body": body.map(Self.describe) ?? "none",
                "timeout": timeout,
            ], displayStyle: .struct)
    }

    private static func describe(_ body: TransportBody) -> String {
        switch body {
        case .data(let data): "\(data.count) bytes, not shown"
        case .stream(let stream): stream.length.map { "streamed, \($0) bytes, not shown" } ?? "streamed, not shown"
        }
    }
}

extension Response: CustomReflectable {
    /// Status, redacted URL, headers with secret values hidden (``Redaction/default``, so never
    /// `Set-Cookie`), and the body's size: the body itself may carry tokens.
    ///
    /// ```swift
    /// dump(response)   // ▿ HTTP 200 from https://h/me, 512 bytes of application/json …
    /// ```
    public var customMirror: Mirror {
        let redaction = Redaction.default
        return Mirror(
            self,
            children: [
                "statusCode": head.statusCode,
                "url": redaction.redact(url: head.url),
                "headers": head.headers.map { field in
                    "\(field.name.rawName): \(redaction.redactedValue(ofHeader: field.name.rawName, value: field.value))"
                },
                "body": "\(body.count) bytes, not shown",
            ], displayStyle: .struct)
    }
}

extension URLSessionTransport: CustomReflectable {
    /// The pinned hosts only. The default mirror walked into the `URLSession` (corelibs'
    /// URLSession is a Swift class): its configuration's `httpAdditionalHeaders`, proxy
    /// dictionary and cookie storage may hold credentials.
    public var customMirror: Mirror {
        Mirror(self, children: ["pinnedHosts": pinning.pinsByHost.keys.sorted()], displayStyle: .class)
    }
}

#if AsyncHTTPClientLinked
    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport: CustomReflectable {
        /// The pinned hosts and whether the transport owns its clients. The default mirror walked
        /// into the `HTTPClient`s, whose configuration keeps the proxy's `Proxy-Authorization`
        /// value (base64 of `user:password`) and the TLS private key.
        public var customMirror: Mirror {
            Mirror(self, children: ["pinnedHosts": pinnedClients.keys.sorted(), "ownsClients": ownsClients], displayStyle: .class)
        }
    }
#endif
