#!/usr/bin/env bash
# Runs the README's test command (`swift test`; after `swift build --build-tests` it builds nothing) while busy processes
# hold every core, and fails on any failed test or recorded issue.
#
#   bash .ci/busy-test.sh                  # the whole suite, one busy process per core
#   bash .ci/busy-test.sh --filter Retry   # extra arguments go to `swift test`
#
# Why: users run `swift test` on laptops that are compiling something else and on shared 2-core CI
# runners, and Swift Testing runs the whole suite in parallel, so the suite is its own load. A
# test that passes only on a quiet machine (a wall-clock assertion, a concurrency test that
# leans on a request timeout, thousands of calls racing a one-minute time limit) fails here.
# With one `yes` per core, the test process gets about half the CPU it would have alone.
#
# The log is kept at $BUSY_TEST_LOG (default: a temporary file) and the last line printed is
# the summary: tests, issues and the duration Swift Testing reports.
set -euo pipefail
cd "$(dirname "$0")/.."

cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
[ "$cores" -ge 2 ] || cores=2
log=${BUSY_TEST_LOG:-$(mktemp -t busy-test.XXXXXX)}

hogs=()
stop_hogs() {
    local pid
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
    hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for _ in $(seq "$cores"); do
    yes >/dev/null &
    hogs+=($!)
done
echo "busy-test: $cores busy processes (${hogs[*]}) hold the cores; swift test $* (log: $log)"

status=0
swift test "$@" >"$log" 2>&1 || status=$?
stop_hogs

# Swift Testing's last line: "✔ Test run with 1636 tests in 198 suites passed after 93.1 seconds."
# or "✘ Test run with 1636 tests in 198 suites failed after 331.0 seconds with 20 issues."
summary=$(grep -E "Test run with [0-9]+ tests? " "$log" | tail -1 || true)
failures=$(grep -E "^✘ |recorded an issue|Time limit was exceeded" "$log" | grep -v "Test run with" || true)
if [ -n "$failures" ]; then
    printf '%s\n' "$failures" | head -200
fi
# XCTest runs first and prints its own summary; the package has no XCTest cases, but count them.
xctest=$(grep -E "^Executed [0-9]+ tests?, with [1-9][0-9]* failures?" "$log" || true)
[ -z "$xctest" ] || printf '%s\n' "$xctest"

echo "busy-test: ${summary:-no Swift Testing summary (see $log)}"
if [ "$status" -ne 0 ] || [ -n "$failures" ] || [ -n "$xctest" ] || [ -z "$summary" ] || [[ "$summary" != *" passed after "* ]]; then
    echo "error: swift test failed with every core busy (exit $status); the log is $log" >&2
    exit 1
fi
