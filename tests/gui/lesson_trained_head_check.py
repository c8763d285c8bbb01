#!/usr/bin/env python3
"""Checks what lesson 3's "A trained head" step says, from its handout (lesson.json):
the lab shows the stored run the step names, and the Theorem 1 tab reaches that trained head's
causal map exactly at d_p = floor(n/2) by construction (logits of rank floor(n/2)).
Usage: lesson_trained_head_check.py HANDOUT_DIR/lesson.json"""
import json
import os
import shutil
import sys

path = sys.argv[1]
if not os.path.exists(path):
    if shutil.which("xvfb-run") is None:
        print(f"SKIP: no {path} and no xvfb-run (the lesson test that writes it skipped)")
        sys.exit(77)
    sys.exit(f"FAIL: {path} is missing: the lesson test that writes it did not run or failed")
doc = json.load(open(path))
steps = [s for s in doc["steps"] if "stored_run" in s.get("scene", {}).get("lab", {})]
if len(steps) != 1:
    sys.exit(f"FAIL: expected one step that opens a stored run, found {len(steps)}")
step = steps[0]
state = step["view_state"]
want = step["scene"]["lab"]["stored_run"]["name"]
got = state.get("stored_run", {})
problems = []
if got.get("name") != want or got.get("step", -1) < 0:
    problems.append(f"the lab shows {got} ({state.get('stored_run_problem')}), the step opens {want}")
t = state.get("theorem") or {}
n = t.get("n", 0)
if n < 16:
    problems.append(f"the target should be the trained head's map over the sentence, n = {n}")
if not t.get("causal") or t.get("d_p") != n // 2:
    problems.append(f"expected a causal target at d_p = floor(n/2) = {n // 2}: {t}")
if t.get("method") != "construction" or t.get("construction_rank") != n // 2:
    problems.append(f"the step says the head is reached by construction at rank floor(n/2): {t}")
if not t.get("max_abs_error", 1) < 1e-6:
    problems.append(f"the step says the head is reached exactly: max |reached - target| = {t.get('max_abs_error')}")
if problems:
    sys.exit(f"FAIL: step '{step['title']}': " + "; ".join(problems))
print(f"PASS: {want} at step {got['step']}: n = {n}, d_p = {t['d_p']}, "
      f"max |reached - target| = {t['max_abs_error']:.2e} by construction")
