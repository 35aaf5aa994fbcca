/* Fuzz target: the spawner's messages (server/hosted/spawnmsg.c). The
 * spawner is the privileged side reading what the less privileged warrend
 * sends, so whatever the bytes, a message parses or is refused with a
 * reason; one that parses has every field in its rules (ids, names and
 * directories of their characters and NUL-terminated, sizes and pids in
 * range, a text within the buffer without NUL, and without control bytes
 * where it goes to a log or a screen) and builds back to the very same
 * bytes. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hosted/spawnmsg.h"

static void check_name(const char *s, size_t room, const char *set)
{
    const char *end = memchr(s, 0, room);
    if (!end)
        abort();
    if (end != s && strspn(s, set) != (size_t)(end - s))
        abort();
}

#define ID_SET   "abcdefghijklmnopqrstuvwxyz0123456789_-"
#define NAME_SET ID_SET "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spawnmsg_t m;
    char err[160] = "";
    if (spawnmsg_parse(data, size, &m, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    if (m.type <= SPAWNMSG_NONE || m.type >= SPAWNMSG_TYPES)
        abort();
    check_name(m.game, sizeof m.game, ID_SET);
    check_name(m.name, sizeof m.name, NAME_SET);
    check_name(m.dir, sizeof m.dir, NAME_SET);
    if (m.text &&
        ((const uint8_t *)m.text < data || (const uint8_t *)m.text + m.len > data + size ||
         m.len > SPAWNMSG_TEXT_MAX || memchr(m.text, 0, m.len)))
        abort();
    /* texts that go to warrend's log or a player's screen: no control byte */
    bool printable = m.type == SPAWNMSG_FAILED || m.type == SPAWNMSG_STOPPED ||
                     m.type == SPAWNMSG_NOTE || m.type == SPAWNMSG_FILES;
    for (size_t i = 0; printable && i < m.len; i++)
        if ((unsigned char)m.text[i] < 0x20 || m.text[i] == 0x7F)
            abort();
    if (m.type == SPAWNMSG_SPAWN && (m.w < 2 || m.h < 1 || !m.game[0] || !m.dir[0]))
        abort();
    if ((m.type == SPAWNMSG_HANGUP || m.type == SPAWNMSG_KILL) && m.pid < 1)
        abort();
    uint8_t again[SPAWNMSG_MAX];
    size_t n = spawnmsg_build(&m, again, sizeof again);
    if (n != size || memcmp(again, data, size) != 0)
        abort();
    return 0;
}
