#!/usr/bin/python3
"""check_writeups.py [--fix] [FILE.md ...]: the tables in docs/results/ (and docs/causal_threshold.md)
are what their commands make.

Each write-up names the `python3 scripts/suite_report.py DB SUITE ...` command that made its tables,
in a ```sh block. This runs every such command again on the DB the repository ships: the named DB
where it is in the repository (assets/results/paper/*.sqlite), else the shipped full-scale results
(assets/results/headroom_results.sqlite, which holds every run of every suite's full scale). The
tables it prints must stand in the write-up as they are, after the command's block and before the
next one (all but the wall-time column: see wall_column): a number typed in, or a DB that no longer
holds what the page says, fails.

--fix rewrites those tables in place (after each command, the table of the same heading, else the
first "| run group" or "| A - B" table) from the command's output, for a write-up made with an older suite_report.
Exit status: 0 all match, 1 some table differs (listed), 2 a command failed or found no runs.
"""
import glob, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = "assets/results/headroom_results.sqlite"
COMMAND = re.compile(r"^python3 scripts/suite_report\.py (\S+) (.*)$")


ASSIGNMENTS = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*=\S*;?\s*)+$")  # "P=pos-rank/pos_rank; B=..."


def commands(lines):
    """(index of the line after the command's code block, db, the command's arguments after the
    DB, with the block's shell variables set before them) per command."""
    found, in_block, pending, variables = [], False, [], ""
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if in_block:
                found += [(i + 1, db, rest) for db, rest in pending]
                pending, variables = [], ""
            in_block = not in_block
            continue
        if not in_block:
            continue
        if pending and pending[-1][1][1].endswith("\\"):  # a continuation line of the last command
            db, (variables_then, rest) = pending[-1]
            pending[-1] = (db, (variables_then, rest[:-1].rstrip() + " " + line.strip()))
            continue
        if ASSIGNMENTS.match(line.strip()):
            variables += line.strip().rstrip(";") + "; "
            continue
        m = COMMAND.match(line.split("  #")[0].rstrip())
        if m:
            pending.append((m.group(1), (variables, m.group(2))))
    return found


def tables(text):
    """The markdown tables in text, each a list of lines: the header line first."""
    out, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def wall_column(table):
    """The index of the table's wall-time column, or None. Wall time belongs to the session that
    trained the runs: a page about a CPU run keeps its own when the shipped DB holds a GPU re-run
    with the same losses (vb_attention_ratio), so the check leaves that column out."""
    return next((i for i, c in enumerate(cells(table[0])) if c.startswith("wall")), None)


def without_wall(table):
    w = wall_column(table)
    return [[c for i, c in enumerate(cells(line)) if i != w] for line in table]


def keep_page_walls(new, old):
    """new's lines with each row's wall cell taken from old's row of the same run group, if any."""
    wn, wo = wall_column(new), wall_column(old)
    if wn is None or wo is None:
        return new
    walls = {cells(line)[0]: cells(line)[wo] for line in old[2:]}
    out = new[:2]
    for line in new[2:]:
        c = cells(line)
        if c[0] in walls:
            c[wn] = walls[c[0]]
        out.append("| " + " | ".join(c) + " |")
    return out


def table_spans(lines, start, end):
    """(first, last + 1) of each table in lines[start:end]."""
    spans, i = [], start
    while i < end:
        if lines[i].startswith("|"):
            j = i
            while j < end and lines[j].startswith("|"):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def check(path, fix):
    lines = open(path).read().split("\n")
    cmds = commands(lines)
    problems, changed = [], False
    for k in range(len(cmds)):
        after, db, (variables, rest) = cmds[k]
        end = cmds[k + 1][0] if k + 1 < len(cmds) else len(lines)
        shipped = db if os.path.exists(os.path.join(ROOT, db)) else SHIPPED
        run = subprocess.run(["bash", "-c", f"{variables}python3 scripts/suite_report.py {shipped} {rest}"], cwd=ROOT,
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{path}: `suite_report.py {db} {rest[:60]}` on {shipped} failed: {run.stderr.strip()}")
            return None
        for want in tables(run.stdout):
            spans = table_spans(lines, after, end)
            kind = want[0].split("|")[1].strip()[:5]  # "run g" or "A - B"
            same_kind = [(a, b) for a, b in spans if lines[a].split("|")[1].strip()[:5] == kind]
            if any(without_wall(lines[a:b]) == without_wall(want) for a, b in same_kind):
                continue
            if fix and same_kind:
                # The table of the same heading ("A - B (val loss at step 2500, ...)": --at prints
                # several), else the first of its kind.
                head = want[0].split("|")[1].strip()
                a, b = next(((a, b) for a, b in same_kind if lines[a].split("|")[1].strip() == head), same_kind[0])
                want = keep_page_walls(want, lines[a:b])
                lines[a:b] = want
                changed = True
                # Later commands' positions move with the table's length.
                cmds = [(i + len(want) - (b - a) if i > a else i, d, r) for i, d, r in cmds]
                end += len(want) - (b - a)
                continue
            problems.append(f"{path}: after `{db} {rest[:50]}...` (checked on {shipped}), this table is not in the "
                            f"page as the command prints it:\n  " + "\n  ".join(want[:4]) +
                            ("\n  ..." if len(want) > 4 else ""))
    if changed:
        open(path, "w").write("\n".join(lines))
        print(f"{path}: tables rewritten from their commands")
    return problems


def check_threshold_page():
    """docs/causal_threshold.md's tables against threshold_report.py on each CSV it was made from."""
    page = os.path.join(ROOT, "docs/causal_threshold.md")
    text = open(page).read().split("\n")
    problems = []
    for csv in sorted(glob.glob(os.path.join(ROOT, "docs/results/threshold/*.csv"))):
        run = subprocess.run(["python3", "scripts/threshold_report.py", csv], cwd=ROOT, capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{page}: threshold_report.py {csv} failed: {run.stderr.strip()}")
            continue
        spans = table_spans(text, 0, len(text))
        for want in tables(run.stdout):
            if not any(text[a:b] == want for a, b in spans):
                problems.append(f"{page}: this table of `threshold_report.py {os.path.basename(csv)}` is not in "
                                f"the page as the command prints it:\n  " + "\n  ".join(want[:4]))
    return problems


def main():
    args = [a for a in sys.argv[1:] if a != "--fix"]
    files = args or sorted(glob.glob(os.path.join(ROOT, "docs/results/*.md")))
    problems, checked = [], 0
    for f in files:
        p = check(f, "--fix" in sys.argv)
        if p is None:
            return 2
        checked += 1
        problems += p
    if not args:
        problems += check_threshold_page()
        checked += 1
    for p in problems:
        print(p)
    print(f"check_writeups: {checked} write-ups, {len(problems)} tables that differ from their commands' output")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
