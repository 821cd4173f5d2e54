#!/usr/bin/env bash
# The batch recipes of docs/grids.md "Shards on a batch system" (deploy/):
# the Kubernetes Indexed Job checked without a cluster (.ci/k8scheck, a Go
# module of its own, so the main module's dependencies stay as they are),
# then the Slurm job array run on a one-node cluster (.ci/slurm-test.sh,
# stopped after 15 minutes; it takes about 2 to 3).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0

echo "== batch: Kubernetes Indexed Job (deploy/sweep-job.yaml), checked without a cluster"
(
	cd .ci/k8scheck
	go vet .
	go test -count=1 .
	go run . ../../deploy/sweep-job.yaml ../../deploy/bernamp-shard.sh
)

echo "== batch: Slurm job array (deploy/sweep.sbatch) on a one-node cluster"
timeout --kill-after=60 900 bash .ci/slurm-test.sh
