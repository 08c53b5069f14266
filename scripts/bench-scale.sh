#!/usr/bin/env bash
# bench-scale: time and peak RSS of ub's pipeline over a synthetic fidelity
# study at growing scale, and the growth exponent of each step (the slope of
# log time and log RSS against log episodes, least squares over the scales
# run). Not part of `make test`: it writes gigabytes at the largest scales.
#
#   scripts/bench-scale.sh [SCALE...]     default: 1 10 100 381
#
# Scale 1 is the seed's 2,625 episodes; 381 is one million. Steps per scale,
# each a separate ub process measured by /usr/bin/time -v:
#   synth    ub synth --study fidelity --scale N (episodes, rubrics, verdicts)
#   export   the verdicts to JSONL (ub export)
#   import   that file back through the verdict import path (ub verdicts import)
#   probes   ub probes
#   report   ub report
# BENCH_DIR (default: a temporary directory) holds the workspaces; UB is the
# binary (default: builds ./ub with make build). Each scale's workspace,
# verdict file and report are removed after its steps (the million-episode
# workspace is several GB) unless BENCH_KEEP=1; before each scale the script
# checks that BENCH_DIR's file system has room for it (about 12 MB per unit
# of scale, twice over) and stops with a message if not.
#
# Every step of every scale runs at one --memory-limit: MEMORY_LIMIT if set
# (UB_MEMORY_LIMIT, ub's own variable, if not), else ub's default 512MiB.
# At the end, scripts/benchscale prints the whole table with the bound each
# step is held to: its peak RSS at most that limit plus 256 MiB at every
# scale, and its time exponent from the smallest to the largest scale of 10
# or more at most 1.05 (checked when two such scales ran). A step that
# fails (out of memory, say) counts as over its bound; the run goes on with
# the steps that do not need its output. The script exits 1 naming every
# step over its bound.
set -euo pipefail
cd "$(dirname "$0")/.."
scales=("$@")
[ ${#scales[@]} -gt 0 ] || scales=(1 10 100 381)
UB=${UB:-}
if [ -z "$UB" ]; then
	make -s build
	UB=./ub
fi
[ -x /usr/bin/time ] || { echo "bench-scale: needs /usr/bin/time (GNU time)" >&2; exit 2; }
dir=${BENCH_DIR:-$(mktemp -d -t ub-bench-scale-XXXXXX)}
mkdir -p "$dir"
results="$dir/results.tsv"
: >"$results"
limit=${MEMORY_LIMIT:-${UB_MEMORY_LIMIT:-512MiB}}
unset UB_MEMORY_LIMIT
checker="$dir/benchscale"
${GO:-go} build -o "$checker" ./scripts/benchscale

# step SCALE NAME CMD...: runs CMD, records wall seconds and peak RSS (MiB),
# and "failed" if it exited non-zero; returns CMD's status.
step() {
	local scale=$1 name=$2
	shift 2
	local log="$dir/$name-$scale.time" status=0 failed=""
	/usr/bin/time -v -o "$log" "$@" >"$dir/$name-$scale.out" 2>"$dir/$name-$scale.err" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "bench-scale: $name at scale $scale failed (exit $status); see $dir/$name-$scale.err" >&2
		failed=failed
	fi
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$log")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
	printf '%s\t%s\t%s\t%s%s\n' "$scale" "$name" "${wall:-0}" "${rss:-0}" "${failed:+	$failed}" >>"$results"
	printf '%-6s x%-4s %9.2f s %7d MiB %s\n' "$name" "$scale" "${wall:-0}" "${rss:-0}" "$failed"
	return "$status"
}

# room SCALE: stops unless BENCH_DIR's file system has the space a scale
# needs (MiB_PER_SCALE per unit of scale for the workspace, the verdict file
# and the report, with a margin of two).
MIB_PER_SCALE=${MIB_PER_SCALE:-12}
room() {
	local need=$(($1 * MIB_PER_SCALE * 2)) avail
	avail=$(df -Pm "$dir" | awk 'NR == 2 {print $4}')
	if [ "$avail" -lt "$need" ]; then
		echo "bench-scale: scale $1 needs about $need MiB in $dir, $avail MiB free (set BENCH_DIR elsewhere)" >&2
		exit 1
	fi
}

for s in "${scales[@]}"; do
	room "$s"
	db="$dir/fidelity-$s.duckdb"
	rm -f "$db" "$db.wal"
	# A step that fails is recorded and the scale goes on where it can:
	# without a workspace (synth) nothing else can run, at this scale or a
	# larger one; without the verdict file (export) the import cannot.
	step "$s" synth "$UB" --memory-limit "$limit" --db "$db" synth --study fidelity --scale "$s" || break
	if step "$s" export "$UB" --memory-limit "$limit" --db "$db" export --out "$dir/verdicts-$s.jsonl" \
		--query "select simulation_id, criterion_id, verdict, turn_idx, reason from ep_verdicts order by simulation_id, criterion_id"; then
		step "$s" import "$UB" --memory-limit "$limit" --db "$db" verdicts import --grader bench-import "$dir/verdicts-$s.jsonl" || true
	fi
	step "$s" probes "$UB" --memory-limit "$limit" --db "$db" probes || true
	step "$s" report "$UB" --memory-limit "$limit" --db "$db" report --out "$dir/report-$s" || true
	printf '%-6s x%-4s %9s   %7d MiB on disk\n' disk "$s" "" "$(du -sm "$dir" | awk '{print $1}')"
	rm -f "$dir/verdicts-$s.jsonl"
	if [ "${BENCH_KEEP:-0}" != 1 ]; then
		rm -rf "$db" "$db.wal" "$dir/report-$s"
	fi
done

# The table of what ran, each step against its bound; exits 1 naming
# every step over it (or failed).
echo "results: $results"
echo
"$checker" -limit "$limit" "$results"
