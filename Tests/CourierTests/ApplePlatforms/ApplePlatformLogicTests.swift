import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierConnectivity
@testable import CourierOAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The logic behind Courier's Apple-only branches, compiled and tested on every platform; the
/// branches themselves only call the system (and are type-checked on Linux by
/// `.ci/apple/typecheck.py`).
@Suite("Apple platforms: the logic behind their branches")
struct ApplePlatformLogicTests {
    // MARK: - URLSession asks for the body again (needNewBodyStream)

    /// Reads `stream` to its end on a thread of its own (a body stream's `read` blocks).
    static func readAll(_ stream: InputStream) async -> Data {
        nonisolated(unsafe) let stream = stream
        return await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            Thread {
                stream.open()
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 8192)
                while true {
                    let count = stream.read(&buffer, maxLength: buffer.count)
                    guard count > 0 else { break }
                    data.append(contentsOf: buffer[0..<count])
                }
                stream.close()
                continuation.resume(returning: data)
            }.start()
        }
    }

    @Test func aReplayableBodyIsGivenAgainFromItsStartAndTheOldPumpStops() async throws {
        let body = BoundStreamWriterTests.body(200_000)
        let old = BodyPump(stream: BoundStreamWriterTests.stream(body)) { _ in }
        let exchange = Exchange(pump: old)
        old.start()
        let replacement = try #require(exchange.replacementBodyStream())
        #expect(await Self.readAll(replacement) == body)
        var byte: UInt8 = 0
        #expect(old.read(into: &byte, maxLength: 1) == -1)
    }

    @Test func aSingleUseBodyIsNotGivenAgain() {
        let pump = BodyPump(stream: BoundStreamWriterTests.stream(Data("once".utf8), replayable: false)) { _ in }
        #expect(Exchange(pump: pump).replacementBodyStream() == nil)
        #expect(Exchange().replacementBodyStream() == nil)
    }

    @Test func anEndedExchangeGivesNoBodyAgain() {
        let pump = BodyPump(stream: BoundStreamWriterTests.stream(Data("body".utf8))) { _ in }
        let exchange = Exchange(pump: pump)
        exchange.cancel()
        #expect(exchange.replacementBodyStream() == nil)
    }

    /// URLSession's failure when it got no new stream says why, and keeps the URLError.
    @Test func anExhaustedBodyStreamIsATransportFailureThatSaysWhy() throws {
        let url = URL(string: "https://api.example.com/upload")!
        let completion = Completion(end: .none, error: .urlError(URLError(.requestBodyStreamExhausted)))
        guard case .transport(let failure)? = completion.failure(for: url) else {
            Issue.record("expected a transport failure")
            return
        }
        #expect(failure.urlError?.code == .requestBodyStreamExhausted)
        #expect(failure.message?.contains("can be read only once") == true)
    }

    /// A body whose stream could not be set up sends nothing (not a request without its body).
    @Test func aBodyThatFailedBeforeTheStartSendsNothing() async {
        let pump = BodyPump(stream: BoundStreamWriterTests.stream(Data("body".utf8))) { _ in }
        pump.failBody("no bound stream pair")
        let exchange = Exchange(pump: pump)
        let completion = await withCheckedContinuation { (continuation: CheckedContinuation<Completion, Never>) in
            exchange.start(continuation, deadline: .distantFuture) {
                Issue.record("a task was made for a body that had failed")
                return URLSession.shared.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
            }
        }
        guard case .bodyFailed(.transport(let failure)) = completion.end else {
            Issue.record("expected the body's failure, got \(completion.end)")
            return
        }
        #expect(failure.message == "no bound stream pair")
    }

    // MARK: - Cancelling a web authentication session

    typealias Outcome = SessionOutcome<Result<URL, CourierError>>

    /// The presenter's pattern: the session may never call back after `cancel()`; cancelling the
    /// task still ends the wait, with `.cancelled`.
    @Test(.timeLimit(.minutes(1)))
    func cancellingTheCallerEndsTheWaitEvenIfTheSessionNeverCallsBack() async {
        let outcome = Outcome()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let waiter = Task {
            await withTaskCancellationHandler {
                await outcome.wait { _ in startedContinuation.finish() }  // a session that never calls back
            } onCancel: {
                outcome.deliver(.failure(.cancelled))
            }
        }
        for await _ in started {}
        waiter.cancel()
        guard case .failure(.cancelled) = await waiter.value else {
            Issue.record("expected .cancelled")
            return
        }
    }

    @Test func aCancellationBeforeTheWaitStartsNothing() async {
        let outcome = Outcome()
        #expect(outcome.deliver(.failure(.cancelled)))
        let result = await outcome.wait { _ in Issue.record("a session was started for a cancelled call") }
        guard case .failure(.cancelled) = result else {
            Issue.record("expected .cancelled")
            return
        }
    }

    /// The first outcome wins: a late completion handler after a cancellation (or the reverse)
    /// changes nothing.
    @Test func onlyTheFirstOutcomeIsDelivered() async {
        let outcome = Outcome()
        let url = URL(string: "com.example.app:/callback?code=c")!
        let result = await outcome.wait { deliver in
            DispatchQueue.global().async {
                deliver(.success(url))
                deliver(.failure(.cancelled))
            }
        }
        #expect((try? result.get()) == url)
        #expect(!outcome.deliver(.failure(.cancelled)))
    }

    // MARK: - Keychain: the data-protection keychain or the login keychain

    @Test(arguments: [
        // requested, macOS, status, retries on the login keychain
        (Bool?.none, true, KeychainRoute.missingEntitlement, true),
        (Bool?.none, false, KeychainRoute.missingEntitlement, false),
        (Bool?.some(true), true, KeychainRoute.missingEntitlement, false),
        (Bool?.some(false), true, KeychainRoute.missingEntitlement, false),
        (Bool?.none, true, -25300 /* errSecItemNotFound */, false),
        (Bool?.none, true, 0, false),
    ])
    func theStoreFallsBackToTheLoginKeychainOnlyForAnUnentitledMacOSProcess(
        requested: Bool?, isMacOS: Bool, status: Int32, retries: Bool
    ) {
        var route = KeychainRoute(requested: requested)
        #expect(route.usesDataProtectionKeychain == (requested ?? true))
        let retried = route.retriesOnLoginKeychain(after: status, isMacOS: isMacOS)
        #expect(retried == retries)
        #expect(route.usesDataProtectionKeychain == (retries ? false : (requested ?? true)))
    }

    @Test func aStoreThatFellBackStaysOnTheLoginKeychain() {
        var route = KeychainRoute(requested: nil)
        let first = route.retriesOnLoginKeychain(after: KeychainRoute.missingEntitlement, isMacOS: true)
        let second = route.retriesOnLoginKeychain(after: KeychainRoute.missingEntitlement, isMacOS: true)
        #expect(first)
        #expect(!second)
        #expect(!route.usesDataProtectionKeychain)
    }

    // MARK: - Pins on a validated chain

    static let leaf = Data("leaf key".utf8)
    static let intermediate = Data("intermediate key".utf8)
    static let root = Data("root key".utf8)

    @Test(arguments: [[leaf, intermediate, root], [intermediate, root], [root]])
    func aPinMayNameAnyKeyOfTheValidatedChain(pinned: [Data]) throws {
        let policy = PinningPolicy(["api.example.com": pinned.map { PinningPolicy.Pin(publicKeyInfo: $0) }])
        try policy.check(host: "api.example.com", chain: [Self.leaf, Self.intermediate, Self.root])
        try policy.check(host: "api.example.com", chain: [nil, Self.intermediate, Self.root])  // an unreadable leaf key
    }

    @Test func aChainWithoutAPinnedKeyFailsNamingTheLeafKey() {
        let other = PinningPolicy.Pin(publicKeyInfo: Data("another key".utf8))
        let policy = PinningPolicy(["api.example.com": [other]])
        #expect {
            try policy.check(host: "api.example.com", chain: [Self.leaf, Self.intermediate, Self.root])
        } throws: { error in
            (error as? PinningFailure)?.presented == PinningPolicy.Pin(publicKeyInfo: Self.leaf)
        }
        #expect(throws: PinningFailure.self) { try policy.check(host: "api.example.com", chain: []) }
        #expect(throws: Never.self) { try policy.check(host: "unpinned.example.com", chain: []) }
    }

    // MARK: - Durability

    @Test func durableSyncFlushesAFileAndReportsABadDescriptor() throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("synced").path
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(write(descriptor, "durable", 7) == 7)
        #expect(durableSync(descriptor) == 0)
        #expect(durableSync(-1) == -1)
        #expect(errno == EBADF)
    }
}
