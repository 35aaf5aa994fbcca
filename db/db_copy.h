/* db_copy — a whole Warren database copied into another: SQLite into
 * PostgreSQL, PostgreSQL into SQLite (or either into its own kind), for
 * `warren-admin migrate-db`.
 *
 * Both are first brought to this program's schema by opening them as
 * warrend does (their migrations; a SQLite target is made, mode 0600).
 * Then every table's rows go over in one transaction of the target, read
 * from one snapshot of the source; before it commits, each table is read
 * back from the target and its row count and content checksum compared
 * with the source's: on any difference nothing is kept. The target's id
 * counters (game ids, PostgreSQL's identity sequences) are set past the
 * rows copied; the target keeps its own database id (meta 'id'): it is
 * another database. A target holding accounts or games is refused unless
 * replace is set (then its rows are deleted first, in the same
 * transaction). warrend should not be running on either meanwhile. */
#ifndef WARREN_DB_COPY_H
#define WARREN_DB_COPY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DB_COPY_TABLES 24

/* One table as copied: the same figures on both sides, or nothing is kept. */
typedef struct {
    const char *table; /* static */
    int64_t rows;
    char sum[33]; /* hex; independent of the rows' order and of the backend */
} db_copy_table_t;

typedef struct {
    db_copy_table_t t[DB_COPY_TABLES];
    int n;
} db_copy_report_t;

/* Copies from into to (each a SQLite path or a postgresql:// URL): DB_OK
 * with rep filled, or DB_ERR with the reason in err (no password in it)
 * and the target unchanged past its migrations. */
int db_copy(const char *from, const char *to, bool replace, db_copy_report_t *rep, char *err,
            size_t errlen);

#endif
