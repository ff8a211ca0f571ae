#!/usr/bin/env bash
# Builds the package and its tests with ThreadSanitizer and/or AddressSanitizer and runs every
# test under them, in five passes per sanitizer.
#
#   bash .ci/sanitizers.sh                 # thread, then address
#   bash .ci/sanitizers.sh thread          # one of them
#
# Each sanitizer has its own scratch path (.build-tsan, .build-asan; git-ignored as `.build-*/`),
# so the normal .build stays as it is and a second run only rebuilds what changed.
#
# Why five passes and not one `swift test --sanitize=…`:
# Swift Testing starts every suite at once, and on a 2-core machine the cooperative pool has two
# threads. Under ThreadSanitizer everything runs 5–15 times slower, and the CPU-bound unit suites
# (600,000-round PBKDF2 in FileTokenStore, 10,000 concurrent TokenRefresher callers) then hold
# both pool threads for tens of seconds while the loopback suites wait with real-time budgets
# (30 s request timeouts, 10 s for a server to listen, 60 s time limits): in one pass ~25 tests
# fail, none of them by a race, and each passes alone. URLSession adds to it: on Linux
# (corelibs-foundation) every session's work runs on one process-wide serial queue, which a
# streamed upload holds while its body producer is slower than the network, and which
# `URLSessionTask.resume()` waits for synchronously. So:
#   1. unit:            CourierTests, CourierEndpointsTests, CourierXMLTests, the guides (no real network);
#   2. loopback:        CourierIntegrationTests and CourierTestingTests (stubbed URLSession), one
#                       test at a time (`--no-parallel`),
#                       without the suites of passes 3–5;
#   3. token rotation:  TokenRotationIntegrationTests, one test at a time (`--no-parallel`): each
#                       sends 1,000 to 20,000 calls through URLSession; five at once under
#                       ThreadSanitizer starve the loopback suites and their own 30 s token
#                       request (seen: the invalid_grant test's held token request timed out
#                       while its 1,000 calls were still starting);
#   4. queue-sensitive: QueueSensitiveTests alone (multipart and streamed uploads, timeouts,
#                       stalled uploads), which hold URLSession's queue on purpose or by nature;
#   5. streaming:       StreamingResponseIntegrationTests and TransportContractTests, one test at
#                       a time, with 16 MB bodies instead of 100 MB (COURIER_SANITIZER): run
#                       with the loopback suites under ThreadSanitizer, their transfers timed
#                       out five unrelated tests.
# No time limit is raised for the sanitizers: every test keeps the budget it has in `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
[ "${#sanitizers[@]}" -gt 0 ] || sanitizers=(thread address)

# Leaks are checked (LeakSanitizer runs with AddressSanitizer on Linux); the suppressions file
# lists, one by one and with the reason, the leaks that are not Courier's.
export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan-suppressions.txt:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# A ThreadSanitizer report fails the pass (it exits 66 after reporting); AddressSanitizer aborts
# at its first report. Reports that are not Courier's are suppressed one by one, with the reason.
export TSAN_OPTIONS="suppressions=$PWD/.ci/tsan-suppressions.txt${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

timings=()
timed() {
    local name=$1
    shift
    local start=$SECONDS
    printf '\n==> %s\n' "$name"
    "$@"
    local took=$((SECONDS - start))
    timings+=("$(printf '%-42s %4d s' "$name" "$took")")
    printf '<== %s: %d s\n' "$name" "$took"
}
report() {
    printf '\nSanitizer timings:\n'
    local line
    for line in "${timings[@]}"; do printf '  %s\n' "$line"; done
}
trap report EXIT

for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
        thread) scratch=.build-tsan ;;
        address) scratch=.build-asan ;;
        *) echo "error: unknown sanitizer '$sanitizer' (thread or address)" >&2; exit 2 ;;
    esac
    flags=(--sanitize="$sanitizer" --scratch-path "$scratch")
    timed "$sanitizer: swift build --build-tests" swift build --build-tests "${flags[@]}"
    timed "$sanitizer: unit tests" \
        swift test --skip-build "${flags[@]}" --skip CourierIntegrationTests --skip CourierTestingTests
    # One test at a time: run in parallel under a sanitizer, 149 real-server tests on 2 cores
    # starve FlyingFox and the sockets of each other (seen: a keep-alive connection closed under
    # a redirect chain, a reset on a fresh connection, a port taken over by another test's server
    # right after a receiver closed it). One at a time they take about 12 s in a debug build.
    timed "$sanitizer: loopback and stub tests, one at a time" \
        swift test --skip-build "${flags[@]}" --no-parallel --filter CourierIntegrationTests --filter CourierTestingTests \
        --skip QueueSensitiveTests --skip TokenRotationIntegrationTests \
        --skip StreamingResponseIntegrationTests --skip TransportContractTests --skip DownloadIntegrationTests
    timed "$sanitizer: token rotation tests, one at a time" \
        swift test --skip-build "${flags[@]}" --filter TokenRotationIntegrationTests --no-parallel
    timed "$sanitizer: queue-sensitive tests" \
        swift test --skip-build "${flags[@]}" --filter QueueSensitiveTests
    # Large streamed bodies on both transports: alone, so their load does not time out the
    # others, and with smaller bodies (COURIER_SANITIZER, read by the tests).
    timed "$sanitizer: streaming, transport-contract and download tests, one at a time" \
        env COURIER_SANITIZER="$sanitizer" swift test --skip-build "${flags[@]}" \
        --filter StreamingResponseIntegrationTests --filter TransportContractTests --filter DownloadIntegrationTests --no-parallel
done
