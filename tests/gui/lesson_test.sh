#!/usr/bin/env bash
# lesson_test.sh HEADROOM PNG_CHECK CMAKE CHECK_LESSON LESSON OUTDIR WIDTH HEIGHT [FIRST_STEP]
# Plays a lesson start (or FIRST_STEP, 1-based) to end in a real window under Xvfb by writing its handout (one PNG per step
# once the step has settled and its animations are done, plus index.html and lesson.json), then
# checks every step (check_lesson.cmake).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 png_check=$2 cmake=$3 check=$4 lesson=$5 out=$6 width=$7 height=$8 first=${9:-1}
rm -rf "$out"
xvfb-run -a -s "-screen 0 ${width}x${height}x24" "$headroom" --lesson "$lesson" --handout "$out" \
  --size "${width}x${height}" --lesson-step "$first"
rc=$?
[ "$rc" -eq 0 ] || fail "headroom exited with $rc, expected 0"
# Opened at a later step: that step is there to be tested first (a lesson edited since must move it).
if [ "$first" -gt 1 ]; then
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["steps"][0]; sys.exit(0 if s["scene"]["explorer"].get("pin") else 1)' \
    "$out/lesson.json" 2>/dev/null || fail "step $first of $lesson pins no comparisons: the test opens the lesson there to test its pins"
fi
"$cmake" -DDIR="$out" -DPNG_CHECK="$png_check" -DWIDTH="$width" -DHEIGHT="$height" -P "$check" ||
  fail "lesson check failed (the handout is in $out)"
echo "PASS"
