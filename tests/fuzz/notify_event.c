/* Fuzz target: an event between nodes as another node's NOTIFY payload
 * brings it (notify.h): notify_parse accepts only "KIND TO FROM A B" with
 * a known kind and good node names, and what it accepts is text that fits
 * its fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "notify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char payload[256];
    size_t n = size < sizeof payload - 1 ? size : sizeof payload - 1;
    memcpy(payload, data, n);
    payload[n] = 0;
    notify_event_t ev;
    if (notify_parse(payload, &ev) != 0)
        return 0;
    if (strlen(ev.kind) >= sizeof ev.kind || !config_node_ok(ev.from) ||
        (strcmp(ev.to, "*") != 0 && !config_node_ok(ev.to)))
        abort();
    if (strchr(payload, '\n') || strstr(payload, "  "))
        abort(); /* one line, single spaces */
    return 0;
}
