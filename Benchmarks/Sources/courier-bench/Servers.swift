import FlyingFox
import FlyingSocks
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback HTTP server serving ``Payload`` at ``Payload/path``.
protocol BenchServer: Sendable {
    /// What it is, for the report, e.g. `nginx 1.22.1`.
    var name: String { get }
    var port: Int { get }
    /// The `ETag` of ``Payload/revalidatedPath``: a request with it in `If-None-Match` gets `304`.
    var revalidatedTag: String { get }
    /// Stops the server; safe to call more than once.
    func stop() async
}

enum ServerKind: String {
    case nginx, flyingfox, auto
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Servers {
    static func start(_ kind: ServerKind) async throws -> any BenchServer {
        switch kind {
        case .nginx:
            #if canImport(Glibc)
                guard let nginx = NginxServer.executable() else {
                    throw BenchError("--server nginx: no nginx executable on PATH (or in /usr/sbin)")
                }
                return try NginxServer.start(executable: nginx)
            #else
                throw BenchError("--server nginx: supported on Linux only")
            #endif
        case .flyingfox:
            return try await FlyingFoxServer.start()
        case .auto:
            #if canImport(Glibc)
                if let nginx = NginxServer.executable() {
                    return try NginxServer.start(executable: nginx)
                }
            #endif
            return try await FlyingFoxServer.start()
        }
    }
}

// MARK: - nginx

#if canImport(Glibc)

    /// nginx as a child process with its own configuration, prefix, pid file and logs in a
    /// temporary directory, listening on 127.0.0.1 only.
    ///
    /// nginx is not started directly but under a tiny `sh` watchdog whose stdin is a pipe from this
    /// process: when the pipe closes — because ``stop()`` closed it, or because this process exited
    /// or crashed in any way, even with SIGKILL — the watchdog sends nginx SIGTERM (fast shutdown),
    /// waits for it and removes the temporary directory. If nginx dies on its own (say the port was
    /// taken), the watchdog exits too and leaves the directory, so that its error log can be read.
    final class NginxServer: BenchServer, @unchecked Sendable {
        // @unchecked: `stopped` is only touched under `lock`; the rest is immutable.
        let name: String
        let port: Int
        let revalidatedTag: String
        private let watchdog: pid_t
        private let pipeWriteEnd: Int32
        private let directory: URL
        private let lock = NSLock()
        private var stopped = false

        private init(name: String, port: Int, revalidatedTag: String, watchdog: pid_t, pipeWriteEnd: Int32, directory: URL) {
            self.name = name
            self.port = port
            self.revalidatedTag = revalidatedTag
            self.watchdog = watchdog
            self.pipeWriteEnd = pipeWriteEnd
            self.directory = directory
        }

        static func executable() -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
            return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        static func start(executable: String) throws -> NginxServer {
            var lastError: (any Error)?
            // A free port is found by binding port 0 and closing the socket again, so another process
            // could take it in between; try a few times.
            for _ in 0..<3 {
                do {
                    return try startOnce(executable: executable, port: try freeLoopbackPort())
                } catch {
                    lastError = error
                }
            }
            throw lastError ?? BenchError("nginx did not start")
        }

        /// The watchdog. `$0` = nginx, `$1` = prefix, `$2` = configuration, `$3` = startup error log;
        /// stdin = the pipe from this process.
        private static let watchdogScript = """
            exec 3<&0 </dev/null
            "$0" -p "$1/" -c "$2" -e "$3" 3<&- &
            nginx=$!
            { read -r _ <&3; : > "$1/.stop"; kill -TERM $nginx 2>/dev/null; } &
            reader=$!
            exec 3<&-
            trap ': > "$1/.stop"; kill -TERM $nginx 2>/dev/null' INT TERM HUP
            wait $nginx; status=$?
            while kill -0 $nginx 2>/dev/null; do wait $nginx; status=$?; done
            kill -TERM $reader 2>/dev/null
            if [ -e "$1/.stop" ]; then rm -rf "$1"; fi
            exit $status
            """

