#!/bin/bash
# measure-resume.sh BIN [POST FLAGS...]: the time a killed sweep costs.
# Runs the sweep to the end (before and after the kills), then for
# f = 0.25, 0.5, 0.75: starts it, SIGKILLs it once it has used f of the
# full run's CPU time (on a machine shared with other work, CPU time is
# what a fraction of the run means; wall time at the kill is shown too),
# and times the run with --resume: its CPU time against (1 - f) of the
# full run's, the work left, and its wall time against (1 - f) of the full
# run's wall time. Checks that the resumed file equals the uninterrupted
# one. A measurement for docs/grids.md, not a test: times depend on the
# machine and its load. Default sweep: 2,250 points (d 1,2,3; k 1,2,3;
# five c; alpha 5; eps 0.1:5:0.1), --workers 2.
set -euo pipefail
bin=$1
shift
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
  args=(post --d 1,2,3 --k 1,2,3 --c 0.01,0.05,0.1,0.2,0.3 --alpha 5 --eps 0.1:5:0.1 --no-timing --workers 2 --quiet)
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tck=$(getconf CLK_TCK)
# timed FILE ARGS...: runs bin with ARGS; prints "wall cpu" in seconds.
timed() {
  local f=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$dir/time" "$bin" "${args[@]}" "$@"
  awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$dir/time"
}
read -r wall1 cpu1 <<<"$(timed ref --out "$dir/ref.csv")"
echo "points: $(($(wc -l <"$dir/ref.csv") - 1)); full run: $wall1 s wall, $cpu1 s CPU; load $(cut -d' ' -f1 /proc/loadavg)"
printf '| killed at (CPU, wall) | points in the journal | resumed: CPU | (1 - f) x full CPU | ratio | resumed: wall | (1 - f) x full wall | ratio | same file |\n|---|---|---|---|---|---|---|---|---|\n' >"$dir/table"
for f in 0.25 0.5 0.75; do
  out="$dir/kill.csv"
  rm -f "$out" "$out.journal"
  start=$(date +%s.%N)
  "$bin" "${args[@]}" --out "$out" &
  pid=$!
  limit=$(echo "$f * $cpu1 * $tck" | bc -l)
  while :; do
    ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo done)
    [ "$ticks" = done ] && break
    if (($(echo "$ticks >= $limit" | bc -l))); then break; fi
    sleep 0.01
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  kwall=$(echo "$(date +%s.%N) - $start" | bc -l)
  kcpu=$(echo "$ticks / $tck" | bc -l)
  kept=$(($(wc -l <"$out.journal") - 1))
  read -r rwall rcpu <<<"$(timed kill --out "$out" --resume)"
  same=yes
  cmp -s "$out" "$dir/ref.csv" || same=NO
  lc=$(echo "(1 - $f) * $cpu1" | bc -l)
  lw=$(echo "(1 - $f) * $wall1" | bc -l)
  printf '| %.0f%%: %.1f s CPU, %.1f s | %d | %.1f s | %.1f s | %.2f | %.1f s | %.1f s | %.2f | %s |\n' \
    "$(echo "$f*100" | bc -l)" "$kcpu" "$kwall" "$kept" "$rcpu" "$lc" "$(echo "$rcpu / $lc" | bc -l)" \
    "$rwall" "$lw" "$(echo "$rwall / $lw" | bc -l)" "$same" >>"$dir/table"
done
read -r wall2 cpu2 <<<"$(timed ref2 --out "$dir/ref2.csv")"
echo "full run again: $wall2 s wall, $cpu2 s CPU; load $(cut -d' ' -f1 /proc/loadavg)"
cat "$dir/table"
