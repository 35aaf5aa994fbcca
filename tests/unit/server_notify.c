/* Unit tests: server/notify — the events one node sends the others
 * through PostgreSQL's NOTIFY: what notify_parse accepts and refuses,
 * and chat lines written by notify_format read back whole; the event
 * log's numbers split off before them; each event applied once however
 * many of the log's reads return it, however far apart, and new events
 * applied after the database's numbering went back. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "db_listen.h"
#include "notify.h"

START_TEST(events_read_whole)
{
    notify_event_t ev;
    ck_assert_int_eq(notify_parse("take node-b node-a 12 34", &ev), 0);
    ck_assert_str_eq(ev.kind, "take");
    ck_assert_str_eq(ev.to, "node-b");
    ck_assert_str_eq(ev.from, "node-a");
    ck_assert_int_eq(ev.a, 12);
    ck_assert_int_eq(ev.b, 34);
    ck_assert_int_eq(notify_parse("sanctions * a 0 0", &ev), 0);
    ck_assert_str_eq(ev.to, "*");
    ck_assert_int_eq(notify_parse("kick * a.example_1 -5 9223372036854775807", &ev), 0);
    ck_assert_int_eq(ev.a, -5);
    ck_assert_int_eq(notify_parse("mail * a 7 0", &ev), 0);
    ck_assert_int_eq(notify_parse("end b a 7 3", &ev), 0);
    ck_assert_int_eq(notify_parse("ended a b 7 1", &ev), 0);
    /* an account's delete: marked at every node, its game closed where it runs */
    ck_assert_int_eq(notify_parse("close b a 7 3", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_CLOSE);
    ck_assert_int_eq(notify_parse("deleting * a 3 1", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_DELETING);
    ck_assert_int_eq(ev.b, 1);
    ck_assert_int_eq(notify_parse("deleting * a 3 -1", &ev), 0); /* delete 1 of a ended */
    ck_assert_int_eq(ev.b, -1);
    /* its hosted games closed at every node, each answering */
    ck_assert_int_eq(notify_parse("hclose b a 3 0", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_HCLOSE);
    ck_assert_int_eq(notify_parse("hclosed a b 3 1", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_HCLOSED);
    ck_assert_int_eq(ev.a, 3);
    ck_assert_int_eq(notify_parse("chatask * b 0 0", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_CHAT_ASK);
    ck_assert_int_eq(ev.text_len, 0);
    /* a web login's end: its key, the first 60 bits of its session's hash */
    ck_assert_int_eq(notify_parse("logout * a 0 1152921504606846975", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_LOGOUT);
    ck_assert_int_eq(ev.b, 1152921504606846975LL);
    ck_assert_int_eq(notify_parse("passwd * a 7 0", &ev), 0);
    ck_assert_int_eq(notify_parse("logins * a 7 0", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_LOGINS);
    /* an account sent off, each why a kind of its own; a rename names the new name */
    ck_assert_int_eq(notify_parse("lock * a 7 0", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_LOCK);
    ck_assert_int_eq(notify_parse("delete * a 7 0", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_DELETE);
    ck_assert_int_eq(notify_parse("kick * a 7 2", &ev),
                     0); /* a delete, as a build before sent it */
    ck_assert_int_eq(ev.b, 2);
    ck_assert_int_eq(notify_parse("rename * node-a 7 0 Ivo_2-b", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_RENAME);
    ck_assert_int_eq(ev.a, 7);
    ck_assert_str_eq(ev.name, "Ivo_2-b");
    ck_assert_int_eq(ev.text_len, 0);
}
END_TEST

/* A rename's new name comes back as it went, and only it. */
START_TEST(renames_round_trip)
{
    notify_event_t ev = {.kind = NOTIFY_RENAME, .to = "*", .from = "node-a", .a = 12, .b = 0};
    memset(ev.name, 'x', 31);
    char line[DB_NOTIFY_PAYLOAD_MAX];
    ck_assert_int_gt(notify_format(&ev, line, sizeof line), 0);
    ck_assert_str_eq(line, "rename * node-a 12 0 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    notify_event_t back;
    ck_assert_int_eq(notify_parse(line, &back), 0);
    ck_assert_str_eq(back.name, ev.name);
    ck_assert_int_eq(back.text_len, 0);
    ck_assert_int_eq(notify_format(&ev, line, 25), -1); /* too small: refused, not cut */
}
END_TEST

START_TEST(chat_lines_read_whole)
{
    notify_event_t ev;
    ck_assert_int_eq(notify_parse("chat * node-b 12 3 wanda hi%20there%25%E2%9C%93!", &ev), 0);
    ck_assert_str_eq(ev.kind, "chat");
    ck_assert_int_eq(ev.a, 12);
    ck_assert_int_eq(ev.b, 3);
    ck_assert_str_eq(ev.name, "wanda");
    ck_assert_str_eq(ev.text, "hi there%\xe2\x9c\x93!");
    ck_assert_int_eq(ev.text_len, strlen("hi there%\xe2\x9c\x93!"));
}
END_TEST

/* The longest line, every byte needing its escape, fits a payload, and
 * comes back as it went. */
START_TEST(chat_lines_round_trip)
{
    notify_event_t ev = {.kind = NOTIFY_CHAT,
                         .to = "*",
                         .a = 9223372036854775807LL,
                         .b = -9223372036854775807LL,
                         .text_len = NOTIFY_TEXT_MAX};
    memset(ev.from, 'n', 63);
    memset(ev.name, 'x', 31);
    for (size_t i = 0; i < NOTIFY_TEXT_MAX; i++)
        ev.text[i] = (char)(0x80 + i % 0x80);
    char line[DB_NOTIFY_PAYLOAD_MAX];
    int n = notify_format(&ev, line, sizeof line);
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, DB_NOTIFY_PAYLOAD_MAX);
    notify_event_t back;
    ck_assert_int_eq(notify_parse(line, &back), 0);
    ck_assert_int_eq(back.text_len, NOTIFY_TEXT_MAX);
    ck_assert_mem_eq(back.text, ev.text, NOTIFY_TEXT_MAX);
    ck_assert_str_eq(back.name, ev.name);
    ck_assert_int_eq(back.b, ev.b);
    ck_assert_int_eq(notify_format(&ev, line, 100), -1); /* too small: refused, not cut */
}
END_TEST

START_TEST(anything_else_refused)
{
    static const char *const bad[] = {
        "",
        "take",
        "take b a 1",                      /* a field short */
        "take b a 1 2 3",                  /* one too many */
        "take b a 1 2 ",                   /* a trailing space */
        "take  b a 1 2",                   /* two spaces */
        "steal b a 1 2",                   /* no such kind */
        "take b * 1 2",                    /* from every node */
        "take b/c a 1 2",                  /* not a node's name */
        "take b a +1 2",                   /* numbers as written by notify_send only */
        "take b a 1 \t2",                  /* strtoll would skip the tab */
        "take b a 1x 2",                   /* a number and more */
        "take b a 1 99999999999999999999", /* out of range */
        "take b a - 2",
        "take b a 01 2", /* a number notify_send would not write */
        "take b a -0 2",
        "take b a 1 2\n",
        "take b a 1 2 bob hi",       /* words for a kind without them */
        "chat * a 1 2",              /* a chat line with no words */
        "chat * a 1 2 bob",          /* no text */
        "chat * a 1 2 bob ",         /* an empty text */
        "chat * a 1 2 b/b hi",       /* not an account's name */
        "chat * a 1 2 bob hi there", /* a space not written %20 */
        "chat * a 1 2 bob %41",      /* a letter written escaped */
        "chat * a 1 2 bob %e2",      /* lower-case hex */
        "chat * a 1 2 bob %0A",      /* a control character */
        "chat * a 1 2 bob %7F",
        "chat * a 1 2 bob 100%", /* a lone '%' */
        "chat * a 1 2 bob %4",
        "lock * a 1 0 bob",                                /* words for a lock */
        "delete * a 1 0 bob",                              /* or a delete */
        "rename * a 1 0",                                  /* a rename with no name */
        "rename * a 1 0 ",                                 /* an empty name */
        "rename * a 1 0 bob ",                             /* a trailing space */
        "rename * a 1 0 bob hi",                           /* words after the name */
        "rename * a 1 0 b/b",                              /* not an account's name */
        "rename * a 1 0 b%41b",                            /* nor escaped */
        "rename * a 1 0 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", /* 32 bytes: too long */
        "rename * a 1 0 bob\n",
        "Lock * a 1 0", /* kinds as written, case and all */
    };
    notify_event_t ev;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(notify_parse(bad[i], &ev) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

#define KEY "00000000deadbeef000000000000002a"

/* The event log's numbers before the event (db_listen.h): taken only as
 * two positive numbers written plainly, each followed by one space; then
 * the event's key when it has one (32 lower-case hex digits and a
 * space), else the event itself (a build before keys). */
START_TEST(logged_numbers_split_off)
{
    const char *rest;
    int64_t id, xid;
    char key[DB_EVENT_KEY_LEN + 1] = "x";
    ck_assert_int_eq(notify_split("41 7731 kick * a 12 0", &id, &xid, key, &rest), 0);
    ck_assert_int_eq(id, 41);
    ck_assert_int_eq(xid, 7731);
    ck_assert_str_eq(key, "");
    ck_assert_str_eq(rest, "kick * a 12 0");
    notify_event_t ev;
    ck_assert_int_eq(notify_parse(rest, &ev), 0);
    ck_assert_int_eq(notify_parse("chatoff * a 5 1", &ev), 0);
    ck_assert_str_eq(ev.kind, NOTIFY_CHAT_OFF);
    ck_assert_int_eq(notify_split("41 7731 " KEY " kick * a 12 0", &id, &xid, key, &rest), 0);
    ck_assert_str_eq(key, KEY);
    ck_assert_str_eq(rest, "kick * a 12 0");
    /* not a key: another length, upper case, nothing after it */
    ck_assert_int_eq(notify_split("41 7731 " KEY "0 kick * a 12 0", &id, &xid, key, &rest), 0);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(
        notify_split("41 7731 00000000DEADBEEF000000000000002a kick", &id, &xid, key, &rest), 0);
    ck_assert_str_eq(key, "");
    ck_assert_int_eq(notify_split("41 7731 " KEY " ", &id, &xid, key, &rest), -1);
    static const char *const bad[] = {
        "kick * a 12 0",
        "41 kick",
        "41 7731",
        "41 7731 ",
        "0 1 kick * a 1 0",
        "1 -1 kick * a 1 0",
        "01 1 kick * a 1 0",
        "1  2 kick * a 1 0",
        "+1 2 kick * a 1 0",
        "",
        "1 99999999999999999999 k",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(notify_split(bad[i], &id, &xid, key, &rest) == -1, "accepted \"%s\"", bad[i]);
}
END_TEST

/* ---- each event applied once ---- */

typedef struct {
    int64_t applied[64];
    size_t n;
} applied_t;

static void on_apply(void *ud, const db_node_event_t *row)
{
    applied_t *a = ud;
    if (a->n < 64)
        a->applied[a->n] = row->id;
    a->n++;
}

/* Event id's row as the database numbered it in its era: its
 * transaction's number and payload (a restored database numbers other
 * events with the same ids: another era). */
static db_node_event_t event(int64_t id, int era, int64_t next)
{
    db_node_event_t e = {.id = id, .xid = 1000 * era + id / 3, .next = next};
    snprintf(e.payload, sizeof e.payload, "kick * node-%c %lld 0", 'a' + era, (long long)id);
    return e;
}

/* A read that returns event id of era alone, the cursor where it was (a
 * read soon after another, asked by a notification): whether it was
 * applied. */
static int alone_in(notify_once_t *o, int64_t id, int era)
{
    db_node_event_t e = event(id, era, o->cursor);
    applied_t a = {0};
    return (int)notify_once_read(o, &e, 1, on_apply, &a);
}

static int alone(notify_once_t *o, int64_t id)
{
    return alone_in(o, id, 0);
}

/* A read of the log returning events ids[0..n) of era (0 ids: none),
 * each committed before the read (below its next cursor, next): how many
 * it applied. */
static size_t read_era(notify_once_t *o, const int64_t *ids, size_t n, int64_t next, int era,
                       applied_t *a)
{
    db_node_event_t *rows = calloc(n ? n : 1, sizeof *rows);
    for (size_t i = 0; i < n; i++)
        rows[i] = event(ids[i], era, next);
    if (!n)
        rows[0].next = next;
    size_t got = notify_once_read(o, rows, n ? n : 1, on_apply, a);
    free(rows);
    return got;
}

static size_t read_log(notify_once_t *o, const int64_t *ids, size_t n, int64_t next, applied_t *a)
{
    return read_era(o, ids, n, next, 0, a);
}

/* Reads that bring nothing new, each moving the cursor on, between the
 * events ids from and below to (each read alone once):
 * what a node does for a while between an event's two arrivals. */
static void meanwhile(notify_once_t *o, int reads, int64_t from, int64_t to)
{
    applied_t a = {0};
    for (int i = 0; i < reads; i++)
        ck_assert_int_eq(read_log(o, NULL, 0, o->cursor + 1, &a), 0);
    for (int64_t id = from; id < to; id++)
        ck_assert_int_eq(alone(o, id), 1);
}

/* An event read from the log and read alone again later, many reads and
 * thousands of other events apart (the read asked by a notification
 * kept by a stalled loop), is applied once; so is one read alone first and read
 * (again and again, a transaction keeping the cursor back) later. */
START_TEST(an_event_is_applied_once_in_either_order_however_far_apart)
{
    static notify_once_t o; /* zeroed: nothing applied, no read yet */
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, (int64_t[]){5}, 1, 100, &a), 0); /* the first read: a cursor */
    ck_assert_int_eq(o.cursor, 100);
    /* a read of the log first, one asked by its notification later */
    ck_assert_int_eq(read_log(&o, (int64_t[]){10}, 1, 101, &a), 1);
    ck_assert_int_eq(a.applied[0], 10);
    meanwhile(&o, 60, 11, 11 + DB_EVENTS_KEEP_ROWS - 1); /* two minutes of reads, 4,095 events */
    ck_assert_int_eq(alone(&o, 10), 0);
    /* alone first, then in the log's reads, twice */
    int64_t late = 11 + DB_EVENTS_KEEP_ROWS;
    ck_assert_int_eq(alone(&o, late), 1);
    meanwhile(&o, 60, late + 1, late + DB_EVENTS_KEEP_ROWS);
    a.n = 0;
    ck_assert_int_eq(read_log(&o, (int64_t[]){late}, 1, o.cursor, &a), 0);
    ck_assert_int_eq(read_log(&o, (int64_t[]){late, late + 1}, 2, o.cursor + 1, &a), 0);
    ck_assert_int_eq(a.n, 0);
}
END_TEST

/* Ids come out of order (numbered at insert, heard at commit): an older
 * id not yet applied is applied once, whichever way it comes; one read
 * twice in a read is applied once; the first read applies nothing. */
START_TEST(ids_out_of_order)
{
    static notify_once_t o;
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, (int64_t[]){3, 4}, 2, 50, &a), 0);
    ck_assert_int_eq(alone(&o, 20), 1);
    ck_assert_int_eq(alone(&o, 15), 1); /* below the newest, never applied */
    ck_assert_int_eq(alone(&o, 15), 0);
    ck_assert_int_eq(read_log(&o, (int64_t[]){14, 15, 16, 20}, 4, 51, &a), 2);
    ck_assert_int_eq(a.applied[0], 14);
    ck_assert_int_eq(a.applied[1], 16);
    ck_assert_int_eq(alone(&o, 14), 0);
    ck_assert_int_eq(alone(&o, 16 + NOTIFY_ONCE_SPAN - 1), 1);
    ck_assert_int_eq(alone(&o, 17), 1); /* within the span, never applied */
    ck_assert_int_eq(alone(&o, 17), 0);
}
END_TEST

/* The database's numbering went back far (a restore of an old backup):
 * the first id far below the newest starts the memory again; its events
 * are applied once, and not again when read alone after. */
START_TEST(a_numbering_gone_back_far_starts_again)
{
    static notify_once_t o;
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, NULL, 0, 10, &a), 0);
    ck_assert_int_eq(alone(&o, 100000), 1);
    ck_assert_int_eq(read_log(&o, (int64_t[]){7, 8}, 2, 11, &a), 2);
    ck_assert_int_eq(read_log(&o, (int64_t[]){7, 8}, 2, 11, &a), 0);
    ck_assert_int_eq(alone(&o, 8), 0);
    ck_assert_int_eq(alone(&o, 9), 1);
    /* alone first, this time */
    ck_assert_int_eq(alone(&o, 9 + NOTIFY_ONCE_SPAN), 1);
    ck_assert_int_eq(alone_in(&o, 9, 1), 1);
    ck_assert_int_eq(alone_in(&o, 10, 1), 1);
    ck_assert_int_eq(read_era(&o, (int64_t[]){9, 10, 11}, 3, 12, 1, &a), 1); /* 11: new */
    ck_assert_int_eq(alone_in(&o, 9, 1), 0);
}
END_TEST

/* Back a little (a restore of a recent backup, the log emptied and its
 * numbering started again): the ids this node applied come again as
 * other events, each applied once however it comes, and the events of
 * before are still known (one read alone late is not applied). */
START_TEST(ids_again_as_other_events_are_new_ones)
{
    static notify_once_t o;
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, NULL, 0, 10, &a), 0);
    for (int64_t id = 1; id <= 6; id++)
        ck_assert_int_eq(alone(&o, id), 1);
    ck_assert_int_eq(read_log(&o, (int64_t[]){1, 2, 3}, 3, 11, &a), 0);
    ck_assert_int_eq(alone_in(&o, 1, 1), 1); /* the log's numbering started again */
    ck_assert_int_eq(alone_in(&o, 1, 1), 0);
    ck_assert_int_eq(read_era(&o, (int64_t[]){1, 2}, 2, 12, 1, &a), 1);
    ck_assert_int_eq(a.applied[0], 2);
    ck_assert_int_eq(alone_in(&o, 2, 1), 0);
    ck_assert_int_eq(alone(&o, 6), 0);
    ck_assert_int_eq(alone_in(&o, 7, 1), 1); /* past the newest of before: as ever */
    ck_assert_int_eq(alone_in(&o, 7, 1), 0);
}
END_TEST

/* A keyed event (notify.h) is known by its key under its id: one read
 * and read again is applied once; after a restore that gave its id again, an
 * event with the same transaction's number and payload but another key
 * is a new one (numbers and payloads alone could not tell the two). */
START_TEST(a_keyed_event_is_known_by_its_key)
{
    static notify_once_t o;
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, NULL, 0, 10, &a), 0);
    db_node_event_t e = {.id = 5,
                         .xid = 77,
                         .next = 11,
                         .payload = "kick * node-a 3 0",
                         .key = "0000000000000001000000000000000a"};
    ck_assert_int_eq(notify_once_read(&o, &e, 1, on_apply, &a), 1);
    ck_assert_int_eq(notify_once_read(&o, &e, 1, on_apply, &a), 0);
    snprintf(e.key, sizeof e.key, "%s", "0000000000000002000000000000000a");
    ck_assert_int_eq(notify_once_read(&o, &e, 1, on_apply, &a), 1);
    ck_assert_int_eq(notify_once_read(&o, &e, 1, on_apply, &a), 0);
    ck_assert_uint_ne(notify_once_key(77, e.key, e.payload), notify_once_key(77, "", e.payload));
}
END_TEST

/* The transactions' numbers went back (a restore): the cursor follows the
 * read, so the events after are read. */
START_TEST(a_cursor_gone_back_follows)
{
    static notify_once_t o;
    applied_t a = {0};
    ck_assert_int_eq(read_log(&o, NULL, 0, 5000, &a), 0);
    ck_assert_int_eq(read_log(&o, NULL, 0, 900, &a), 0);
    ck_assert_int_eq(o.cursor, 900);
    ck_assert_int_eq(read_log(&o, (int64_t[]){40}, 1, 901, &a), 1);
}
END_TEST

Suite *suite_server_notify(void)
{
    Suite *s = suite_create("server_notify");
    TCase *t = tcase_create("notify");
    tcase_add_test(t, events_read_whole);
    tcase_add_test(t, anything_else_refused);
    tcase_add_test(t, chat_lines_read_whole);
    tcase_add_test(t, chat_lines_round_trip);
    tcase_add_test(t, renames_round_trip);
    tcase_add_test(t, logged_numbers_split_off);
    tcase_add_test(t, an_event_is_applied_once_in_either_order_however_far_apart);
    tcase_add_test(t, ids_out_of_order);
    tcase_add_test(t, a_numbering_gone_back_far_starts_again);
    tcase_add_test(t, ids_again_as_other_events_are_new_ones);
    tcase_add_test(t, a_cursor_gone_back_follows);
    tcase_add_test(t, a_keyed_event_is_known_by_its_key);
    suite_add_tcase(s, t);
    return s;
}
