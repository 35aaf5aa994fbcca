/* server — a loop's context: its lists and buffers (server.h). */
#include "server.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "logcap.h"
#include "conn.h"
#include "drain.h"
#include "notify.h"
#include "outhold.h"
#include "peer.h"
#include "readturn.h"
#include "session.h"

uint64_t now_ms(const server_t *s)
{
    return uv_now(s->loop);
}

int server_init(server_t *s, uv_loop_t *loop)
{
    s->loop = loop;
    s->hooks = &hooks_none;
    list_init(&s->conns);
    list_init(&s->sessions);
    byname_init(&s->sess_by_player);
    list_init(&s->hostcopies.games);
    list_init(&s->hostcopies.waiting);
    list_init(&s->loads);
    list_init(&s->menu_conns);
    list_init(&s->watch_notices);
    list_init(&s->chat_strips);
    list_init(&s->keynotes);
    list_init(&s->sess_timed);
    list_init(&s->by_recency);
    list_init(&s->recency_late);
    list_init(&s->watched);
    list_init(&s->snaps_due);
    int keyed = hmap_secret_init(&s->name_secret);
    buf_init(&s->scratch);
    for (int i = 0; i < ANSI_PROFILE_IDS; i++)
        buf_init(&s->enc[i]);
    buf_init(&s->enc_json);
    return keyed;
}

void server_bufs_free(server_t *s)
{
    buf_free(&s->scratch);
    screen_free(s->frame_grid);
    s->frame_grid = NULL;
    for (int i = 0; i < ANSI_PROFILE_IDS; i++)
        buf_free(&s->enc[i]);
    buf_free(&s->enc_json);
    free(s->changes);
    s->changes = NULL;
    outhold_free(s);
    readturn_free(s);
}

void conn_bye(conn_t *c)
{
    const drain_t *d = drain_of(c->srv); /* a drain's goodbye says to reconnect */
    char bye[DRAIN_MESSAGE_MAX + 32];
    snprintf(bye, sizeof bye, "\r\n\033[m\033[2J\033[H%s\n",
             d ? d->message : "The server is shutting down. Your game is saved.");
    conn_write(c, bye, strlen(bye));
    conn_close(c, "shutdown");
}

void server_close_conns(server_t *s)
{
    LIST_EACH (it, &s->conns) {
        conn_t *c = LIST_ITEM(it, conn_t, node);
        if (!c->closing)
            conn_bye(c);
    }
}

void server_tick(server_t *s)
{
    s->ticks++;
    HOOKS_CALL(s->hooks->tick, s);
    if (s->peer)
        peer_tick(s); /* other nodes' games for the lists */
    notify_retry(s);  /* events the database refused, written again */
    session_tick(s);
    if (s->shard == 0)
        logcap_flush(s->strangers, now_ms(s)); /* counts held back, said */
}
