#!/usr/bin/env bash
# Builds assets/results/headroom_results.sqlite, the results database Headroom ships (the
# explorer offers it, lessons name it "@results"): the DONE runs of full-scale suite databases,
# merged, then exported compact (configs; the losses at every point, 64 points of each other
# series; P_l / P_w snapshots; no checkpoints; the final weights of a few runs per suite in F16).
# It also writes assets/results/README.md, the list of what is inside, read back from the new
# file. The repository keeps it under ~30 MB:
# WEIGHTS_PER_SUITE (default 1) runs per suite keep their final weights (~1-2 MB each), the runs
# in KEEP_WEIGHTS_OF first (runs the lab shows well: the lesson 6 run, talking-heads where the
# suite's DB has its weights; a GPU export brings back only a few runs' weights), and SNAPSHOTS_PER_RUN (default 9) P_l / P_w snapshots
# per run stay (th_extreme_heads' h = 128 run stores 33 of 260 KB each); train_loss and val_loss
# keep every point, the other series (lr, grad_norm, tokens_per_s) AUX_SERIES_POINTS (default 64)
# each, evenly spaced, the first and last among them.
#
#   bash scripts/make_results_db.sh build/app/worker/headroom-worker RUNS.sqlite [RUNS.sqlite...]
#
# where each RUNS.sqlite came from e.g.
#   headroom-worker run assets/suites/th_head_dims.toml --scale full --db th_head_dims.sqlite
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 WORKER RUNS.sqlite [RUNS.sqlite...]" >&2; exit 2; }
worker=$1
shift
out=assets/results/headroom_results.sqlite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$worker" merge "$tmp/merged.sqlite" "$@"
weights=${WEIGHTS_PER_SUITE:-1}
snapshots=${SNAPSHOTS_PER_RUN:-9}
keep=${KEEP_WEIGHTS_OF:-th-head-dims/6-24-6/seed=0 th-extreme-heads/talking-heads/heads=4 \
  th-projections/logits-proj/seed=0 lrb-heads/standard/heads=8 lrb-head-size/fixed-head/d_k=16}
keep_args=()
"$worker" status --db "$tmp/merged.sqlite" > "$tmp/status.txt"
for run in $keep; do
  # only runs of the DBs given (a subset of suites is fine); export says if one has no weights
  if awk -v r="$run" '$2 == r { found = 1 } END { exit !found }' "$tmp/status.txt"; then
    keep_args+=(--keep-weights-of "$run")
  fi
done
"$worker" export --db "$tmp/merged.sqlite" --results-only --done-only --weights-per-suite "$weights" \
  --snapshots-per-run "$snapshots" --aux-series-points "${AUX_SERIES_POINTS:-64}" "${keep_args[@]}" \
  --out "$tmp/results.sqlite"
mkdir -p assets/results
mv "$tmp/results.sqlite" "$out"
{
  echo "# The results Headroom ships"
  echo
  echo "\`headroom_results.sqlite\` holds finished full-scale runs of the suites in \`assets/suites/\`, made with"
  echo "\`scripts/make_results_db.sh\` on $(date -u +%Y-%m-%d) (configs; every point of train_loss and val_loss and"
  echo "${AUX_SERIES_POINTS:-64} of each other series; P_l / P_w snapshots; no"
  runs_word=runs; [ "$weights" = 1 ] && runs_word=run
  echo "checkpoints; the final weights of up to $weights $runs_word per suite in F16, the script's KEEP_WEIGHTS_OF first;"
  echo "at most $snapshots P_l / P_w snapshots per run). Open it in the explorer, or name it \`@results\` in a scene or"
  echo "lesson. Runs, as \`headroom-worker status\` lists them; the runs with a 1 under \`weights\` open in the lab"
  echo "(the explorer's filter \`weights>0\` lists them):"
  echo
  echo '```'
  "$worker" status --db "$out"
  echo '```'
} > assets/results/README.md
echo "wrote $out ($(stat -c %s "$out") bytes) and assets/results/README.md"
