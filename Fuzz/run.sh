#!/usr/bin/env bash
# Builds Courier's libFuzzer targets (Fuzz/Package.swift) with -sanitize=fuzzer,address and runs
# each for a fixed time from a copy of its committed seed corpus (Fuzz/Corpus/<Target>/).
#
#   Fuzz/run.sh                        # every target, FUZZ_SECONDS (60) each
#   Fuzz/run.sh FuzzRetryAfter         # only the named targets
#   FUZZ_SECONDS=600 FUZZ_JOBS=1 Fuzz/run.sh FuzzXMLTree
#
# Environment:
#   FUZZ_SECONDS   seconds per target (-max_total_time), default 60
#   FUZZ_JOBS      targets run at the same time, default 2 (one per core on CI's machine)
#   FUZZ_BUILD     0 to skip the build and use the binaries already in the scratch path
#   FUZZ_SCRATCH   the build folder, default <repo>/.build-fuzz (git-ignored)
#   FUZZ_OUT       where corpora, logs and crashing inputs go, default a new temp folder
#   FUZZ_SEED      libFuzzer's -seed; unset (the default) picks a new one each run. CI sets it, so
#                  a landing is never refused by a new input that a different seed happened upon:
#                  CI replays the committed corpus and explores the same way every time, and
#                  exploring with fresh seeds (FUZZ_SECONDS=600 Fuzz/run.sh) is done by hand.
#
# Prints, per target, the executions, coverage (cov: edges, ft: features) and corpus size from
# libFuzzer's final line. Exits non-zero if any target crashed, leaked, timed out (10 s per
# input) or ran out of memory (2 GiB), printing the crashing input's path, its base64 and the
# end of the log. The committed corpus is never modified.
set -euo pipefail

fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
repo_dir="$(dirname "$fuzz_dir")"
seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-2}"
scratch="${FUZZ_SCRATCH:-$repo_dir/.build-fuzz}"
out="${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/courier-fuzz.XXXXXX")}"
mkdir -p "$out"

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# Every folder under Sources/ but the shared support module is a target.
all_targets=()
for dir in "$fuzz_dir"/Sources/Fuzz*/; do
    name="$(basename "$dir")"
    [ "$name" = FuzzSupport ] || all_targets+=("$name")
done
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

# -max_len per target: long enough for the inputs that matter, short enough that each
# execution stays fast. The XML targets are capped at 8 KiB: a bigger document is not needed to
# reach every branch (the nesting and element limits are tested with small limits in the unit
# tests), and only slows each execution. The authorization response and the loopback request
# head get past their own 8 KiB limits.
max_len_for() {
    case "$1" in
        FuzzXMLTree | FuzzXMLBodyDecoder | FuzzSOAP) echo 8192 ;;
        FuzzAuthorizationResponse | FuzzLoopbackRequest) echo 9000 ;;
        FuzzQueryString) echo 1024 ;;
        *) echo 4096 ;;
    esac
}

# LeakSanitizer per target. Off for the XML targets: FoundationXML leaks one string for every
# document libxml2 reports an error in (suppressed in lsan.supp), so nearly every input would
# make libFuzzer run a full leak scan, which made them 5 times slower. Courier's XML code holds
# only value types; the other targets keep leak detection.
detect_leaks_for() {
    case "$1" in
        FuzzXMLTree | FuzzXMLBodyDecoder | FuzzSOAP) echo 0 ;;
        *) echo 1 ;;
    esac
}

if [ "${FUZZ_BUILD:-1}" != 0 ]; then
    echo "==> building ${#all_targets[@]} fuzz targets in $scratch"
    build_start=$(date +%s)
    # -sanitize=fuzzer instruments every Swift module (Courier's included) for coverage and links
    # libFuzzer's main; -parse-as-library because each target's one file has no top-level code.
    # Debug keeps -enable-testing, which the targets' `@testable import Courier` needs.
    swift build --package-path "$fuzz_dir" --scratch-path "$scratch" -c debug \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
    echo "    built in $(( $(date +%s) - build_start )) s"
fi
bin_dir="$(swift build --package-path "$fuzz_dir" --scratch-path "$scratch" -c debug --show-bin-path)"

run_target() {
    local target="$1" dir="$out/$1"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    if [ -d "$fuzz_dir/Corpus/$target" ]; then
        cp -R "$fuzz_dir/Corpus/$target/." "$dir/corpus/"
    fi
    local status=0
    # Swift's own crash backtracer would symbolicate for a minute before libFuzzer's handler
    # runs; libFuzzer and ASan print the stack themselves.
    SWIFT_BACKTRACE=enable=no \
    LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$fuzz_dir/lsan.supp:print_suppressions=0}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}" \
    "$bin_dir/$target" "$dir/corpus" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len_for "$target")" -detect_leaks="$(detect_leaks_for "$target")" \
        -print_final_stats=1 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        -artifact_prefix="$dir/artifacts/" >"$dir/log" 2>&1 || status=$?
    echo "$status" >"$dir/status"
}

echo "==> fuzzing ${#targets[@]} targets for ${seconds} s each, ${jobs} at a time; output in $out"
for target in "${targets[@]}"; do
    if [ ! -x "$bin_dir/$target" ]; then
        echo "error: no fuzz target $target in $bin_dir" >&2
        exit 2
    fi
done
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_target "$target" &
    running=$((running + 1))
done
wait || true

failed=0
printf '\n%-26s %-7s %12s %8s %8s %8s\n' target result executions cov ft corpus
for target in "${targets[@]}"; do
    dir="$out/$target"
    status="$(cat "$dir/status" 2>/dev/null || echo 1)"
    final="$(grep -E '^#[0-9]+.*cov: ' "$dir/log" | tail -n 1 || true)"
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
    cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")"
    ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")"
    corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$final")"
    result=ok
    [ "$status" = 0 ] || { result=FAILED; failed=1; }
    printf '%-26s %-7s %12s %8s %8s %8s\n' "$target" "$result" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
done

if [ "$failed" != 0 ]; then
    for target in "${targets[@]}"; do
        dir="$out/$target"
        [ "$(cat "$dir/status" 2>/dev/null || echo 1)" = 0 ] && continue
        echo
        echo "==> $target failed; log: $dir/log"
        for input in "$dir"/artifacts/*; do
            [ -f "$input" ] || continue
            echo "    input: $input ($(wc -c <"$input") bytes)"
            echo "    base64: $(head -c 4096 "$input" | base64 -w0)"
        done
        tail -n 60 "$dir/log" | sed 's/^/    /'
    done
    echo
    echo "error: a fuzz target failed; reproduce with: $bin_dir/<Target> <input>" >&2
    exit 1
fi
echo
echo "fuzzing passed: ${#targets[@]} targets, ${seconds} s each, no crash, leak or timeout"
