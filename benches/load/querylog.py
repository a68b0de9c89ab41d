#!/usr/bin/env python3
"""Where a move's database time goes: reads a Postgres log written with
log_min_duration_statement=0 (Debian's default prefix '%m [%p] %q%u@%d '), keeps
the lines of one database, and reports per kind of transaction (a move is a
transaction that inserts into "moves") the statements sent, their server-side
time (parse + bind + execute) and the COMMIT time; and the statements sent outside
transactions once the first move began (the state reads), per read.

    querylog.py LOGFILE DATABASE [READS]

READS: the number of GET /matches/{id} the load generator made (its `reads=`),
to give statements per read. Used by benches/compare.sh (COUNT_QUERIES=N).
"""

import re
import sys
from collections import Counter, defaultdict
from datetime import datetime

LINE = re.compile(
    r"^(\S+ \S+) \S+ \[(\d+)\] \S+@(\S+) LOG:  duration: ([0-9.]+) ms  "
    r"(statement|parse|bind|execute)( [^:]*)?: (.*)$"
)


def shape(sql: str) -> str:
    """A statement's text without values or column lists, cut short, to group by."""
    sql = re.sub(r"\s+", " ", sql)
    if sql.startswith("WITH w0 AS ("):
        # A batch of writes sent as one statement: name its parts.
        parts = re.findall(r'(INSERT INTO|UPDATE) "(\w+)"', sql)
        return "WITH … (one statement: " + ", ".join(f'{v} "{t}"' for v, t in parts) + ")"
    sql = re.sub(r"'[^']*'", "?", sql)
    sql = re.sub(r"^SELECT .*? FROM ", "SELECT … FROM ", sql)
    sql = re.sub(r" \(.*?\) VALUES .*", " (…) VALUES …", sql)
    sql = re.sub(r" SET .*? WHERE ", " SET … WHERE ", sql)
    sql = re.sub(r"\$\d+", "$n", sql)
    lock = " … FOR UPDATE" if sql.endswith("FOR UPDATE") and len(sql) > 80 else ""
    return sql[:80] + lock


def kind_of(statements):
    text = " ".join(s for s, _ in statements)
    for table, kind in (
        ('INSERT INTO "moves"', "move"),
        ('INSERT INTO "players"', "register"),
        ('INSERT INTO "matches"', "create match"),
        ('INSERT INTO "match_seats"', "join"),
    ):
        if table in text:
            return kind
    return "other"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, database = sys.argv[1], sys.argv[2]
    reads = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    open_tx = {}  # pid -> [(shape, ms)]
    began, locked = {}, {}  # pid -> log time (ms) of BEGIN, of the first FOR UPDATE
    walls, held = [], []  # per move: BEGIN to COMMIT, first lock to COMMIT (ms)
    pending = defaultdict(float)  # pid -> parse/bind ms not yet attributed
    txs = defaultdict(list)  # kind -> [(statements, server ms, commit ms)]
    drive_started = False
    outside = Counter()
    outside_ms = 0.0
    with open(path, errors="replace") as f:
        for raw in f:
            m = LINE.match(raw.rstrip("\n"))
            if not m or m.group(3) != database:
                continue
            pid, ms, phase, sql = m.group(2), float(m.group(4)), m.group(5), m.group(7)
            at = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").timestamp() * 1000
            if phase in ("parse", "bind"):
                pending[pid] += ms
                continue
            ms += pending.pop(pid, 0.0)
            word = sql.strip().upper()
            if word in ("BEGIN", "START TRANSACTION"):
                open_tx[pid] = []
                began[pid] = at
                locked.pop(pid, None)
                continue
            if word in ("COMMIT", "ROLLBACK", "END") and pid in open_tx:
                statements = open_tx.pop(pid)
                kind = kind_of(statements)
                if kind == "move":
                    walls.append(at - began.pop(pid, at))
                    held.append(at - locked.pop(pid, at))
                if word == "ROLLBACK":
                    kind += " (rolled back)"
                if kind == "move":
                    drive_started = True
                txs[kind].append((statements, sum(t for _, t in statements), ms))
                continue
            if pid in open_tx:
                open_tx[pid].append((shape(sql), ms))
                if "FOR UPDATE" in sql and pid not in locked:
                    locked[pid] = at
            elif drive_started:
                outside[shape(sql)] += 1
                outside_ms += ms

    for kind, items in sorted(txs.items(), key=lambda kv: -len(kv[1])):
        n = len(items)
        stmts = sum(len(s) for s, _, _ in items)
        server = sum(t for _, t, _ in items)
        commit = sum(c for _, _, c in items)
        print(
            f"{kind}: {n} transactions, {stmts / n:.1f} statements each besides "
            f"BEGIN/COMMIT (so {stmts / n + 2:.1f} round trips), "
            f"{server / n:.3f} ms server time in them, COMMIT {commit / n:.3f} ms"
        )
        if kind == "move":
            for name, v in (("BEGIN to end of COMMIT", walls), ("match row locked (lock acquired to end of COMMIT)", held)):
                v = sorted(v)
                if v:
                    print(f"  {name}: mean {sum(v) / len(v):.2f} ms, p50 {v[len(v) // 2]:.0f} ms, "
                          f"p99 {v[min(len(v) - 1, int(len(v) * 0.99))]:.0f} ms (log times are whole ms)")
            sizes = Counter(len(s) for s, _, _ in items)
            print("  statements per move:", ", ".join(
                f"{k}: {v}" for k, v in sorted(sizes.items())))
            per = Counter()
            per_ms = Counter()
            for s, _, _ in items:
                for text, t in s:
                    per[text] += 1
                    per_ms[text] += t
            for text, c in per.most_common():
                print(f"  {c / n:6.2f} per move  {per_ms[text] / c:6.3f} ms  {text}")
    total = sum(outside.values())
    if total:
        tail = f" = {total / reads:.2f} per read" if reads else ""
        print(f"outside transactions after the first move: {total} statements{tail}, "
              f"{outside_ms / total:.3f} ms each")
        for text, c in outside.most_common(8):
            print(f"  {c:7d}  {text}")


if __name__ == "__main__":
    main()
