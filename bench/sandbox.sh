#!/usr/bin/env bash
# Added latency of a sandboxed command: a whole bash tool call, unsandboxed
# and in workspace-write (Landlock, user/mount/network namespaces, read-only
# remounts, subreaper, the process bound, the session's tmpfs and the git
# guard; and without the last three), for `true` and a short `ls`, with the
# helper the agent starts: the small one it embeds (tools/shell/sandbox/helperbin).
# HELPER=PATH starts that program as the helper instead (the agent's binary,
# as before the small helper). Prints the median of COUNT runs of 300 calls
# each.
# Usage: bench/sandbox.sh [COUNT]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10}
mkdir -p bench/out
AGENT_SANDBOX_HELPER="${HELPER:-}" go test -run '^$' -bench BenchmarkCommand -benchtime 300x \
  -count "$count" ./tools/shell/sandbox/ > bench/out/sandbox.txt
python3 - bench/out/sandbox.txt <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"BenchmarkCommand/(\S+?)-\d+\s+\d+\s+(\d+) ns/op", line)
    if m:
        runs.setdefault(m.group(1), []).append(int(m.group(2)) / 1e6)
med = {k: statistics.median(v) for k, v in runs.items()}
for k in sorted(med):
    print(f"{k:30s} median {med[k]:.2f} ms over {len(runs[k])} runs")
for cmd in ("true", "ls"):
    print(f"added by the sandbox ({cmd}): {med['workspace-write/' + cmd] - med['off/' + cmd]:.2f} ms"
          f" (without the bounds and the git guard: {med['workspace-write-bare/' + cmd] - med['off/' + cmd]:.2f} ms)")
PY
