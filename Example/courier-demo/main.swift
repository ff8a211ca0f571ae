import Courier
import Foundation

// courier-demo: real calls through Courier against an embedded FlyingFox API (or --base-url).
// Exit status: 0 when every step behaved as expected, 1 when one did not, 2 for a usage error.

switch Command.parse(Array(CommandLine.arguments.dropFirst())) {
case .help:
    Console.out(Command.usage)
    exit(0)

case .invalid(let message):
    Console.error("courier-demo: \(message)")
    Console.error("Try 'courier-demo --help'.")
    exit(2)

case .serveOnly:
    let server = await startEmbeddedServer()
    Console.out("Serving the demo API at http://127.0.0.1:\(server.port) until killed.")
    do {
        try await server.serveForever()
    } catch {
        Console.error("courier-demo: the server stopped: \(error)")
        exit(1)
    }

case .demo(let baseURL?):
    Console.out("Courier demo against \(baseURL), over \(transportName)")
    exit(report(await Demo(api: baseURL).run(), api: baseURL))

case .demo(nil):
    let server = await startEmbeddedServer()
    // The host and port come from the socket, so this cannot fail; still, no force-unwrap.
    guard let api = try? BaseURL(scheme: .http, host: "127.0.0.1", port: Int(server.port)) else {
        Console.error("courier-demo: the embedded API's port \(server.port) is not usable")
        exit(1)
    }
    Console.out("Courier demo against the embedded API at \(api), over \(transportName)")
    let result = await Demo(api: api).run()
    await server.stop()
    exit(report(result, api: api))
}

/// Which transport `Configuration()` uses here, and why.
var transportName: String {
    // As `Configuration.defaultTransport` chooses (it forwards to one of the two; its own type
    // says neither).
    #if AsyncHTTPClientLinked && canImport(FoundationNetworking)
        "AsyncHTTPClientTransport (async-http-client: the default on Linux)"
    #else
        "URLSessionTransport (the default on Apple platforms, and on Linux builds without the AsyncHTTPClient trait)"
    #endif
}

/// Starts the embedded API, or exits with a message.
func startEmbeddedServer() async -> DemoServer {
    do {
        return try await DemoServer.start()
    } catch {
        Console.error("courier-demo: could not start the embedded API: \(error)")
        exit(1)
    }
}

/// Prints the summary and returns the exit status.
func report(_ report: Report, api: BaseURL) -> Int32 {
    if let error = report.unreachable {
        let kind = error.urlError.map { "URLError \($0.code.rawValue)" } ?? "\(error)"
        Console.error("courier-demo: cannot reach the API at \(api) (\(kind)); is a server running there?")
        return 1
    }
    guard report.failures.isEmpty else {
        let total = report.passed + report.failures.count
        Console.error("courier-demo: \(report.failures.count) of \(total) steps did not behave as expected:")
        for failure in report.failures {
            Console.error("  - \(failure)")
        }
        return 1
    }
    Console.out("All \(report.passed) steps behaved as expected.")
    return 0
}
