/* Fuzz target: what a telnet client sends warrend, past libtelnet. The
 * bytes go through libtelnet with the daemon's option table (INPUT_TELOPTS),
 * as server/telnet/telnet.c does; the values it hands over go to the daemon's readers
 * (input_naws, input_term_name, input_remote_addr, ansi_profile_for_term),
 * data bytes to the key decoder, and the keys to the line editor (lineedit.h:
 * the prompts' and the rc editor's, with a cursor), UTF-8 kept whole,
 * and the name and password checks, as on the Name: and Password: prompts.
 * Every value that comes out must be one the daemon can use. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "accounts.h"
#include "ansi.h"
#include "input.h"
#include "lineedit.h"
#include "keys.h"
#include "screen.h"

#define NAME_ROOM (ACCOUNTS_NAME_MAX + 1) /* odd: the prompt's editor */

typedef struct {
    telnet_t *tn;
    keydec_t kd;
    char line[ACCOUNTS_PASSWORD_BYTES + 1];
    size_t len, max, at;
    char term[40], ip[64];
} state_t;

static void on_key(void *ud, key_event_t k)
{
    state_t *s = ud;
    /* the prompts' editor (the cursor at the end), or the rc editor's with
     * a cursor: the name prompt has an odd max, a password's an even one */
    line_action_t a = s->max & 1 ? lineedit_key(s->line, &s->len, s->max, k)
                                 : lineedit_key_at(s->line, &s->len, &s->at, s->max, k);
    if (s->len > s->max || strlen(s->line) != s->len || s->at > s->len)
        abort();
    if (s->at < s->len && ((unsigned char)s->line[s->at] & 0xC0) == 0x80)
        abort(); /* the cursor is always at a character's start */
    for (size_t i = 0; i < s->len;) {
        size_t used;
        uint32_t cp = utf8_decode((const uint8_t *)s->line + i, s->len - i, &used);
        if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || (cp == 0xFFFD && used != 3))
            abort(); /* only printable characters, whole, reach a line */
        i += used;
    }
    if (a == LINE_ENTER) {
        char msg[160];
        if (accounts_check_name(s->line, msg, sizeof msg) == 0 &&
            strspn(s->line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                s->len)
            abort();
        (void)accounts_check_password(s->line, s->len, msg, sizeof msg);
        /* the next prompt: Name: and Password: take turns, each starts empty */
        s->max = s->max == NAME_ROOM ? ACCOUNTS_PASSWORD_BYTES : NAME_ROOM;
    }
    if (a == LINE_ENTER || a == LINE_CANCEL) {
        s->len = s->at = 0;
        s->line[0] = 0;
    }
}

static void on_environ(state_t *s, const telnet_event_t *ev)
{
    for (size_t i = 0; i < ev->environ.size; i++) {
        const struct telnet_environ_t *v = &ev->environ.values[i];
        if (!v->value || input_remote_addr(v->value, s->ip, sizeof s->ip))
            continue;
        size_t n = strlen(s->ip);
        if (n == 0 || n >= sizeof s->ip || strspn(s->ip, "0123456789abcdefABCDEF.:") != n)
            abort();
    }
}

static void on_telnet(telnet_t *tn, telnet_event_t *ev, void *ud)
{
    state_t *s = ud;
    (void)tn;
    int w, h;
    ansi_profile_t prof;
    switch (ev->type) {
    case TELNET_EV_DATA:
        keydec_feed(&s->kd, (const uint8_t *)ev->data.buffer, ev->data.size, on_key, s);
        break;
    case TELNET_EV_SUBNEGOTIATION:
        if (ev->sub.telopt == TELNET_TELOPT_NAWS &&
            input_naws((const unsigned char *)ev->sub.buffer, ev->sub.size, &w, &h) == 0 &&
            (w < 0 || w > 65535 || h < 0 || h > 65535))
            abort();
        break;
    case TELNET_EV_TTYPE:
        if (ev->ttype.cmd != TELNET_TTYPE_IS)
            break;
        input_term_name(ev->ttype.name, s->term, sizeof s->term);
        for (const char *p = s->term; *p; p++)
            if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
                abort();
        ansi_profile_for_term(&prof, s->term);
        if (ansi_profile_id(&prof) < 0 || ansi_profile_id(&prof) >= ANSI_PROFILE_IDS)
            abort();
        break;
    case TELNET_EV_ENVIRON: on_environ(s, ev); break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    state_t s;
    memset(&s, 0, sizeof s);
    s.max = NAME_ROOM;
    keydec_init(&s.kd);
    s.tn = telnet_init(INPUT_TELOPTS, on_telnet, 0, &s);
    if (!s.tn)
        return 0;
    /* the daemon's opening offers, so answers to them take effect */
    telnet_negotiate(s.tn, TELNET_DO, TELNET_TELOPT_NAWS);
    telnet_negotiate(s.tn, TELNET_DO, TELNET_TELOPT_TTYPE);
    telnet_negotiate(s.tn, TELNET_DO, TELNET_TELOPT_NEW_ENVIRON);
    /* in reads of up to 64 bytes, as a socket would cut them */
    for (size_t at = 0; at < size; at += 64)
        telnet_recv(s.tn, (const char *)data + at, size - at < 64 ? size - at : 64);
    keydec_timeout(&s.kd, on_key, &s);
    telnet_free(s.tn);
    return 0;
}
