#!/usr/bin/env bash
# readme_scenes_test.sh HEADROOM PNG_CHECK OUTDIR
# The README's screenshots stay reproducible: scripts/readme_images.sh shoots every scene in
# docs/images/scenes/ into OUTDIR, and each picture is whole and shows what its scene asked for
# (the stored run it opens is open in the lab, the explorer read its DB without an error or a
# scene message, the comparisons it pins pooled, nothing blocked the UI thread).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 png_check=$2 out=$3
source_dir="$(cd "$here/../.." && pwd)"
rm -rf "$out" && mkdir -p "$out/png" "$out/state"
HEADROOM="$headroom" OUT_DIR="$out/png" STATE_DIR="$out/state" bash "$source_dir/scripts/readme_images.sh" ||
  fail "readme_images.sh exited with $?"
count=0
for scene in "$source_dir"/docs/images/scenes/*.json; do
  name=$(basename "$scene" .json)
  "$png_check" "$out/png/$name.png" 1280 800 || fail "$name: screenshot check failed"
  python3 - "$scene" "$out/state/$name.json" <<'PY' || fail "$name: state check failed (state in $out/state/$name.json)"
import json, sys
scene, state = (json.load(open(p)) for p in sys.argv[1:3])
problems = []
if state.get("blocking_io_on_ui_thread", 0) != 0:
    problems.append("blocking I/O on the UI thread")
if state.get("controls_cut_off"):
    problems.append(f"lab controls cut off at their panel's right edge: {state['controls_cut_off']}")
ex = state.get("explorer", {})
for key in ("error", "message"):
    if ex.get(key):
        problems.append(f"explorer {key}: {ex[key]}")
lab = scene.get("lab", {})
# A stored run, opened by the explorer or named in the lab's own scene (lab.stored_run).
want = scene.get("explorer", {}).get("open_in_lab") or lab.get("stored_run", {}).get("name")
if want:
    got = state.get("stored_run", {})
    if got.get("name") != want or got.get("step", -1) < 0 or state.get("view") != "Lab":
        problems.append(f"the lab should show the stored run {want}; state says {got}, view {state.get('view')}")
if lab.get("tab") == "theorem":  # the Theorem 1 tab answered what the scene asks
    t = state.get("theorem") or {}
    if t.get("error") or t.get("d_p") != lab.get("theorem_dp", t.get("d_p")) or "max_abs_error" not in t:
        problems.append(f"the Theorem 1 tab shows {t}")
    if lab.get("pattern") == "a head's map" and lab.get("theorem_causal") and t.get("d_p") == t.get("n", 0) // 2:
        if t.get("method") != "construction" or not t.get("max_abs_error", 1) < 1e-6:
            problems.append(f"a trained head's causal map at d_p = floor(n/2) should be constructed exactly: {t}")
if lab.get("map_view") == "all layers":  # every head in the grid; a trained run's roles over its tiles
    mv = state.get("model_view", {})
    heads = state.get("model", {}).get("attention", {}).get("heads", 0)
    if mv.get("rows", 0) * mv.get("cols", 0) < max(heads, 1):
        problems.append(f"the model view's grid {mv} holds fewer than the {heads} heads")
    if lab.get("stage") == "W" and want and mv.get("roles_shown", 0) < 1:
        problems.append(f"no head of the trained run labelled with its role: {mv}")
if lab.get("map_view") == "neurons":  # one head's logits, and cells that add up to them
    nv = state.get("neurons_view", {})
    if nv.get("keys", 0) < 1 or nv.get("r", 0) < 1 or nv.get("sum_error", 1.0) > 1e-3:
        problems.append(f"the neurons view drew {nv}")
pins = scene.get("explorer", {}).get("pin")
if pins:  # every pinned comparison shown, pooled
    cmp = ex.get("compare", {})
    if len(cmp.get("pins", [])) != len(pins) or cmp.get("pin_problem") or cmp.get("pooled", {}).get("problem"):
        problems.append(f"the Compare tab should pool {len(pins)} pinned comparisons; state says {cmp.get('pins')}, "
                        f"{cmp.get('pin_problem')!r}, {cmp.get('pooled')}")
if state.get("problems") or state.get("stored_run_problem"):
    problems.append(f"lab problems: {state.get('problems')} {state.get('stored_run_problem')}")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY
  count=$((count + 1))
done
[ "$count" -ge 1 ] || fail "no scenes in docs/images/scenes"
echo "PASS: $count README scenes"
