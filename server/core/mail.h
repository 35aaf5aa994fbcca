/* mail — short messages players leave for each other (as dgamelaunch
 * has): written from the telnet menu (m) or the /mail page, kept in the
 * database, shown to the recipient at the next menu (login, or at once
 * when it waits at the main menu: screens/inbox.h, told through the
 * hooks' mail_left) or on the /mail page, then marked seen.
 *
 * Limits: MAIL_MAX characters of text (UTF-8, so at most MAIL_BYTES
 * bytes; control characters become spaces, and a message of nothing else
 * is empty: not sent),
 * MAIL_PER_HOUR messages per sender per hour, 20 unseen per recipient.
 * Mail once read is kept MAIL_KEEP_DAYS after it was sent (retention.h).
 * Loop thread only. */
#ifndef WARREN_MAIL_H
#define WARREN_MAIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "conn.h"

#define MAIL_MAX       200 /* characters */
#define MAIL_BYTES     (MAIL_MAX * 4)
#define MAIL_PER_HOUR  10
#define MAIL_KEEP_DAYS 30 /* read mail is deleted this long after it was sent (retention.h) */

/* msg says what happened, for the sender (ok: the message was left). */
typedef void (*mail_sent_cb)(void *ud, bool ok, const char *msg);

/* from (an account) leaves text (n bytes) for the account named to; cb
 * is called once, maybe before mail_send returns. */
void mail_send(server_t *srv, int64_t from, const char *to, const char *text, size_t n,
               mail_sent_cb cb, void *ud);
/* Home, told by another node (notify.h) that mail was left there for
 * user_id: its terminals at the main menu here show it. */
void mail_left_elsewhere(server_t *home, const char *to, int64_t user_id, int64_t b);

#endif