        private static func startOnce(executable: String, port: Int) throws -> NginxServer {
            let fileManager = FileManager.default
            let directory = fileManager.temporaryDirectory.appendingPathComponent("courier-bench-nginx-\(UUID().uuidString)")
            let www = directory.appendingPathComponent("www")
            // 0755 / 0644: when started as root, nginx's workers run as an unprivileged user and
            // must be able to read the document root.
            try fileManager.createDirectory(at: www, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            let bodyFile = www.appendingPathComponent(String(Payload.path.dropFirst()))
            try Payload.data.write(to: bodyFile)
            try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bodyFile.path)
            // The same body at the revalidated path, served `no-cache`: nginx's `ETag` is
            // `"<mtime in hex>-<size in hex>"`, and a request with it in `If-None-Match` gets `304`.
            let revalidatedFile = www.appendingPathComponent(String(Payload.revalidatedPath.dropFirst()))
            try Payload.data.write(to: revalidatedFile)
            try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: revalidatedFile.path)
            let attributes = try fileManager.attributesOfItem(atPath: revalidatedFile.path)
            let modified = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
            let revalidatedTag = "\"\(String(modified, radix: 16))-\(String(Payload.data.count, radix: 16))\""

            let prefix = directory.path
            let configuration = """
                daemon off;
                master_process on;
                worker_processes 1;
                pid \(prefix)/nginx.pid;
                error_log \(prefix)/error.log warn;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    client_body_temp_path \(prefix)/client_body;
                    proxy_temp_path \(prefix)/proxy;
                    fastcgi_temp_path \(prefix)/fastcgi;
                    uwsgi_temp_path \(prefix)/uwsgi;
                    scgi_temp_path \(prefix)/scgi;
                    keepalive_timeout 120s;
                    keepalive_requests 1000000;
                    types { application/json json; }
                    default_type application/octet-stream;
                    server {
                        listen 127.0.0.1:\(port);
                        root \(www.path);
                        location = \(Payload.path) { }
                        location = \(Payload.revalidatedPath) { add_header Cache-Control no-cache; }
                        location / { return 404; }
                    }
                }

                """
            let configurationFile = directory.appendingPathComponent("nginx.conf")
            try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
            let errorLog = "\(prefix)/error.log"

            let fds = try closeOnExecPipe()
            let watchdog: pid_t
            do {
                watchdog = try spawn(
                    "/bin/sh", ["-c", watchdogScript, executable, prefix, configurationFile.path, errorLog],
                    stdin: fds[0], output: nil)
            } catch {
                close(fds[0])
                close(fds[1])
                throw error
            }
            close(fds[0])
            let server = NginxServer(
                name: "nginx \(version(of: executable))", port: port, revalidatedTag: revalidatedTag,
                watchdog: watchdog, pipeWriteEnd: fds[1], directory: directory)
            do {
                try waitUntilAccepting(port: port, timeout: 5, while: { waitpid(watchdog, nil, WNOHANG) == 0 })
            } catch {
                let log = (try? String(contentsOf: URL(fileURLWithPath: errorLog), encoding: .utf8)) ?? ""
                server.stopNow()
                throw BenchError("nginx did not start on 127.0.0.1:\(port): \(error)\n\(log)")
            }
            return server
        }

