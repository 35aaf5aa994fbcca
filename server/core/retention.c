/* retention — old rows and entries deleted on a timer (retention.h). */
#include "retention.h"
#include <time.h>
#include "accounts.h"
#include "log.h"
#include "mail.h"

/* What one deletion says in the log. */
static void on_purged(void *ud, int status, int64_t n)
{
    const char *what = ud;
    if (status != DB_OK)
        log_error("retention: %s not deleted (status %d)", what, status);
    else if (n > 0)
        log_info("retention: %lld %s deleted", (long long)n, what);
}

void retention_tick(server_t *home)
{
    if (home->ticks % RETENTION_EVERY_S != 1)
        return;
    int64_t now = (int64_t)time(NULL);
    db_session_purge(home->db, now, on_purged, "expired web sessions");
    db_mail_purge(home->db, now - MAIL_KEEP_DAYS * 86400, on_purged, "read mails");
    size_t n = home->acc ? accounts_forget(home->acc, now_ms(home)) : 0;
    if (n > 0)
        log_info("retention: %zu quiet login throttles forgotten", n);
}
