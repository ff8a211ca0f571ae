#if AsyncHTTPClientLinked
    import Foundation
    import Testing

    @testable import Courier

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// `cannotConnect` promises that nothing was sent (an OAuth2 form POST is sent again only
    /// then): only the errors of setting a connection up may say so.
    @Suite("async-http-client: what a system call's error means")
    struct ErrnoKindTests {
        @Test(arguments: [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, EAFNOSUPPORT, ENETDOWN])
        func aConnectionThatNeverWasIsCannotConnect(_ code: CInt) {
            #expect(AsyncHTTPClientExchange.kind(ofErrno: code) == .cannotConnect)
        }

        @Test(arguments: [ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN, ESHUTDOWN, EIO, ENOBUFS, ENOMEM, EBADF, EINVAL])
        func anyOtherMayHaveReachedTheServer(_ code: CInt) {
            #expect(AsyncHTTPClientExchange.kind(ofErrno: code) == .connectionLost)
        }

        @Test func aTimeoutIsATimeout() {
            #expect(AsyncHTTPClientExchange.kind(ofErrno: ETIMEDOUT) == .timedOut)
        }
    }
#endif