        /// `1.22.1` from `nginx -v`.
        private static func version(of executable: String) -> String {
            guard let fds = try? closeOnExecPipe() else { return "?" }
            let pid = try? spawn(executable, ["-v"], stdin: nil, output: fds[1])
            close(fds[1])
            var output = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(fds[0], &buffer, buffer.count)
                if count <= 0 { break }
                output += buffer[0..<count]
            }
            close(fds[0])
            if let pid { waitpid(pid, nil, 0) }
            let text = String(decoding: output, as: UTF8.self)
            return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        }

        func stop() async {
            stopNow()
        }

        /// Closes the watchdog's stdin (it then stops nginx and waits for it), waits for the
        /// watchdog, and removes the temporary directory.
        func stopNow() {
            lock.lock()
            let first = !stopped
            stopped = true
            lock.unlock()
            guard first else { return }
            close(pipeWriteEnd)
            var status: Int32 = 0
            while waitpid(watchdog, &status, 0) < 0, errno == EINTR {}
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A pipe, `[read end, write end]`, both close-on-exec so no child inherits them by accident.
    func closeOnExecPipe() throws -> [Int32] {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw BenchError("pipe: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fds
    }

    /// Starts `path` with `arguments`, stdin from `stdin` (else /dev/null), stdout and stderr to
    /// `output` (else /dev/null), every other descriptor closed (they are all close-on-exec here),
    /// and — unlike `Foundation.Process` from a concurrency thread — every signal unblocked and at
    /// its default action, so a shell child can `wait` and be stopped with SIGTERM.
    func spawn(_ path: String, _ arguments: [String], stdin: Int32?, output: Int32?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw BenchError("posix_spawn \(path): error \(result)") }
        return pid
    }

#endif

// MARK: - FlyingFox

/// FlyingFox in this process: the fallback when nginx is not installed. Its CPU time counts in
/// this process's `getrusage`, so CPU per request includes the server's share.
///
/// FlyingFox 0.27.1 does not set `TCP_NODELAY`; on Linux loopback its separate writes of head
/// and body then meet libcurl's delayed ACK and every request takes ≈ 40 ms. ``NoDelayPool``
/// sets the option on every socket the server waits on (the listening socket first, whose
/// accepted sockets inherit it on Linux).
final class FlyingFoxServer: BenchServer {
    let name = "FlyingFox 0.27 (in-process)"
    let revalidatedTag = Payload.revalidatedTag
    let port: Int
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(port: Int, server: HTTPServer, task: Task<Void, any Error>) {
        self.port = port
        self.server = server
        self.task = task
    }

    static func start() async throws -> FlyingFoxServer {
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 120,
            pool: NoDelayPool(HTTPServer.defaultPool()), logger: .disabled)
        let body = Payload.data
        await server.appendRoute(HTTPRoute("GET \(Payload.path)")) { _ in
            HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        }
        await server.appendRoute(HTTPRoute("GET \(Payload.revalidatedPath)")) { request in
            if request.headers[HTTPHeader("If-None-Match")] == Payload.revalidatedTag {
                let headers: HTTPHeaders = [HTTPHeader("ETag"): Payload.revalidatedTag, HTTPHeader("Cache-Control"): "no-cache"]
                return HTTPResponse(statusCode: .notModified, headers: headers)
            }
            return HTTPResponse(
                statusCode: .ok,
                headers: [
                    .contentType: "application/json", HTTPHeader("ETag"): Payload.revalidatedTag,
                    HTTPHeader("Cache-Control"): "no-cache",
                ],
                body: body)
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port)? = await server.listeningAddress else {
            task.cancel()
            throw BenchError("FlyingFox is not listening on an IPv4 address")
        }
        return FlyingFoxServer(port: Int(port), server: server, task: task)
    }

    func stop() async {
        await server.stop(timeout: 1)
        task.cancel()
    }
}

/// The default socket pool, setting `TCP_NODELAY` on each socket before it waits.
struct NoDelayPool<Pool: AsyncSocketPool>: AsyncSocketPool {
    let pool: Pool
    init(_ pool: Pool) { self.pool = pool }

    func prepare() async throws { try await pool.prepare() }
    func run() async throws { try await pool.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        // Fails harmlessly (ENOTSUP / EOPNOTSUPP) on anything that is not a TCP socket.
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        try await pool.suspendSocket(socket, untilReadyFor: events)
    }
}

// MARK: - Sockets

/// A port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() throws -> Int {
    try withLoopbackSocket { fd, address in
        var address = address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw BenchError("bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw BenchError("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Waits until a TCP connection to 127.0.0.1:`port` succeeds.
func waitUntilAccepting(port: Int, timeout: Double, while alive: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        guard alive() else { throw BenchError("the server process exited") }
        let connected = try withLoopbackSocket(port: port) { fd, address in
            var address = address
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        }
        if connected { return }
        usleep(20_000)
    }
    throw BenchError("nothing accepted connections within \(timeout) s")
}

private func withLoopbackSocket<T>(port: Int = 0, _ body: (Int32, sockaddr_in) throws -> T) throws -> T {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return try body(fd, address)
}
