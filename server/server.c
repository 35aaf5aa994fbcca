/* server — a loop's context: its lists and buffers (server.h). */
#include "server.h"

void server_init(server_t *s, uv_loop_t *loop)
{
    s->loop = loop;
    list_init(&s->conns);
    list_init(&s->sessions);
    list_init(&s->menu_conns);
    list_init(&s->watch_notices);
    list_init(&s->chat_strips);
    list_init(&s->sess_timed);
    list_init(&s->by_recency);
    list_init(&s->watched);
    list_init(&s->snaps_due);
    buf_init(&s->scratch);
    for (int i = 0; i < ANSI_PROFILE_IDS; i++)
        buf_init(&s->enc[i]);
    buf_init(&s->enc_json);
}

void server_bufs_free(server_t *s)
{
    buf_free(&s->scratch);
    for (int i = 0; i < ANSI_PROFILE_IDS; i++)
        buf_free(&s->enc[i]);
    buf_free(&s->enc_json);
}
