/* Fuzz target: command lines and the admin's arguments. The input, cut
 * at NUL bytes, is warrend's argv (config_from_args; a --config names
 * /dev/null, so no file of the fuzzer's choosing is read) and each word
 * goes to the readers of single arguments: a size (config_parse_size), the
 * `warren` client's target (client-term/target.c) and the control socket's
 * ban and mute arguments (moderation_parse_net, moderation_parse_duration).
 * Whatever the words: each reader gives its value or an error (with a
 * message where it has one), and what it gives is in range: a target's
 * fields are NUL-terminated text, a net is canonical (read again, it is
 * itself), a duration positive, a size not negative. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "client-term/target.h"
#include "config.h"
#include "moderation.h"

#define ARGS_MAX 32

static void check_target(const char *word)
{
    target_t t;
    char err[160] = "";
    if (target_parse(&t, word, err, sizeof err)) {
        if (!err[0])
            abort();
        return;
    }
    if (!memchr(t.path, 0, sizeof t.path) || !memchr(t.host, 0, sizeof t.host) ||
        !memchr(t.port, 0, sizeof t.port) || (t.is_unix ? !t.path[0] : !t.host[0] || !t.port[0]))
        abort();
    char shown[512];
    target_describe(&t, shown, sizeof shown);
}

static void check_word(const char *word)
{
    int64_t v;
    if (config_parse_size(word, &v) == 0 && v < 0)
        abort();
    if (moderation_parse_duration(word, &v) == 0 && v <= 0)
        abort();
    char net[MOD_NET_MAX], again[MOD_NET_MAX];
    if (moderation_parse_net(word, net) == 0 &&
        (!memchr(net, 0, sizeof net) || moderation_parse_net(net, again) || strcmp(net, again)))
        abort();
    check_target(word);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char *argv[ARGS_MAX + 2] = {"warrend"};
    int argc = 1;
    for (char *at = text; at <= text + size && argc <= ARGS_MAX; at += strlen(at) + 1) {
        check_word(at);
        argv[argc++] = strncmp(at, "--config", 8) == 0 ? "--config=/dev/null" : at;
    }
    argv[argc] = NULL;
    config_t c;
    config_defaults(&c);
    char err[256] = "";
    if (config_from_args(&c, argc, argv, err, sizeof err) && !err[0])
        abort();
    config_free(&c);
    free(text);
    return 0;
}
