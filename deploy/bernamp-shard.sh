#!/bin/sh
# One shard of a bernamp grid: the entry point of the Slurm job array
# (sweep.sbatch) and of the Kubernetes Indexed Job (sweep-job.yaml).
# See docs/grids.md, "Shards on a batch system".
#
#   shard index      SLURM_ARRAY_TASK_ID (Slurm) or JOB_COMPLETION_INDEX (Kubernetes)
#   BERNAMP_SHARDS   n, the number of shards (default 16)
#   BERNAMP_GRID     the grid file (default sweep.json)
#   BERNAMP_RESULTS  the directory of the shard files (default results)
#   BERNAMP_WORKERS  points at once (default SLURM_CPUS_PER_TASK, else all CPUs)
#   arguments        more flags of bernamp grid, e.g. --no-timing
#
# Always --resume: a task run again continues its shard file.
set -eu
i=${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:?neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set}}
n=${BERNAMP_SHARDS:-16}
results=${BERNAMP_RESULTS:-results}
workers=${BERNAMP_WORKERS:-${SLURM_CPUS_PER_TASK:-}}
if [ -n "$workers" ]; then
	set -- --workers "$workers" "$@"
fi
mkdir -p "$results"
exec bernamp grid --shard "$i/$n" --quiet --resume --out "$results/shard-$i.csv" "$@" "${BERNAMP_GRID:-sweep.json}"
