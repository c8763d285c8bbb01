#!/usr/bin/python3
"""check_writeups_fix_test.py REPO OUT: scripts/check_writeups.py on a write-up whose tables are stale.

A copy of a write-up with a command that prints several "A - B" tables (--at), every table of it
stale (the sd and standard-error columns taken out, as an older suite_report printed them):
check_writeups must report it (exit 1), --fix must rewrite each table under its own heading (the
step-2500 table where the step-2500 table stood, not every one into the first), and the result
must be the page as the repository has it, so a second check passes.
"""
import os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks

repo, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
check = Checks("check_writeups_fix_test")
page = os.path.join(repo, "docs", "results", "vb_depth_width_full.md")
original = open(page).read()


def without_spread(line):
    """An A - B table row as suite_report printed it before the sd and standard-error columns."""
    cells = line.strip().strip("|").split("|")
    return "|" + "|".join(cells[:4] + cells[6:]) + "|" if len(cells) == 7 else line


lines, in_ab = original.split("\n"), False
for i, line in enumerate(lines):
    if line.startswith("| A - B ("):
        in_ab = True
    elif not line.startswith("|"):
        in_ab = False
    if in_ab:
        lines[i] = without_spread(line)
stale_text = "\n".join(lines)
check(stale_text != original and stale_text.count("(val loss at step 2500, per seed)") >= 2,
      "the page has --at tables to make stale")
stale = os.path.join(out, "vb_depth_width_full.md")
open(stale, "w").write(stale_text)

tool = [sys.executable, os.path.join(repo, "scripts", "check_writeups.py")]
first = subprocess.run(tool + [stale], capture_output=True, text=True)
check(first.returncode == 1, f"a stale page fails the check with exit 1 (got {first.returncode}: {first.stdout[-300:]})")
fixed = subprocess.run(tool + ["--fix", stale], capture_output=True, text=True)
check(fixed.returncode == 0, f"--fix exits 0 (got {fixed.returncode}: {fixed.stdout[-300:]})")
check(open(stale).read() == original, "--fix restores every table under its own heading: the page as shipped")
again = subprocess.run(tool + [stale], capture_output=True, text=True)
check(again.returncode == 0, f"the fixed page passes the check (got {again.returncode}: {again.stdout[-300:]})")
shutil.rmtree(out, ignore_errors=True)
check.finish()
