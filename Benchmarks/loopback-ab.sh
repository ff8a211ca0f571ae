#!/usr/bin/env bash
# Loopback clients compared in one run, each client in a process of its own.
#
#   bash Benchmarks/loopback-ab.sh raw-ahc courier-ahc                      # 9 alternations
#   bash Benchmarks/loopback-ab.sh raw-ahc courier-ahc,courier-ahc-304 15   # more clients, more alternations
#   SERVER=flyingfox REQUESTS=3000 ROUNDS=3 bash Benchmarks/loopback-ab.sh raw-ahc courier-ahc
#
# `courier-bench --clients A,B` runs both clients in one process, alternating rounds. Their
# states then share the process: two async-http-client pools on the same event loops, the
# connections of the idle client kept open, one allocator. Against nginx on 2 cores that moved
# the ratio of two clients by more than the effects being measured. Here each alternation runs
# every client alone (`--clients X --mode both`: one at a time first, which also warms the process
# up, then 16 in flight), in the order given, then reversed at the next alternation, so that a
# machine that slows down during the run favours no client. The script prints the median over the
# alternations of req/s and CPU µs per request (this process's CPU only: nginx runs in its own)
# for each client and mode, and each client's ratio to the first one (the baseline).
#
# Builds nothing: run `swift build -c release --package-path Benchmarks` first.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=${1:?usage: loopback-ab.sh BASELINE-CLIENT CLIENT[,CLIENT…] [ALTERNATIONS]}
others=${2:?usage: loopback-ab.sh BASELINE-CLIENT CLIENT[,CLIENT…] [ALTERNATIONS]}
alternations=${3:-9}
server=${SERVER:-nginx}
requests=${REQUESTS:-2000}
rounds=${ROUNDS:-3}
bench=Benchmarks/.build/release/courier-bench
[ -x "$bench" ] || { echo "no $bench: run swift build -c release --package-path Benchmarks" >&2; exit 1; }

IFS=, read -r -a clients <<< "$baseline,$others"
results=$(mktemp "${TMPDIR:-/tmp}/courier-loopback-ab.XXXXXX")
trap 'rm -f "$results"' EXIT

echo "==> ${clients[*]}: $alternations alternations of $rounds × $requests requests per mode, server $server"
for ((i = 0; i < alternations; i++)); do
    order=("${clients[@]}")
    if ((i % 2 == 1)); then
        order=()
        for ((j = ${#clients[@]} - 1; j >= 0; j--)); do order+=("${clients[j]}"); done
    fi
    for client in "${order[@]}"; do
        # The summary rows: "sequential <client> req/s p50 p99 cpu ctx" and "16 in flight <client> …".
        "$bench" --server "$server" --clients "$client" --baseline "$client" --requests "$requests" \
            --rounds "$rounds" --mode both 2>&1 |
            awk -v c="$client" '$1 == "sequential" && $2 == c { print "sequential", c, $3, $6 }
                                $1 == "16" && $4 == c { print "concurrent", c, $5, $8 }' >> "$results"
    done
    printf '.'
done
echo

# Medians per client and mode, then the ratios to the baseline.
python3 - "$results" "$baseline" "${clients[@]}" <<'EOF'
import statistics, sys
path, baseline, clients = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {}
for line in open(path):
    mode, client, rate, cpu = line.split()
    rows.setdefault((mode, client), []).append((float(rate), float(cpu)))
for mode, title in (("sequential", "one at a time"), ("concurrent", "16 in flight")):
    base = rows.get((mode, baseline))
    if not base:
        continue
    base_rate = statistics.median(r for r, _ in base)
    base_cpu = statistics.median(c for _, c in base)
    print(f"{title}: median of {len(base)} runs each")
    print(f"  {'client':<26}{'req/s':>9}{'CPU µs/req':>12}{'throughput ×':>15}{'CPU ×':>8}")
    for client in clients:
        values = rows.get((mode, client), [])
        if not values:
            print(f"  {client:<26}  (no result)")
            continue
        rate = statistics.median(r for r, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"  {client:<26}{rate:>9.0f}{cpu:>12.1f}{rate / base_rate:>15.3f}{cpu / base_cpu:>8.3f}")
EOF
