/* migrate_db — `warren-admin migrate-db [--replace] FROM TO`: the one
 * command that works on the databases themselves rather than through the
 * running daemon (db/db_copy.h does the copy). */
#ifndef WARREN_ADMIN_MIGRATE_DB_H
#define WARREN_ADMIN_MIGRATE_DB_H

/* argv[i] is "migrate-db": its arguments follow. The exit status: 0 copied
 * and verified, 1 failed (nothing kept), 2 misuse. */
int admin_migrate_db(int argc, char **argv, int i);

#endif
