#!/usr/bin/env bash
# screenshot_test.sh HEADROOM PNG_CHECK CMAKE CHECK_STATE OUTDIR WIDTH HEIGHT MIN_HEATMAPS VIEW [extra headroom args...]
# (MAX_MAPS in the environment also caps the heatmaps drawn: a tab must show its own maps.)
# Renders the GUI under Xvfb with --screenshot/--state-out, then checks the PNG and the state.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 png_check=$2 cmake=$3 check_state=$4 out=$5 width=$6 height=$7 min_maps=$8 view=$9
shift 9
mkdir -p "$out"
rm -f "$out/out.png" "$out/state.json"
in_xvfb "$headroom" --view "$view" --screenshot "$out/out.png" --frames 5 --size "${width}x${height}" \
  --state-out "$out/state.json" "$@"
rc=$?
[ "$rc" -eq 0 ] || fail "headroom exited with $rc, expected 0"
"$png_check" "$out/out.png" "$width" "$height" || fail "screenshot check failed"
"$cmake" -DSTATE="$out/state.json" -DVIEW="$view" -DMIN_HEATMAPS="$min_maps" ${MAX_MAPS:+-DMAX_HEATMAPS=$MAX_MAPS} -DWIDTH="$width" -DHEIGHT="$height" \
  -DFRAMES=5 -P "$check_state" || { cat "$out/state.json"; fail "state check failed (the state above; the screenshot is $out/out.png)"; }
echo "PASS"
