#!/usr/bin/env python3
"""The results databases Headroom ships (assets/results/**/*.sqlite) open anywhere, read-only.

Each must be a rollback-journal SQLite file: a WAL file needs its reader to create a -shm file
beside it, which fails in an installed /usr/share/headroom/results or on a read-only share, and
leaves stray files in a checkout. `headroom-worker export` writes such files; `merge` writes a
working (WAL) database, so a merged file must be switched before it ships:
    sqlite3 FILE "VACUUM; PRAGMA journal_mode=DELETE;"
Together they stay within issue 12's budget of about 30 MB (checked against 30 MiB).

Usage: shipped_results_test.py [RESULTS_DIR]   (default: assets/results beside this script)
"""
import pathlib
import sys

BUDGET = 30 * 1024 * 1024


def problems(results: pathlib.Path) -> list:
    found = sorted(results.rglob("*.sqlite"))
    if not found:
        return [f"{results}: no *.sqlite results databases found; the shipped results are missing"]
    out = []
    for path in found:
        with path.open("rb") as f:
            header = f.read(100)  # the file header; the databases themselves run to tens of MB
        if not header.startswith(b"SQLite format 3\x00"):
            out.append(f"{path}: not an SQLite 3 database (its first bytes are {header[:16]!r})")
            continue
        write_version, read_version = header[18], header[19]
        if (write_version, read_version) != (1, 1):
            mode = "WAL" if 2 in (write_version, read_version) else f"version bytes {write_version}/{read_version}"
            out.append(f"{path}: journal mode is {mode}, but a shipped database must be a rollback-journal file "
                       f"(run: sqlite3 {path} \"VACUUM; PRAGMA journal_mode=DELETE;\")")
    total = sum(p.stat().st_size for p in found)
    if total > BUDGET:
        out.append(f"{results}: the shipped databases hold {total:,} bytes, over the ~30 MB budget ({BUDGET:,} bytes); "
                   "export with fewer weights or snapshots (headroom-worker export --weights-per-suite, --snapshots-per-run)")
    print(f"shipped_results: {len(found)} databases, {total:,} bytes of {BUDGET:,}")
    return out


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    results = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "assets" / "results"
    found = problems(results)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
