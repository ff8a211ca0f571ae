#!/usr/bin/env python3
"""Splits the CPU of `perf record -g` profiles into what Courier's call path does, per request.

    perf record -F 1999 -g -o raw.data -- Benchmarks/.build/release/courier-bench \
        --clients raw-ahc --mode concurrent --rounds 3 --requests 20000 --warmup 2000
    (the same for ahc-transport and courier-ahc)
    python3 Benchmarks/perf-split.py --requests 62000 --hz 1999 raw.data ahc-transport.data courier-ahc.data

Each sample goes to the first bucket (below) that one of its frames matches, walking from the
leaf towards the root, so that a `swift_retain` or a `malloc` counts for the Courier function that
called it. Samples with no matching frame are classed by their leaf. nginx's samples are left
out. The last column is the last profile minus the one before it (Courier minus the transport
called by hand, in the example), in CPU µs per request.
"""
import argparse
import collections
import re
import subprocess

BUCKETS = [
    ("JSON decode of the model", r"JSONBodyDecoder|JSONDecoder|JSONScanner|JSONMap|courier_bench4Item"),
    ("Courier: the endpoint's base URL and path", r"7Courier7BaseURLV|7Courier7URLPathV|HostValidation|ParsedGetItem|GetItemV"),
    ("Courier: request building (RequestBuilder, RequestTarget)", r"14RequestBuilderO|13RequestTargetV|HeaderItem"),
    ("Courier: Client (send, admission, scope, prepare)", r"7Courier6ClientC|CallScope|CallGate|PauseGate"),
    ("Courier: Call (enqueue, resume)", r"7Courier4CallV"),
    ("Courier: response value and status check", r"7Courier16StreamedResponseV|7Courier8ResponseV|ResponseBody|ResponseLocation|ResponseHead"),
    ("Courier: pipeline (attempt, stages)", r"8PipelineV|12CallPipelineV|AttemptObservation|Stage"),
    ("Courier: AsyncHTTPClientTransport", r"AsyncHTTPClient(Transport|Exchange)|EventLoopResumingExecutor"),
    ("Courier: other", r"7Courier"),
    ("the benchmark's own code", r"courier_bench"),
    ("async-http-client", r"15AsyncHTTPClient"),
    ("SwiftNIO", r"NIO"),
]
BUCKETS = [(name, re.compile(pattern)) for name, pattern in BUCKETS]


def split(path):
    script = subprocess.run(
        ["perf", "script", "-i", path, "-F", "comm,tid,ip,sym", "--no-demangle"],
        check=True, capture_output=True, text=True).stdout
    counts = collections.Counter()
    stack, comm = [], None

    def flush():
        if not stack or comm == "nginx":
            return
        for frame in stack:
            for name, pattern in BUCKETS:
                if pattern.search(frame):
                    counts[name] += 1
                    return
        leaf = stack[0]
        if re.search(r"swift_retain|swift_release|swift_bridgeObject|swift_unknownObject", leaf):
            counts["reference counting, no caller found"] += 1
        elif re.search(r"malloc|free|swift_task_alloc|swift_task_dealloc|swift_alloc|swift_dealloc", leaf):
            counts["allocation, no caller found"] += 1
        else:
            counts["runtime, libc and kernel, no caller found"] += 1

    for line in script.splitlines():
        if line.startswith("\t"):
            parts = line.strip().split(None, 1)
            stack.append(parts[1] if len(parts) > 1 else parts[0])
        elif line.strip():
            flush()
            stack, comm = [], line.split()[0]
    flush()
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, required=True, help="requests each profile ran, warm-up included")
    parser.add_argument("--hz", type=int, required=True, help="perf record's -F")
    parser.add_argument("profiles", nargs="+")
    args = parser.parse_args()
    profiles = [split(path) for path in args.profiles]
    per_request = 1e6 / args.hz / args.requests
    names = sorted(set().union(*profiles), key=lambda name: -(profiles[-1][name] - profiles[-2][name] if len(profiles) > 1 else profiles[0][name]))
    header = " ".join(f"{path.rsplit('/', 1)[-1][:14]:>14s}" for path in args.profiles)
    print(f"{'CPU µs per request':58s} {header}" + ("   last − previous" if len(profiles) > 1 else ""))
    for name in names + ["total"]:
        values = [sum(p.values()) if name == "total" else p[name] for p in profiles]
        row = " ".join(f"{v * per_request:14.2f}" for v in values)
        difference = f"   {(values[-1] - values[-2]) * per_request:+8.2f}" if len(profiles) > 1 else ""
        print(f"{name:58s} {row}{difference}")


if __name__ == "__main__":
    main()
