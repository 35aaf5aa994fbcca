/* Fuzz target: what the `warren` client reads from a server. The bytes go
 * through libtelnet with the client's option table (telopts_fill, as a
 * terminal in ssh mode, so every option is live), and the client's answers
 * are built as client.c builds them: NAWS on DO NAWS, TTYPE IS on SEND,
 * and NEW-ENVIRON IS with REMOTE_ADDR for a request telopts_environ_request
 * accepts. Terminal data is only counted: the client passes it through. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "client-term/telopts.h"

typedef struct {
    telnet_t *tn;
    size_t data, sent;
} state_t;

static void answer_environ(state_t *s, const telnet_event_t *ev)
{
    const unsigned char is = TELNET_ENVIRON_IS;
    int wanted = telopts_environ_request((const unsigned char *)ev->sub.buffer, ev->sub.size);
    if (wanted < -1 || wanted > 1)
        abort();
    if (wanted < 0)
        return;
    telnet_begin_sb(s->tn, TELNET_TELOPT_NEW_ENVIRON);
    telnet_send(s->tn, (const char *)&is, 1);
    if (wanted) {
        telnet_newenviron_value(s->tn, TELNET_ENVIRON_USERVAR, "REMOTE_ADDR");
        telnet_newenviron_value(s->tn, TELNET_ENVIRON_VALUE, "192.0.2.7");
    }
    telnet_finish_sb(s->tn);
}

static void on_telnet(telnet_t *tn, telnet_event_t *ev, void *ud)
{
    state_t *s = ud;
    static const unsigned char naws[4] = {0, 80, 0, 24};
    (void)tn;
    switch (ev->type) {
    case TELNET_EV_DATA: s->data += ev->data.size; break;
    case TELNET_EV_SEND: s->sent += ev->data.size; break;
    case TELNET_EV_DO:
        if (ev->neg.telopt == TELNET_TELOPT_NAWS)
            telnet_subnegotiation(s->tn, TELNET_TELOPT_NAWS, (const char *)naws, sizeof naws);
        break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd == TELNET_TTYPE_SEND)
            telnet_ttype_is(s->tn, "xterm-256color");
        break;
    case TELNET_EV_SUBNEGOTIATION:
        if (ev->sub.telopt == TELNET_TELOPT_NEW_ENVIRON)
            answer_environ(s, ev);
        break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    telnet_telopt_t opts[TELOPTS_N];
    state_t s = {0};
    telopts_fill(opts, 1, 1);
    if (opts[TELOPTS_N - 1].telopt != -1)
        abort();
    s.tn = telnet_init(opts, on_telnet, 0, &s);
    if (!s.tn)
        return 0;
    for (size_t at = 0; at < size; at += 512)
        telnet_recv(s.tn, (const char *)data + at, size - at < 512 ? size - at : 512);
    if (s.data > size)
        abort();
    telnet_free(s.tn);
    return 0;
}
