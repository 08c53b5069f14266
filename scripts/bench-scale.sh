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
# of scale, twice over) and stops with a message if not. Every step runs at
# ub's default --memory-limit (512MiB), but for the two that need more above
# scale 100, which run at 3GiB there: the verdict import of millions of
# verdicts and the probes (both stop with an out-of-memory error at 512MiB
# at one million episodes: the primary keys of ep_verdicts and of the
# probes' applicability rows are held in memory whole). UB_MEMORY_LIMIT set
# in the environment applies to every step of every scale instead.
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

# step SCALE NAME CMD...: runs CMD, records wall seconds and peak RSS (MiB).
step() {
	local scale=$1 name=$2
	shift 2
	local log="$dir/$name-$scale.time"
	if ! /usr/bin/time -v -o "$log" "$@" >"$dir/$name-$scale.out" 2>"$dir/$name-$scale.err"; then
		echo "bench-scale: $name at scale $scale failed; see $dir/$name-$scale.err" >&2
		exit 1
	fi
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$log")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$log")
	printf '%s\t%s\t%s\t%s\n' "$scale" "$name" "$wall" "$rss" >>"$results"
	printf '%-6s x%-4s %9.2f s %7d MiB\n' "$name" "$scale" "$wall" "$rss"
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

user_limit=${UB_MEMORY_LIMIT:-}
for s in "${scales[@]}"; do
	# big: the limit of the steps that hold a primary key of millions of rows.
	if [ -n "$user_limit" ]; then
		export UB_MEMORY_LIMIT=$user_limit
		big=$user_limit
	else
		unset UB_MEMORY_LIMIT
		big=512MiB
		[ "$s" -gt 100 ] && big=3GiB
	fi
	room "$s"
	db="$dir/fidelity-$s.duckdb"
	rm -f "$db" "$db.wal"
	step "$s" synth "$UB" --db "$db" synth --study fidelity --scale "$s"
	step "$s" export "$UB" --db "$db" export --out "$dir/verdicts-$s.jsonl" \
		--query "select simulation_id, criterion_id, verdict, turn_idx, reason from ep_verdicts order by simulation_id, criterion_id"
	step "$s" import "$UB" --memory-limit "$big" --db "$db" verdicts import --grader bench-import "$dir/verdicts-$s.jsonl"
	step "$s" probes "$UB" --memory-limit "$big" --db "$db" probes
	step "$s" report "$UB" --db "$db" report --out "$dir/report-$s"
	printf '%-6s x%-4s %9s   %7d MiB on disk\n' disk "$s" "" "$(du -sm "$dir" | awk '{print $1}')"
	rm -f "$dir/verdicts-$s.jsonl"
	if [ "${BENCH_KEEP:-0}" != 1 ]; then
		rm -rf "$db" "$db.wal" "$dir/report-$s"
	fi
done

# The growth exponent: episodes are 2,625 per unit of scale.
echo
echo "growth exponent (log-log slope over scales ${scales[*]}; 1 is linear, 0 flat)"
awk -F'\t' '
	{ x = log($1 * 2625); n[$2]++; sx[$2] += x; sxx[$2] += x * x
	  st[$2] += log($3 > 0 ? $3 : 0.01); sxt[$2] += x * log($3 > 0 ? $3 : 0.01)
	  sr[$2] += log($4); sxr[$2] += x * log($4); if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
	END {
		printf "%-8s %6s %6s\n", "step", "time", "rss"
		for (i = 1; i <= k; i++) { s = order[i]; d = n[s] * sxx[s] - sx[s] * sx[s]
			if (n[s] < 2 || d == 0) { printf "%-8s %6s %6s\n", s, "-", "-"; continue }
			printf "%-8s %6.2f %6.2f\n", s, (n[s] * sxt[s] - sx[s] * st[s]) / d, (n[s] * sxr[s] - sx[s] * sr[s]) / d }
	}' "$results"
echo "results: $results"
