#!/usr/bin/env bash
# start_worker_test.sh HEADROOM WORKER OUTDIR
# The first-launch path in a real window (no automation flags): the GUI creates the default DB,
# a click on "Run every quick suite" enqueues the suites through `headroom-worker enqueue` and
# starts `headroom-worker serve` as a child; runs get done; closing the window stops the worker
# cleanly (no orphan process, the DB intact, the interrupted run back in the queue).
set -u
here="$(cd "$(dirname "$0")/../gui" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
command -v xdotool >/dev/null || { echo "SKIP: xdotool is not installed"; exit 77; }
headroom=$1 worker=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
cat > "$out/session.sh" <<INNER
export HOME="$out" XDG_DATA_HOME="$out/data" XDG_CONFIG_HOME="$out/config" HEADROOM_WORKER="$worker"
"$headroom" --view explorer --size 1280x800 &
gui=\$!
for i in \$(seq 100); do wid=\$(xdotool search --name '^Headroom\$' 2>/dev/null | head -1); [ -n "\$wid" ] && break; sleep 0.2; done
[ -n "\$wid" ] || { echo "no window"; kill \$gui; exit 1; }
sleep 1.5
xdotool mousemove --window "\$wid" 90 162 click 1   # "Run every quick suite"
db="$out/data/headroom/experiments.sqlite"
for i in \$(seq 120); do
  done_runs=\$("$worker" status --db "\$db" --json 2>/dev/null | grep -o '"status": *"done"' | wc -l)
  [ "\$done_runs" -ge 3 ] && break
  sleep 0.5
done
echo "done runs: \$done_runs"
pgrep -f "headroom-worker serve --db \$db" >/dev/null && echo "worker was running"
xdotool key --window "\$wid" ctrl+q
wait \$gui
echo "gui exit \$?"
INNER
in_xvfb bash "$out/session.sh" > "$out/session.log" 2>&1
cat "$out/session.log"
db="$out/data/headroom/experiments.sqlite"
[ -f "$db" ] || fail "no default DB was created"
grep -q "worker was running" "$out/session.log" || fail "no headroom-worker serve child was started"
n=$(grep -o 'done runs: [0-9]*' "$out/session.log" | grep -o '[0-9]*$')
[ "${n:-0}" -ge 3 ] || fail "the worker started from the GUI finished only ${n:-0} runs"
grep -q "gui exit 0" "$out/session.log" || fail "the GUI did not exit cleanly"
sleep 1
pgrep -f "headroom-worker serve --db $db" >/dev/null && fail "the worker outlived the GUI"
status=$("$worker" status --db "$db" --json) || fail "status failed on the DB"
echo "$status" | grep -q '"status": *"running"' && fail "a run was left 'running' (not handed back to the queue)"
[ "$(echo "$status" | grep -o '"id":' | wc -l)" -ge 20 ] || fail "expected every quick suite's runs to be enqueued"
echo "PASS"
