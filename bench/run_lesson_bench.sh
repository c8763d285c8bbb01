#!/usr/bin/env bash
# Lessons in a real window under Xvfb's software renderer (llvmpipe) at 1920x1080, measured by the
# GUI's own --bench-frames with --lesson: the presenter moves to the next step as soon as the step
# is drawn settled and its animations have played (the first step after the last), and reports
#   - step change -> the step's subject drawn (the lab's snapshot for the step's model; on the
#     Theorem 1 panel, the target, the reached pattern and their difference; on an Explorer step,
#     its figure or replay); steps that train are animations, not step changes, and are left out;
#   - step change -> everything filled in (the view settled(): on the Theorem 1 panel, its whole
#     error-vs-d_p curve, which fills in progressively after the answer);
#   - frame times while a step animates (sweeps, training), as frames per second;
#   - which step was slowest to draw (its step number, median over rounds): a lesson's first step
#     also carries the window's first frames (a software GL compiles its shaders then).
# ROUNDS rounds per lesson (default 3), FRAMES frames each (default 600); medians over rounds.
# Prints a markdown table for the README. Pause any training worker on the machine first.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
FRAMES="${FRAMES:-600}"
SIZE="${SIZE:-1920x1080}"
[ -x build/app/gui/headroom ] || bash scripts/build.sh
out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT
for lesson in ${LESSONS:-assets/lessons/*.toml}; do  # LESSONS: a subset, e.g. "assets/lessons/04_*.toml"
  if [ ! -f "$lesson" ]; then
    echo "run_lesson_bench.sh: no lesson file '$lesson'; LESSONS takes lesson files, e.g. LESSONS=\"assets/lessons/04_*.toml\"" >&2
    exit 2
  fi
  for round in $(seq "$ROUNDS"); do
    if ! line=$(xvfb-run -a -s "-screen 0 ${SIZE}x24" build/app/gui/headroom --lesson "$lesson" --bench-frames "$FRAMES" \
      --size "$SIZE" 2>"$out.err" | tail -1); then
      echo "run_lesson_bench.sh: headroom failed on $lesson (round $round): $(tail -3 "$out.err")" >&2
      exit 1
    fi
    echo "$(basename "$lesson" .toml) $line" >>"$out"
  done
done
python3 - "$out" "$SIZE" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, js = line.split(" ", 1)
    rows.setdefault(name, []).append(json.loads(js))
med = lambda xs: statistics.median(xs) if xs else float("nan")
print(f"Lessons at {sys.argv[2]}, Xvfb software GL, medians of {max(len(v) for v in rows.values())} rounds:\n")
print("| lesson | steps timed | step change -> drawn: median / p95 / max ms | -> all filled in: p95 / max ms "
      "| animation fps (median) | frame p95 ms | slowest step (median ms) |")
print("|---|---|---|---|---|---|---|")
for name, rs in sorted(rows.items()):
    g = lambda k: med([r[k] for r in rs if k in r])
    timed = sum(r.get("lesson_steps_timed", 0) for r in rs)
    fps = g('lesson_animation_fps_median')
    fps = "-" if fps != fps else f"{fps:.0f}"  # no animation in the lesson
    # Each step's median over the rounds (a step the presenter reached twice in a round counts
    # each time); the slowest names the step a miss comes from.
    by_step = {}
    for r in rs:
        for t in r.get("lesson_step_log", []):
            by_step.setdefault(t["step"], []).append(t["ms"])
    slowest = max(by_step.items(), key=lambda kv: med(kv[1]), default=None)
    slowest = "-" if slowest is None else f"{slowest[0]} ({med(slowest[1]):.0f})"
    print(f"| {name} | {timed} | {g('lesson_step_ms_median'):.0f} / {g('lesson_step_ms_p95'):.0f} / "
          f"{g('lesson_step_ms_max'):.0f} | {g('lesson_step_complete_ms_p95'):.0f} / "
          f"{g('lesson_step_complete_ms_max'):.0f} | {fps} | {g('frame_ms_p95'):.1f} | {slowest} |")
PY
