"""What each score filter costs on a large store: one warrend (the build in
BINDIR) on an SQLite file, then on a private PostgreSQL cluster
(tests/integration/pgcluster.py), each holding N finished games (400,000
by default) of four races and four classes, scores spread, one ending every
100 seconds up to now (so the last day holds 864, the last year 315,360).
Every /api/scores filter the page takes is asked ROUNDS times over HTTP;
then the cost of a game's end: 20,000 games of another state made finished
in one UPDATE, each entering the games' partial indexes.

    /usr/bin/python3 tests/load/bench_scores.py BINDIR [N] [ROUNDS]

Prints BENCH scores.<backend>.<filter>.ms (the median answer's wall time)
and BENCH scores.<backend>.end_us (per game made finished)."""
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
import harness  # noqa: E402
from harness import PW, Daemon, Web  # noqa: E402

FILTERS = [
    "", "race=nobody", "class=nobody", "race=Elf", "class=rogue", "race=elf&class=rogue",
    "race=elf&class=nobody", "period=day", "period=week", "period=month", "period=year",
    "race=nobody&period=day", "race=elf&period=week", "race=elf&class=rogue&period=month",
]
ENDS = 20_000
RACES = "CASE i {mod} 4 WHEN 0 THEN 'human' WHEN 1 THEN 'elf' WHEN 2 THEN 'dwarf' ELSE 'halfling' END"
CLASSES = ("CASE (i / 4) {mod} 4 WHEN 0 THEN 'fighter' WHEN 1 THEN 'rogue' WHEN 2 THEN 'wizard' "
           "ELSE 'cleric' END")


def fill_sql(pg):
    series = ("generate_series(1::bigint, %s) AS c(i)" if pg else
              "(WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) "
              "SELECT i FROM c) c")
    user = '"user"' if pg else "user"
    p = "%s" if pg else "?"
    mod = "%%" if pg else "%"
    return (f"INSERT INTO games(id, {user}, seed, content_version, race, class, start_time, "
            f"end_time, score, cause, end_kind, verified, state) SELECT 1000 + i, {p}, i, 'old', "
            f"{RACES.format(mod=mod)}, {CLASSES.format(mod=mod)}, {p} - (c.i * 100) - 50, "
            f"{p} - (c.i * 100), (i * 7919) {mod} 100003, "
            f"'quit', 'quit', 1, {p} FROM {series}")


def fill(d, pg, n, now):
    user = d.db_rows("SELECT id FROM users WHERE name = 'olive'")[0][0]
    sql = fill_sql(pg)
    if pg:
        import psycopg2
        con = psycopg2.connect(d.db_url)
        with con, con.cursor() as cur:
            cur.execute(sql, (user, now, now, "finished", n))
            cur.execute(sql.replace("1000 + i", "1000 + %s + i", 1), (n, user, now, now, "broken",
                                                                       ENDS))
            cur.execute("SELECT setval('game_ids', %s)", (n + ENDS + 2000,))
        con.autocommit = True
        con.cursor().execute("ANALYZE games")  # as autovacuum would after such a load
        con.close()
        return
    import sqlite3
    con = sqlite3.connect(d.db, timeout=30)
    con.execute(sql, (user, now, now, "finished", n))
    con.execute(sql.replace("1000 + i", f"1000 + {n} + i", 1), (user, now, now, "broken", ENDS))
    con.execute("UPDATE game_ids SET next = ?", (n + ENDS + 2000,))
    con.commit()
    con.close()


def ends_us(d, pg, n):
    """Per game: ENDS games made finished in one statement (found by id)."""
    sql = f"UPDATE games SET state = 'finished' WHERE id > {1000 + n}"
    t = time.perf_counter()
    if pg:
        harness.pg_run(d.db_url, [(sql, ())], fetch=False)
    else:
        import sqlite3
        con = sqlite3.connect(d.db, timeout=30)
        con.execute(sql)
        con.commit()
        con.close()
    return (time.perf_counter() - t) / ENDS * 1e6


def run(bindir, backend, n, rounds, top):
    pg = backend == "pg"
    os.environ["WARREN_DB"] = "pg" if pg else "sqlite"
    harness.ON_PG = pg
    d = Daemon(bindir, pathlib.Path(top) / backend, http=True)
    d.start()
    try:
        assert Web(d.http).register("olive", PW).status == 303
        now = int(time.time())
        with d.stopped():
            fill(d, pg, n, now)
        for f in FILTERS:
            took = []
            for _ in range(rounds):
                t = time.perf_counter()
                r = Web(d.http, timeout=120).get("/api/scores?" + f)
                took.append(time.perf_counter() - t)
                assert r.status == 200, (f, r.status)
            name = f.replace("&", "+").replace("=", "_") or "all"
            print(f"BENCH scores.{backend}.{name}.ms {statistics.median(took) * 1000:.1f} ms",
                  flush=True)
        d.stop_clean()
        print(f"BENCH scores.{backend}.end_us {ends_us(d, pg, n):.2f} us", flush=True)
    finally:
        d.stop()


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench_scores.py BINDIR [N] [ROUNDS]")
    bindir = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory(prefix="bench-scores-") as top:
        for backend in ("sqlite", "pg"):
            run(bindir, backend, n, rounds, top)


if __name__ == "__main__":
    main()
