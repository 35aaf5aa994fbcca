"""Hosted games' recordings written straight into a daemon's database,
in the format the recorder stores (server/hosted/recchunk.h): for the
replay tests and benchmarks, a recording of any size in a second instead
of a flooding program's minute. A row of hosted_games, then its chunks:
zlib streams of records, each a kind byte, the milliseconds since the
record before (a LEB128 varint), then 'o' a varint length and the output,
or 'r' the window's width and height."""
import sqlite3
import time
import zlib

CHUNK_RAW = 64 * 1024  # as the recorder cuts them (hostrec.h HOSTREC_CHUNK_RAW)
READ = 4096            # bytes per 'o' record: one read of the program's output


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def flood_output(nbytes, first=0):
    """nbytes of what tests/tools/ptytoy's flood writes: coloured lines."""
    lines, n, i = [], 0, first
    while n < nbytes:
        s = f"\x1b[3{i % 8}mflood {i:012d} abcdefghijklmnopqrstuvwxyz\x1b[0m\r\n".encode()
        lines.append(s)
        n += len(s)
        i += 1
    return b"".join(lines)[:nbytes]


def chunks(output, w=80, h=24, read=READ, ms_per_read=2, start_ms=0):
    """[(ms, zlib data)]: output in records of read bytes ms_per_read apart
    (25 or more: a frame each in the browser player), CHUNK_RAW raw bytes
    a chunk, the window's size first."""
    out, ms, chunk_ms, last = [], start_ms, start_ms, start_ms
    raw = bytearray(b"r" + varint(0) + varint(w) + varint(h))
    for off in range(0, len(output), read):
        piece = output[off:off + read]
        rec = b"o" + varint(ms - last) + varint(len(piece)) + piece
        if len(raw) + len(rec) > CHUNK_RAW:
            out.append((chunk_ms, zlib.compress(bytes(raw))))
            raw, chunk_ms, last = bytearray(), ms, ms
            rec = b"o" + varint(0) + varint(len(piece)) + piece
        raw += rec
        last = ms
        ms += ms_per_read
    if raw:
        out.append((chunk_ms, zlib.compress(bytes(raw))))
    return out


def _open(db):
    """A connection to db and how it takes a query in SQLite's words: a
    harness.Daemon's PostgreSQL schema (WARREN_DB=pg), else the SQLite file
    (a Daemon's, or a path)."""
    url = getattr(db, "db_url", None)
    if url:
        import psycopg2
        from harness import pg_sql
        return psycopg2.connect(url), pg_sql
    return sqlite3.connect(str(getattr(db, "db", db)), timeout=30), lambda sql: sql


def insert(db, user, made, nbytes, game="flood", w=80, h=24, ended=True, copies=1):
    """copies recordings of user holding made (chunks()) for nbytes of
    output; returns their ids."""
    con, q = _open(db)
    ids = []
    try:
        now = int(time.time())
        cur = con.cursor()
        for _ in range(copies):
            cur.execute(q("INSERT INTO hosted_games(user, game, start_time, end_time, width, "
                          "height, bytes) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"),
                        (user, game, now - 100, now if ended else 0, w, h, nbytes))
            rid = cur.fetchone()[0]
            cur.executemany(q("INSERT INTO hosted_chunks(game, seq, ms, data) VALUES (?, ?, ?, ?)"),
                            [(rid, i + 1, ms, data) for i, (ms, data) in enumerate(made)])
            ids.append(rid)
        con.commit()
    finally:
        con.close()
    return ids


def add_chunk(db, rid, made_chunk, nbytes):
    """One more chunk at the end of recording rid, nbytes more output."""
    con, q = _open(db)
    try:
        cur = con.cursor()
        cur.execute(q("SELECT coalesce(max(seq), 0) + 1 FROM hosted_chunks WHERE game = ?"), (rid,))
        seq = cur.fetchone()[0]
        cur.execute(q("INSERT INTO hosted_chunks(game, seq, ms, data) VALUES (?, ?, ?, ?)"),
                    (rid, seq, made_chunk[0], made_chunk[1]))
        cur.execute(q("UPDATE hosted_games SET bytes = bytes + ? WHERE id = ?"), (nbytes, rid))
        con.commit()
    finally:
        con.close()
