#!/bin/bash
# measure-shards.sh BIN N GRID.json...: how even the shards of an N-way
# split are in real time. For each grid, runs its N shards one after the
# other with --workers 1 (one point at a time, as a batch system's
# one-core task would) and prints each shard's rows, wall time and CPU
# time; then per grid the mean, the slowest and slowest / mean of each (on
# a machine shared with other work, CPU time is the fairer measure). Checks that the merged
# shards equal the whole grid's rows (every point once).
# A measurement for docs/grids.md, not a test: times depend on the machine
# and its load.
set -euo pipefail
bin=$1
n=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| grid | points | shards | CPU: mean | CPU: slowest | slowest / mean | wall: mean | wall: slowest | slowest / mean | merge |\n|---|---|---|---|---|---|---|---|---|---|\n' >"$dir/table"
for grid in "$@"; do
  name=$(basename "$grid" .json)
  : >"$dir/$name.times"
  for ((i = 0; i < n; i++)); do
    /usr/bin/time -f '%e %U %S' -o "$dir/time" "$bin" grid --shard "$i/$n" --workers 1 --quiet --out "$dir/$name-$i.csv" "$grid" 2>>"$dir/$name.plan"
    read -r wall cpu <<<"$(awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$dir/time")"
    rows=$(($(wc -l <"$dir/$name-$i.csv") - 1))
    echo "$i $rows $wall $cpu" >>"$dir/$name.times"
    echo "$name shard $i/$n: $rows rows, $wall s wall, $cpu s CPU; $(tail -1 "$dir/$name.plan")"
  done
  merged=yes
  "$bin" merge --grid "$grid" --out "$dir/$name.csv" "$dir/$name"-*.csv || merged=NO
  points=$(($(wc -l <"$dir/$name.csv") - 1))
  awk -v name="$name" -v points="$points" -v n="$n" -v merged="$merged" '
    { sw += $3; sc += $4; if ($3 > mw) mw = $3; if ($4 > mc) mc = $4 }
    END { printf "| %s | %d | %d | %.2f s | %.2f s | %.2f | %.2f s | %.2f s | %.2f | %s |\n", name, points, n, sc / n, mc, mc / (sc / n), sw / n, mw, mw / (sw / n), merged }
  ' "$dir/$name.times" >>"$dir/table"
done
cat "$dir/table"
