/* migrate_db — copies a database into another and prints each table's
 * rows and checksum, the same read back from the copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "db_copy.h"
#include "migrate_db.h"

int admin_migrate_db(int argc, char **argv, int i)
{
    bool replace = false;
    const char *ends[2] = {NULL, NULL};
    int n = 0;
    for (int a = i + 1; a < argc; a++) {
        if (strcmp(argv[a], "--replace") == 0)
            replace = true;
        else if (n < 2 && argv[a][0])
            ends[n++] = argv[a];
        else
            n = 3;
    }
    if (n != 2) {
        fprintf(stderr, "warren-admin: usage: migrate-db [--replace] FROM TO (each a SQLite "
                        "file or a postgresql:// URL)\n");
        return 2;
    }
    char err[512], from[256], to[256];
    db_redact(ends[0], from, sizeof from);
    db_redact(ends[1], to, sizeof to);
    /* the URLs kept here, their passwords out of ps for the copy's length */
    char *src = strdup(ends[0]), *dst = strdup(ends[1]);
    if (!src || !dst) {
        free(src);
        free(dst);
        fprintf(stderr, "warren-admin: migrate-db: out of memory (nothing copied)\n");
        return 1;
    }
    for (int a = i + 1; a < argc; a++)
        db_hide_secret(argv[a]);
    db_copy_report_t rep;
    int st = db_copy(src, dst, replace, &rep, err, sizeof err);
    free(src);
    free(dst);
    if (st != DB_OK) {
        fprintf(stderr, "warren-admin: migrate-db: %s (nothing copied)\n", err);
        return 1;
    }
    long long rows = 0;
    for (int k = 0; k < rep.n; k++) {
        printf("%-14s %10lld rows  checksum %s  verified\n", rep.t[k].table,
               (long long)rep.t[k].rows, rep.t[k].sum);
        rows += rep.t[k].rows;
    }
    printf("copied %s to %s: %d tables, %lld rows, each read back and checked\n", from, to, rep.n,
           rows);
    return 0;
}
