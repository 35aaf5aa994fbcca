/* Fuzz target: an event between nodes as another node's NOTIFY payload
 * brings it (notify.h): "ID XID " first when notify_split takes them (the
 * event log's numbers, written as read), and "KEY " after them when it
 * is one (32 lower-case hex digits, copied as written), then notify_parse accepts only
 * "KIND TO FROM A B" with a known kind and good node names, plus " NAME" for a rename and
 * " NAME TEXT" for a chat line, NAME an account's name; what it accepts is text that fits its
 * fields, and notify_format writes
 * it back byte for byte. A payload as the log shows it (notify_shown) is one line of printable
 * text of bounded length, whatever its bytes. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "db_listen.h"
#include "notify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char payload[DB_NOTIFY_PAYLOAD_MAX + 64];
    size_t n = size < sizeof payload - 1 ? size : sizeof payload - 1;
    memcpy(payload, data, n);
    payload[n] = 0;
    char shown[NOTIFY_SHOWN_SIZE];
    size_t shown_len = strlen(notify_shown(payload, shown));
    if (shown_len >= sizeof shown ||
        (strlen(payload) <= NOTIFY_SHOWN_MAX && strlen(payload) > shown_len))
        abort(); /* it fits, and it shows every byte of a short payload */
    for (size_t i = 0; i < shown_len; i++)
        if (shown[i] < 0x20 || shown[i] > 0x7e)
            abort(); /* one line of printable text, whatever the payload */
    notify_event_t ev;
    const char *rest = payload;
    int64_t id, xid;
    char key[DB_EVENT_KEY_LEN + 1];
    if (notify_split(payload, &id, &xid, key, &rest) == 0) {
        char head[96];
        int n = snprintf(head, sizeof head, "%lld %lld %s%s", (long long)id, (long long)xid, key,
                         *key ? " " : "");
        if (id <= 0 || xid <= 0 || n < 0 || strncmp(head, payload, (size_t)n) != 0 ||
            rest != payload + n || !*rest)
            abort(); /* the numbers and key as written, and the payload right after them */
        if (*key && (strlen(key) != DB_EVENT_KEY_LEN ||
                     strspn(key, "0123456789abcdef") != DB_EVENT_KEY_LEN))
            abort();
    }
    if (notify_parse(rest, &ev) != 0)
        return 0;
    if (strlen(ev.kind) >= sizeof ev.kind || !config_node_ok(ev.from) ||
        (strcmp(ev.to, "*") != 0 && !config_node_ok(ev.to)))
        abort();
    if (strchr(rest, '\n') || strstr(rest, "  "))
        abort(); /* one line, single spaces */
    if (ev.text_len > NOTIFY_TEXT_MAX || strlen(ev.name) >= sizeof ev.name)
        abort();
    for (const char *c = ev.name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            abort(); /* an account's name: letters, digits, '_' and '-' */
    if ((ev.text_len > 0) != (strcmp(ev.kind, NOTIFY_CHAT) == 0) ||
        (ev.name[0] != '\0') !=
            (strcmp(ev.kind, NOTIFY_CHAT) == 0 || strcmp(ev.kind, NOTIFY_RENAME) == 0))
        abort(); /* words only where the kind carries them, and always there */
    for (size_t i = 0; i < ev.text_len; i++)
        if ((unsigned char)ev.text[i] < 0x20 || ev.text[i] == 0x7f)
            abort(); /* a chat line never carries control characters */
    char again[sizeof payload];
    if (notify_format(&ev, again, sizeof again) < 0 || strcmp(again, rest) != 0)
        abort(); /* one way to write each event */
    return 0;
}
