/* Unit tests: server/core/outhold — a round's writes held and written at
 * its end, in the order written, one write a conn's bytes that came one
 * after another; capped, so a round of many conns writes as it goes past
 * the cap; a conn closed meanwhile gets nothing and is not freed before. */
#include <check.h>
#include <string.h>
#include <uv.h>
#include "buf.h"
#include "conn.h"
#include "outhold.h"
#include "server.h"

/* A transport for the test: every send_held a line of the shared log,
 * "conn:bytes". */
typedef struct {
    conn_t c;
    char name;
    int released;
} hconn_t;

static buf_t sent;

static void hc_send_held(conn_t *c, const void *data, size_t len)
{
    buf_printf(&sent, "%c:%.*s\n", ((hconn_t *)c)->name, (int)len, (const char *)data);
}

static void hc_release(conn_t *c)
{
    ((hconn_t *)c)->released++;
}

static const conn_ops_t HC_OPS = {.send_held = hc_send_held, .release = hc_release};

/* What the transport does with a write: held in a round, else sent now. */
static void hc_write(hconn_t *h, const char *text)
{
    if (!outhold_add(&h->c, text, strlen(text)))
        hc_send_held(&h->c, text, strlen(text));
}

typedef struct {
    uv_loop_t loop;
    server_t srv;
    hconn_t c[OUTHOLD_CONNS + 2];
} fx_t;

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    ck_assert_int_eq(server_init(&f->srv, &f->loop), 0);
    for (int i = 0; i < OUTHOLD_CONNS + 2; i++)
        f->c[i] = (hconn_t){.c = {.srv = &f->srv, .ops = &HC_OPS}, .name = (char)('A' + i)};
    buf_init(&sent);
}

static void fx_fini(fx_t *f)
{
    for (int i = 0; i < OUTHOLD_CONNS + 2; i++)
        ck_assert_int_eq(f->c[i].c.refs, 0);
    server_bufs_free(&f->srv);
    ck_assert_ptr_null(f->srv.hold);
    buf_free(&sent);
    ck_assert_int_eq(uv_loop_close(&f->loop), 0);
}

static const char *sent_text(void)
{
    buf_putc(&sent, '\0');
    sent.len--;
    return sent.data ? sent.data : "";
}

START_TEST(a_rounds_writes_go_at_its_end_in_order)
{
    fx_t f;
    fx_init(&f);
    hconn_t *a = &f.c[0], *b = &f.c[1];
    hc_write(a, "before"); /* no round: now */
    ck_assert_str_eq(sent_text(), "A:before\n");
    buf_reset(&sent);
    outhold_begin(&f.srv);
    hc_write(a, "one");
    hc_write(b, "two");
    hc_write(a, "three");
    hc_write(a, "four");
    outhold_begin(&f.srv); /* nested: its end writes nothing */
    hc_write(b, "five");
    outhold_end(&f.srv);
    ck_assert_str_eq(sent_text(), "");
    ck_assert_int_eq(a->c.refs, 2); /* a ref a run */
    outhold_end(&f.srv);
    /* a's last two came one after another: one write */
    ck_assert_str_eq(sent_text(), "A:one\nB:two\nA:threefour\nB:five\n");
    buf_reset(&sent);
    hc_write(b, "after");
    outhold_end(&f.srv); /* an end without a round: nothing */
    ck_assert_str_eq(sent_text(), "B:after\n");
    fx_fini(&f);
}
END_TEST

START_TEST(past_the_cap_what_is_held_goes_first)
{
    fx_t f;
    fx_init(&f);
    outhold_begin(&f.srv);
    for (int i = 0; i < OUTHOLD_CONNS; i++)
        hc_write(&f.c[i], "x");
    ck_assert_str_eq(sent_text(), "");
    hc_write(&f.c[OUTHOLD_CONNS], "y"); /* one conn too many: the others go */
    ck_assert_uint_eq(sent.len, (size_t)OUTHOLD_CONNS * 4);
    ck_assert_int_eq(strncmp(sent_text(), "A:x\nB:x\n", 8), 0);
    ck_assert_int_eq(sent_text()[sent.len - 4], 'A' + OUTHOLD_CONNS - 1);
    buf_reset(&sent);
    hc_write(&f.c[OUTHOLD_CONNS + 1], "z");
    ck_assert_str_eq(sent_text(), "");
    /* more bytes than the cap in one write: what is held, then it, now */
    static char big[OUTHOLD_BYTES + 2];
    memset(big, 'q', sizeof big - 1);
    hc_write(&f.c[0], big);
    ck_assert_uint_eq(sent.len, 8 + 2 + sizeof big);
    char head[16];
    snprintf(head, sizeof head, "%c:y\n%c:z\nA:qq", 'A' + OUTHOLD_CONNS, 'A' + OUTHOLD_CONNS + 1);
    ck_assert_int_eq(strncmp(sent_text(), head, strlen(head)), 0);
    outhold_end(&f.srv);
    fx_fini(&f);
}
END_TEST

START_TEST(a_conn_closed_in_the_round_gets_nothing)
{
    fx_t f;
    fx_init(&f);
    hconn_t *a = &f.c[0], *b = &f.c[1];
    outhold_begin(&f.srv);
    hc_write(a, "frame");
    hc_write(b, "frame");
    a->c.closing = true; /* its gateway closed it: freed once no one holds it */
    ck_assert_int_eq(a->released, 0);
    outhold_end(&f.srv);
    ck_assert_str_eq(sent_text(), "B:frame\n");
    ck_assert_int_eq(a->released, 1); /* the round's ref was the last */
    ck_assert_int_eq(b->released, 0);
    fx_fini(&f);
}
END_TEST

/* A gateway closing a conn flushes first (outhold_flush): what the round
 * wrote to it (a goodbye) goes before the close, the rest with it, in
 * order; the round then holds again. */
START_TEST(a_flush_sends_what_is_held_and_the_round_goes_on)
{
    fx_t f;
    fx_init(&f);
    hconn_t *a = &f.c[0], *b = &f.c[1];
    outhold_begin(&f.srv);
    hc_write(b, "frame");
    hc_write(a, "Goodbye.");
    outhold_flush(&f.srv);
    a->c.closing = true;
    ck_assert_str_eq(sent_text(), "B:frame\nA:Goodbye.\n");
    buf_reset(&sent);
    hc_write(b, "next");
    ck_assert_str_eq(sent_text(), "");
    outhold_end(&f.srv);
    ck_assert_str_eq(sent_text(), "B:next\n");
    fx_fini(&f);
}
END_TEST

Suite *suite_server_outhold(void)
{
    Suite *s = suite_create("server_outhold");
    TCase *t = tcase_create("core");
    tcase_add_test(t, a_rounds_writes_go_at_its_end_in_order);
    tcase_add_test(t, past_the_cap_what_is_held_goes_first);
    tcase_add_test(t, a_conn_closed_in_the_round_gets_nothing);
    tcase_add_test(t, a_flush_sends_what_is_held_and_the_round_goes_on);
    suite_add_tcase(s, t);
    return s;
}
