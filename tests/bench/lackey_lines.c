/* lackey_lines — the distinct 64-byte data lines each key of
 * `warren-engine play --frames` touches, from valgrind's
 * `lackey --trace-mem=yes` trace on stdin, for an engine built with
 * lackey_mark.py's marker reads (not committed in the engine).
 *
 *   cc -O2 -o /tmp/lackey_lines tests/bench/lackey_lines.c
 *   valgrind --tool=lackey --trace-mem=yes --log-fd=9 ENGINE play --seed 1 \
 *       --keys FILE --size 80x24 --frames 9>&1 >/dev/null 2>/dev/null |
 *       /tmp/lackey_lines MARKER [IPS]
 *
 * MARKER: lk_mark's address under valgrind, hex (nm's value plus the
 * executable's load address, 0x108000 for a PIE). A line a key: the
 * key's index, the turn's lines (marker 0 to 1), the render's (1 to 2),
 * the frame's (the render and its encode, 1 to 3: a line once), the
 * render's stack lines. IPS: each line the render touched first, as
 * "key instruction line" (for addr2line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 1 << 20 };

typedef struct {
    uint64_t k[SLOTS];
    int n;
} set_t;

static set_t sets[3];

static uint64_t *slot(set_t *s, uint64_t line)
{
    uint64_t h = (line * 0x9E3779B97F4A7C15ull) >> 44;
    for (;; h++) {
        h &= SLOTS - 1;
        if (!s->k[h] || s->k[h] == line)
            return &s->k[h];
    }
}

static int add(set_t *s, uint64_t line)
{
    uint64_t *k = slot(s, line);
    if (*k)
        return 0;
    *k = line;
    s->n++;
    return 1;
}

static void report(int key, int stack)
{
    if (key >= 0)
        printf("%d %d %d %d %d\n", key, sets[0].n, sets[1].n, sets[1].n + sets[2].n, stack);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lackey_lines MARKER [IPS] < trace\n");
        return 2;
    }
    uint64_t base = strtoull(argv[1], NULL, 16), ip = 0;
    FILE *ips = argc > 2 ? fopen(argv[2], "w") : NULL;
    char buf[256];
    int seg = -1, key = -1, stack = 0;
    while (fgets(buf, sizeof buf, stdin)) {
        char *p = buf + strspn(buf, " "), t = *p;
        if (t != 'I' && t != 'L' && t != 'S' && t != 'M')
            continue;
        p++;
        uint64_t a = strtoull(p + strspn(p, " "), &p, 16);
        int size = atoi(p + 1);
        if (t == 'I') {
            ip = a;
            continue;
        }
        if (a >= base && a < base + 256) { /* a marker: 0 a key's start, 1-3 its parts' */
            int m = (int)((a - base) / 64);
            if (m == 0) {
                report(key, stack);
                key++, stack = 0;
                for (int i = 0; i < 3; i++)
                    memset(&sets[i], 0, sizeof sets[i]);
            }
            seg = m < 3 ? m : -2;
            continue;
        }
        for (uint64_t l = a / 64; seg >= 0 && l <= (a + (uint64_t)size - 1) / 64; l++) {
            int fresh = seg == 2 ? !*slot(&sets[1], l) && add(&sets[2], l) : add(&sets[seg], l);
            if (fresh && seg == 1 && l * 64 >= 0x1ff0000000ull) /* valgrind's stacks */
                stack++;
            if (fresh && seg == 1 && ips)
                fprintf(ips, "%d %llx %llx\n", key, (unsigned long long)ip,
                        (unsigned long long)(l * 64));
        }
    }
    report(key, stack);
    if (ips)
        fclose(ips);
    return 0;
}
