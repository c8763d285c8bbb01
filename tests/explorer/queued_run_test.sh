#!/usr/bin/env bash
# queued_run_test.sh HEADROOM WORKER OUTDIR
# A run that is queued and has logged nothing: the Run tab says "-" for its losses and speed, never
# "nan" (checked through --state-out's run_summary).
set -u
headroom=$1 worker=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
require_xvfb
mkdir -p "$out"
db="$out/queued.sqlite"
rm -f "$db"
"$worker" enqueue "$(dirname "$0")/../../assets/suites/lrb_heads.toml" --db "$db" --quiet || fail "enqueue failed"
printf '{"view": "Explorer", "explorer": {"db": "%s", "tab": "run", "select": ["lrb-heads/standard/heads=2"]}}\n' "$db" \
  >"$out/scene.json"
in_xvfb "$headroom" --scene "$out/scene.json" --screenshot "$out/run.png" --frames 60 --state-out "$out/state.json" ||
  fail "headroom exited with $?"
python3 - "$out/state.json" <<'PY' || fail "state check failed ($out/state.json)"
import json, sys
summary = json.load(open(sys.argv[1]))["explorer"]["run_summary"]
print("run summary:", summary)
ok = summary.startswith("step 0 of ") and "train loss -, val loss - (best -); - tokens/s" in summary and "nan" not in summary
sys.exit(0 if ok else 1)
PY
echo PASS
