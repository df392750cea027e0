#!/usr/bin/env bash
# The cost of telemetry on a one-step `agent -p hi` against the scripted
# server, release builds (stripped, as goreleaser builds them):
#   - off (nothing configured), this build against a build of REV (default
#     ae81607, main before OpenTelemetry);
#   - on: OTLP/HTTP to bench/otlp-sink, all three signals, against off.
# And the two builds' sizes. Needs hyperfine (apt-get install -y hyperfine).
# Usage: bench/telemetry.sh [RUNS] [REV]   (default 40 runs each; medians)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-40}
rev=${2:-ae81607}
out=bench/out
mkdir -p "$out"
flags=(-trimpath -tags grpcnotrace -ldflags "-s -w")
go build "${flags[@]}" -o "$out/agent-telemetry" .
before=$(mktemp -d)
git worktree add -q --detach "$before" "$rev"
(cd "$before" && go build "${flags[@]}" -o "$OLDPWD/$out/agent-before" .)
git worktree remove --force "$before"
go build -o "$out/scripted-server" ./bench/scripted-server
go build -o "$out/otlp-sink" ./bench/otlp-sink

rm -f "$out/server.url" "$out/sink.url"
"$out/scripted-server" -addr 127.0.0.1:0 > "$out/server.url" &
server=$!
"$out/otlp-sink" > "$out/sink.url" &
sink=$!
trap 'kill $server $sink 2>/dev/null' EXIT
while [ ! -s "$out/server.url" ] || [ ! -s "$out/sink.url" ]; do sleep 0.05; done
url=$(head -1 "$out/server.url")
endpoint=$(head -1 "$out/sink.url")
work=$(mktemp -d)
hi="-p hi --no-stdin --base-url $url --model scripted -C $work"

ls -l "$out/agent-before" "$out/agent-telemetry" | awk '{print $5, $9}'
hyperfine -N --warmup 5 --runs "$runs" --export-json "$out/telemetry.json" \
  "$out/agent-before $hi" "$out/agent-telemetry $hi" \
  "env OTEL_EXPORTER_OTLP_ENDPOINT=$endpoint $out/agent-telemetry $hi"
python3 - "$out/telemetry.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cpu = (r["user"] + r["system"]) * 1000
    print(f"{r['command'][:70]:70s} median {r['median']*1000:6.2f} ms  cpu (mean) {cpu:6.2f} ms")
PY
rm -rf "$work"
