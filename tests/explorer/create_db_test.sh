#!/usr/bin/env bash
# create_db_test.sh HEADROOM WORKER OUTDIR
# A path that does not exist yet, typed or given with --db, is offered as a new DB: a click on
# "Create an experiments DB here" makes an empty Headroom DB there (the worker reads it), and the
# explorer goes on to the empty DB's offer. A path in a folder that does not exist gets no such
# button, only the reason.
set -u
here="$(cd "$(dirname "$0")/../gui" && pwd)"
. "$here/gui_test_lib.sh"
require_xvfb
headroom=$1 worker=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
db="$out/new.sqlite"

in_xvfb "$headroom" --view Explorer --db "$out/no/such/folder/x.sqlite" --frames 30 --state-out "$out/nofolder.json" \
  --screenshot "$out/nofolder.png" >/dev/null || fail "headroom failed on a path in a missing folder"
state_equals "missing folder" "$out/nofolder.json" "j['explorer']['can_create']" "False"
[ -e "$out/no" ] && fail "a path in a missing folder created something"

open_window "$out" "$headroom" --view Explorer --db "$db" --state-out "$out/state.json"
[ -e "$db" ] && fail "opening a new path created it before the click"
xdotool mousemove --window "$win" 127 126 click 1   # "Create an experiments DB here" (1280x800)
wait_for_state "$out/state.json" "j['explorer']['open']" 60 || fail "the new DB did not open after the click"
close_window "create"
[ -f "$db" ] || fail "the click did not create $db"
"$worker" status --db "$db" --json > "$out/status.json" || fail "headroom-worker cannot read the created DB"
state_equals "created" "$out/state.json" "(j['explorer']['can_create'], j['explorer']['error'], j['explorer']['runs'])" \
  "(False, '', 0)"
echo PASS
