#!/usr/bin/env bash
# man_options_test.sh MAN_DIR WORKER [HEADROOM]
# The manual pages list every option the programs accept: each option in `headroom-worker CMD
# --help` appears in headroom-worker(1)'s section for CMD, and each in `headroom --help` in
# headroom(1). An option added to a program without a word in its manual page fails here.
set -u
man_dir=$1 worker=$2 headroom=${3:-}
missing=0
# options_of HELP_TEXT: the long options a CLI11 help lists (--help itself left out).
options_of() { grep -oE '^\s+(-[a-z],)?--[a-z0-9-]+' <<<"$1" | grep -oE -- '--[a-z0-9-]+' | grep -vx -- '--help'; }
commands=$("$worker" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
[ -n "$commands" ] || { echo "man_options_test: no subcommands in headroom-worker --help" >&2; exit 1; }
for command in $commands; do
  # The page's section for the command: from `.SS "command"` to the next section, roff dashes undone.
  section=$(awk -v c="\"$command\"" '/^\.S[SH] / { on = ($1 == ".SS" && $2 == c) } on' "$man_dir/headroom-worker.1" | sed 's/\\-/-/g')
  [ -n "$section" ] || { echo "headroom-worker(1) has no section for the command $command"; missing=1; continue; }
  for option in $(options_of "$("$worker" "$command" --help)"); do
    grep -qE -- "(^|[^a-z-])$option([^a-z-]|$)" <<<"$section" ||
      { echo "headroom-worker(1), $command: $option is not described"; missing=1; }
  done
done
if [ -n "$headroom" ]; then
  page=$(sed 's/\\-/-/g' "$man_dir/headroom.1")
  for option in $(options_of "$("$headroom" --help)"); do
    grep -qE -- "(^|[^a-z-])$option([^a-z-]|$)" <<<"$page" || { echo "headroom(1): $option is not described"; missing=1; }
  done
fi
[ $missing -eq 0 ] && echo "man_options_test: every option is in its manual page"
exit $missing
