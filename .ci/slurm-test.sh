#!/usr/bin/env bash
# The Slurm job array of docs/grids.md on a real one-node cluster (issue 34).
#
# Installs Debian's slurm-wlm and munge if missing, starts munged, slurmctld
# and slurmd on loopback (no systemd, no cgroups; everything in a temporary
# directory), submits deploy/sweep.sbatch, the script docs/grids.md shows,
# as a 4-task array, cancels one task while it runs, checks that merge then
# fails, resubmits that element, merges, and compares the merged file with
# the single-machine run of the same grid byte for byte. Negative checks:
# merge without one shard file, and with one shard file twice, must fail.
# Stops every daemon it started and removes its directory on exit, also on
# failure. Every wait has a deadline.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export CGO_ENABLED=0
syspath=$PATH # the daemons' PATH, without bernamp: the tasks find it by the PATH sbatch passes

shards=4
start=$SECONDS
phase() { echo "== slurm: $* ($((SECONDS - start)) s)"; }
fail() { echo "slurm test: FAIL: $*" >&2; exit 1; }

# --- install (only what is missing); keep apt from starting the services
missing=""
for pkg in slurm-wlm munge; do
	[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
	phase "apt-get install$missing"
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=/usr/sbin/policy-rc.d
	fi
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	[ -z "$policy" ] || rm -f "$policy"
fi

tmp=$(mktemp -d /tmp/bernamp-slurm.XXXXXX)
chmod 700 "$tmp"
pids=()
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	set +e
	if [ -n "${SLURM_CONF:-}" ] && [ ${#pids[@]} -gt 0 ]; then
		scancel --quiet --full --user=root 2>/dev/null
		for _ in $(seq 30); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 1
		done
	fi
	for ((j = ${#pids[@]} - 1; j >= 0; j--)); do
		kill "${pids[j]}" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	# Anything left that we started (slurmstepd, a task's bernamp) runs in
	# the temporary directory: stop it by its working directory.
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = $$ ] && continue
		case "$(readlink "$d/cwd" 2>/dev/null)" in
		"$tmp" | "$tmp"/*) kill -9 "$p" 2>/dev/null ;;
		esac
	done
	if [ $rc -ne 0 ]; then
		for log in "$tmp"/*.log "$tmp"/*.out "$tmp"/work/logs/*; do
			[ -f "$log" ] || continue
			echo "--- $log (last lines)"
			tail -n 20 "$log"
		done
	fi
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT
trap 'echo "slurm test: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
trap 'exit 143' TERM
trap 'exit 130' INT

# waitfor SECONDS WHAT COMMAND...: polls COMMAND until it succeeds.
waitfor() {
	local limit=$1 what=$2
	shift 2
	local t0=$SECONDS
	until "$@"; do
		((SECONDS - t0 < limit)) || fail "timed out after ${limit} s waiting for $what"
		sleep 0.5
	done
}

# freeport: a TCP port on loopback nobody listens on, from 20000 up.
used=" "
freeport() {
	local p
	for ((p = 20000 + RANDOM % 20000; ; p++)); do
		case "$used" in *" $p "*) continue ;; esac
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			used="$used$p "
			echo "$p"
			return
		fi
	done
}

# --- bernamp and the grid
phase "build"
mkdir -p "$tmp/bin" "$tmp/work/logs"
go build -o "$tmp/bin/bernamp" ./cmd/bernamp
export PATH="$tmp/bin:$PATH"
work=$tmp/work
cp deploy/sweep.sbatch deploy/bernamp-shard.sh "$work/"
cp .ci/slurm-grid.json "$work/sweep.json"
cd "$work"

phase "single-machine run of the grid"
t0=$SECONDS
timeout 300 bernamp grid --quiet --no-timing --out whole.csv sweep.json
echo "whole grid: $(($(wc -l <whole.csv) - 1)) rows in $((SECONDS - t0)) s"

# --- munge
phase "munged"
mkdir -m 700 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key"
PATH=$syspath munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/socket" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
waitfor 20 munged test -S "$tmp/munge/socket"
munge --socket="$tmp/munge/socket" -n | unmunge --socket="$tmp/munge/socket" >/dev/null

# --- slurm
phase "slurmctld, slurmd"
mkdir -m 700 "$tmp/state" "$tmp/spool"
cpus=$(nproc)
host=$(hostname -s)
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=bernampci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(freeport)
SlurmdPort=$(freeport)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
NodeName=ci NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=ci Default=YES MaxTime=INFINITE State=UP
CONF
(cd "$tmp" && PATH=$syspath exec slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1) &
pids+=($!)
up() { scontrol ping 2>/dev/null | grep -q UP; }
waitfor 30 slurmctld up
(cd "$tmp" && PATH=$syspath exec slurmd -D -N ci -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1) &
pids+=($!)
idle() { [ "$(sinfo -h -n ci -o %t 2>/dev/null)" = idle ]; }
waitfor 60 "node ci idle" idle
sinfo

# state JOB: the state of one job or array element (empty once it is gone).
state() { squeue -h -j "$1" -o %T 2>/dev/null || true; }
gone() { [ -z "$(state "$1")" ]; }
running() { [ "$(state "$1")" = RUNNING ]; }
pending() { [ "$(state "$1")" = PENDING ]; }
rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }

# --- the array, one task cancelled while it runs
phase "sbatch: $shards shards, one CPU each"
export BERNAMP_SHARDS=$shards
t0=$SECONDS
job=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 sweep.sbatch --no-timing)
merge="bernamp merge --grid sweep.json --out results/sweep.csv results/shard-*.csv"
mergejob=$(sbatch --parsable --dependency=afterok:$job --wrap "$merge")
echo "array $job, merge job $mergejob after it"
kill=1
waitfor 60 "task ${job}_$kill running" running "${job}_$kill"
# Cancel it 3 s after it starts, or once something more than the header is
# on disk (rows, or any file beside its shard file), at most 3 s later.
sleep 3
written() { [ "$(rows "results/shard-$kill.csv")" -gt 0 ] || [ -n "$(find results -name "shard-$kill.csv?*" -size +0)" ]; }
for _ in $(seq 6); do
	written && break
	sleep 0.5
done
running "${job}_$kill" || fail "task ${job}_$kill finished before it was cancelled: make .ci/slurm-grid.json longer"
scancel "${job}_$kill"
phase "cancelled ${job}_$kill; on disk: $(cd results && wc -c shard-$kill.csv* | tr '\n' ' ')"

# Requeue task 0 while it runs, as a preemption would (the script has
# --requeue): Slurm runs it again, and it resumes its file.
requeue=0
running "${job}_$requeue" || fail "task ${job}_$requeue is not running: make .ci/slurm-grid.json longer"
scontrol requeue "${job}_$requeue"
# A requeued job waits about 2 minutes (its begin time); not here.
waitfor 60 "task ${job}_$requeue pending" pending "${job}_$requeue"
scontrol update JobId="${job}_$requeue" StartTime=now
phase "requeued ${job}_$requeue; on disk: $(cd results && wc -c shard-$requeue.csv* | tr '\n' ' ')"
waitfor 60 "task ${job}_$kill gone" gone "${job}_$kill"
killedrows=$(rows "results/shard-$kill.csv")
waitfor 300 "array $job done" gone "$job"
echo "array: $((SECONDS - t0)) s"
for i in $kill $requeue; do
	echo "--- logs/${job}_$i.out:"
	cat "logs/${job}_$i.out"
done
for ((i = 0; i < shards; i++)); do
	# A task says its shard's share in one line (bernamp: shard i/n: ...);
	# anything else in its log is a failure.
	other=$(grep -v '^bernamp: shard [0-9]*/[0-9]*: ' "logs/${job}_$i.out" || true)
	if [ "$i" != $kill ] && [ "$i" != $requeue ] && [ -n "$other" ]; then
		fail "task $i wrote: $other"
	fi
done

# The scheduler sees the failed dependency on its next pass.
never() { [ "$(squeue -h -j "$mergejob" -o %T:%r)" = PENDING:DependencyNeverSatisfied ]; }
waitfor 120 "merge job $mergejob to be PENDING:DependencyNeverSatisfied" never
scancel "$mergejob"
[ ! -e results/sweep.csv ] || fail "the merge job ran"

phase "merge without the cancelled shard's work must fail"
if bernamp merge --grid sweep.json --out merged.csv results/shard-*.csv 2>merge.err; then
	fail "merge succeeded with shard $kill cut short"
fi
cat merge.err
[ ! -e merged.csv ] || fail "a failed merge left merged.csv"

phase "resubmit element $kill"
t0=$SECONDS
job2=$(sbatch --parsable --array=$kill --cpus-per-task=1 sweep.sbatch --no-timing)
mergejob=$(sbatch --parsable --dependency=afterok:$job2 --wrap "$merge")
waitfor 300 "job $job2 done" gone "$job2"
waitfor 60 "merge job $mergejob done" gone "$mergejob"
echo "resubmitted shard: $((SECONDS - t0)) s; rows in shard-$kill.csv: $killedrows after the cancel, $(rows "results/shard-$kill.csv") in the end"
((killedrows < $(rows "results/shard-$kill.csv"))) || fail "shard $kill was complete before it was resubmitted: the cancel came too late"

phase "merged by job $mergejob"
[ -e results/sweep.csv ] || fail "merge job $mergejob wrote no results/sweep.csv: $(cat "slurm-$mergejob.out")"
cmp whole.csv results/sweep.csv || fail "merged file differs from the single-machine run"
echo "merged file equals the single-machine run: $(rows results/sweep.csv) rows"

phase "negative checks"
for ((i = 0; i < shards; i++)); do
	if bernamp merge --grid sweep.json --out bad.csv $(ls results/shard-*.csv | grep -v "/shard-$i.csv") 2>/dev/null; then
		fail "merge succeeded without shard $i"
	fi
done
if bernamp merge --grid sweep.json --out bad.csv results/shard-*.csv results/shard-0.csv 2>/dev/null; then
	fail "merge succeeded with shard 0 twice"
fi
[ ! -e bad.csv ] || fail "a failed merge left bad.csv"
phase "ok"
