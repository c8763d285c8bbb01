#!/usr/bin/env bash
# Runs one suite across a Slurm array: each array task trains its shard into its own DB file,
# and a final step merges them. Submit from the repository root, after scripts/build.sh:
#
#   sbatch --array=0-7 scripts/slurm_suite.sh assets/suites/lrb_heads.toml full out/lrb_heads
#   # when the array has finished (or as a dependent job: sbatch --dependency=afterok:<jobid> ...):
#   build/app/worker/headroom-worker merge out/lrb_heads.sqlite out/lrb_heads.shard-*.sqlite
#
# Each task enqueues the whole suite into its own file (cheap) and trains only the runs with
# shard_key % N == I (--shard I/N), so shards never overlap and merging gives every run once.
#SBATCH --job-name=headroom-suite
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=24:00:00
set -euo pipefail
SUITE="${1:?usage: slurm_suite.sh SUITE.toml quick|full OUT_PREFIX}"
SCALE="${2:?scale: quick or full}"
OUT="${3:?output prefix, e.g. out/lrb_heads}"
I="${SLURM_ARRAY_TASK_ID:?run this as a Slurm array job (sbatch --array=0-N ...)}"
N="${SLURM_ARRAY_TASK_COUNT:?run this as a Slurm array job}"
mkdir -p "$(dirname "$OUT")"
# HEADROOM_WORKER: another headroom-worker (an installed one, or a test's wrapper).
exec "${HEADROOM_WORKER:-build/app/worker/headroom-worker}" run "$SUITE" --scale "$SCALE" --db "$OUT.shard-$I.sqlite" --shard "$I/$N" --quiet
