// No code: this target only links async-http-client and SwiftNIO into Courier on Apple platforms
// when the `AsyncHTTPClientOnApple` trait is on (Package.swift, `asyncHTTPClientProducts`).
