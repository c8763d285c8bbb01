#!/usr/bin/env bash
# Builds assets/results/headroom_results.sqlite, the results database Headroom ships (the
# explorer offers it, lessons name it "@results"): the DONE runs of full-scale suite databases,
# merged, then exported compact (configs and every metric; P_l / P_w snapshots; no checkpoints;
# the final weights of a few runs per suite in F16). It also writes assets/results/README.md,
# the list of what is inside, read back from the new file.
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
"$worker" export --db "$tmp/merged.sqlite" --results-only --done-only --weights-per-suite 4 --out "$tmp/results.sqlite"
mkdir -p assets/results
mv "$tmp/results.sqlite" "$out"
{
  echo "# The results Headroom ships"
  echo
  echo "\`headroom_results.sqlite\` holds finished full-scale runs of the suites in \`assets/suites/\`, made with"
  echo "\`scripts/make_results_db.sh\` on $(date -u +%Y-%m-%d) (configs, every metric, P_l / P_w snapshots; no"
  echo "checkpoints; the final weights of up to 4 runs per suite in F16). Open it in the explorer, or"
  echo "name it \`@results\` in a scene or lesson. Runs, as \`headroom-worker status\` lists them:"
  echo
  echo '```'
  "$worker" status --db "$out"
  echo '```'
} > assets/results/README.md
echo "wrote $out ($(stat -c %s "$out") bytes) and assets/results/README.md"
