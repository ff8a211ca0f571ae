import Courier

/// What the command line asked for.
enum Command {
    /// Run the demo against `baseURL`, or against the embedded API when it is `nil`.
    case demo(baseURL: BaseURL?)
    /// Start the embedded API, print its URL and serve until killed (undocumented; handy for
    /// trying `--base-url` from a second terminal).
    case serveOnly
    case help
    /// A usage error, with the message to print.
    case invalid(String)

    static let usage = """
        Usage: courier-demo [--base-url <url>]

        Runs a few real calls through Courier's Client and prints one line per step:
        list users, create one, fetch it, fetch an unknown id (404), refresh an expired
        token once for 50 concurrent calls, cancel a slow call, and time a slow call out.

        Options:
          --base-url <url>  Call the API at <url> (e.g. http://127.0.0.1:8080) instead of
                            starting the embedded FlyingFox server on 127.0.0.1.
          -h, --help        Show this help.

        Exit status: 0 when every step behaved as expected, 1 when one did not or the API
        could not be reached, 2 for a usage error.
        """

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) -> Command {
        var baseURL: BaseURL?
        var serveOnly = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return .help
            case "--serve-only":
                serveOnly = true
            case "--base-url":
                guard let value = remaining.popFirst() else {
                    return .invalid("--base-url needs a value, e.g. --base-url http://127.0.0.1:8080")
                }
                guard let parsed = parseBaseURL(value) else { return .invalid(baseURLProblem(value)) }
                baseURL = parsed
            case let option where option.hasPrefix("--base-url="):
                let value = String(option.dropFirst("--base-url=".count))
                guard let parsed = parseBaseURL(value) else { return .invalid(baseURLProblem(value)) }
                baseURL = parsed
            default:
                return .invalid("unknown argument \(argument.debugDescription)")
            }
        }
        if serveOnly {
            return baseURL == nil ? .serveOnly : .invalid("--serve-only starts the embedded API; it does not take --base-url")
        }
        return .demo(baseURL: baseURL)
    }

    private static func parseBaseURL(_ string: String) -> BaseURL? {
        try? BaseURL(string: string)
    }

    /// Courier's own explanation of why `string` is not a base URL.
    private static func baseURLProblem(_ string: String) -> String {
        do {
            _ = try BaseURL(string: string)
            return "invalid --base-url \(string.debugDescription)"
        } catch .invalidRequest(let problem) {
            return "--base-url: \(problem)"
        } catch {
            return "invalid --base-url: \(error)"
        }
    }
}
