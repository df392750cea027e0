#!/bin/sh
# Benchmarks the grep and list_files tools against ripgrep and fd on a
# generated tree of 100,000 files (created once under $TMPDIR, reused after)
# and prints ms/op with the ratio agent/external. Installs nothing: without
# rg or fdfind (apt-get install -y ripgrep fd-find) those rows are skipped.
# Usage: bench/fs.sh [benchtime]   (default 5x, enough on 2 cores)
set -eu
cd "$(dirname "$0")/.."
benchtime=${1:-5x}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench '^Benchmark(Grep|ListFiles)$' -benchtime "$benchtime" -count 1 ./bench/ >"$out" 2>&1 || {
	cat "$out"
	exit 1
}
grep -E '^(cpu|goos):' "$out" || true
awk '
/^Benchmark/ {
	name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
	n = split(name, part, "/"); tool = part[n]; group = substr(name, 1, length(name) - length(tool) - 1)
	ms[group, tool] = $3 / 1e6; count[group, tool] = $5
	if (!(group in seen)) { seen[group] = 1; order[++groups] = group }
	if (tool != "agent") ext[group] = tool
}
/SKIP|skip/ { print }
END {
	printf "%-22s %12s %12s %10s %8s %s\n", "case", "agent ms/op", "ext ms/op", "ext", "ratio", "results (agent/ext)"
	for (i = 1; i <= groups; i++) {
		g = order[i]; e = ext[g]
		if (e == "") { printf "%-22s %12.1f %12s %10s %8s %s\n", g, ms[g, "agent"], "-", "-", "-", count[g, "agent"]; continue }
		printf "%-22s %12.1f %12.1f %10s %7.2fx %s/%s\n", g, ms[g, "agent"], ms[g, e], e, ms[g, "agent"] / ms[g, e], count[g, "agent"], count[g, e]
	}
}' "$out"
