#!/usr/bin/env bash
# What a change costs per call, in one run: `courier-bench --overhead` built at BASE and at the
# working tree, run alternately, compared variant by variant.
#
#   bash Benchmarks/overhead-ab.sh f99a00a            # the commit before tracing and metrics
#   bash Benchmarks/overhead-ab.sh f99a00a 5000 3 7   # calls per variant, rounds, alternations
#
# Each alternation runs BASE's binary, then this tree's (the order flips every time, so a machine
# that slows down during the run does not favour one side), each with `--overhead CALLS --rounds
# ROUNDS`. For every variant both builds have, the script prints the median over the
# alternations of CPU µs per call (one call at a time) and allocations per call, and the ratio
# this tree / BASE. `direct` (the transport called by hand, no Courier code) is the control: its
# ratio is the noise of the run, since neither build changed it.
#
# BASE is built in a temporary git worktree (removed at the end); its first release build takes
# about as long as this tree's (several minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:?usage: overhead-ab.sh BASE-REVISION [CALLS] [ROUNDS] [ALTERNATIONS]}
calls=${2:-5000}
rounds=${3:-3}
alternations=${4:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/courier-ab.XXXXXX")
cleanup() {
    git worktree remove --force "$work/base" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

git worktree add --detach "$work/base" "$base" >/dev/null
echo "==> building courier-bench at $base ($(git rev-parse --short "$base"))"
swift build -c release --package-path "$work/base/Benchmarks" 2>&1 | tail -1
echo "==> building courier-bench at the working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', with changes'))"
swift build -c release --package-path Benchmarks 2>&1 | tail -1
binaries=("$work/base/Benchmarks/.build/release/courier-bench" "$PWD/Benchmarks/.build/release/courier-bench")

# The "one call at a time" table of one run, as "variant cpu mallocs" lines.
sequential_table() {
    awk '/^one call at a time:/ { on = 1; next } /^$/ { on = 0 } on && $1 != "variant" { print $1, $3, $5 }'
}

for ((i = 0; i < alternations; i++)); do
    order=(0 1)
    ((i % 2 == 1)) && order=(1 0)
    for side in "${order[@]}"; do
        name=$([ "$side" = 0 ] && echo base || echo head)
        "${binaries[$side]}" --overhead "$calls" --rounds "$rounds" | sequential_table | sed "s/^/$name /" >>"$work/figures"
    done
    echo "alternation $((i + 1)) of $alternations done"
done

echo
echo "courier-bench --overhead $calls --rounds $rounds, $alternations alternations, one call at a time; medians:"
awk '
    function median(list,    n, values, a, b, t) {
        n = split(list, values, " ")
        for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (values[b] + 0 < values[a] + 0) { t = values[a]; values[a] = values[b]; values[b] = t }
        return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
    }
    {
        key = $2
        if (!(key in seen)) { seen[key] = 1; order[++count] = key }
        cpu[$1, key] = cpu[$1, key] " " $3
        mallocs[$1, key] = mallocs[$1, key] " " $4
    }
    END {
        printf "%-18s %12s %12s %8s %14s %14s\n", "variant", "base CPU µs", "head CPU µs", "ratio", "base mallocs", "head mallocs"
        for (i = 1; i <= count; i++) {
            key = order[i]
            if (!(("base", key) in cpu) || !(("head", key) in cpu)) continue
            b = median(cpu["base", key]); h = median(cpu["head", key])
            bm = mallocs["base", key]; hm = mallocs["head", key]
            printf "%-18s %12.2f %12.2f %8.3f %14s %14s\n", key, b, h, h / b, (bm ~ /–/ ? "–" : median(bm)), (hm ~ /–/ ? "–" : median(hm))
        }
    }' "$work/figures"
