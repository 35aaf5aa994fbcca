/* warren-engine bot — plays seeded games to their end with the bot policy
 * (bot.h), each in a child process so that a crash is counted, not fatal.
 * One line per game and a summary line:
 *   seed S turns T depth D xl X score P cause C
 *   bot games N crashes C deepest D causes K median_turns T
 * --check-snapshots also replays each game's keys with a snapshot round
 * trip at a random cut point and requires the same end (hash and status). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bot.h"
#include "game.h"
#include "prompt.h"
#include "script.h"
#include "tool.h"

#define BOT_MAX_KEYS_DEFAULT 30000

typedef struct {
    uint32_t *keys;
    size_t n, cap;
} keylog_t;

static int log_key(keylog_t *l, uint32_t k)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 1024;
        uint32_t *p = realloc(l->keys, nc * sizeof *p);
        if (!p)
            return -1;
        l->keys = p;
        l->cap = nc;
    }
    l->keys[l->n++] = k;
    return 0;
}

/* Plays one game with the bot; the keys typed go to kl. NULL on OOM. */
static game_t *bot_play(const content_t *c, script_vm_t *vm, uint64_t seed, long max_keys,
                        keylog_t *kl)
{
    game_options_t opt = {"Bot"};
    game_t *g = game_new(c, seed, &opt);
    bot_t b;
    bot_init(&b, seed);
    /* past max_keys the bot quits: Q, then y at the question */
    for (long i = 0; g && g->state == GAME_RUNNING && i < max_keys + 20; i++) {
        key_event_t k = i < max_keys ? bot_next_key(&b, g)
                                     : (key_event_t){g->prompt == PROMPT_QUIT ? 'y'
                                                     : g->prompt              ? ' '
                                                                              : 'Q',
                                                     0};
        if (i >= max_keys && g->items.screen)
            k.code = KEY_ESC;
        if (log_key(kl, k.code) < 0)
            break;
        game_input(g, vm, k);
    }
    bot_free(&b);
    return g;
}

/* The same keys with a snapshot round trip before key `cut`: same end? */
static int replay_with_cut(const content_t *c, script_vm_t *vm, uint64_t seed, const keylog_t *kl,
                           size_t cut, const game_t *ref)
{
    game_options_t opt = {"Bot"};
    game_t *g = game_new(c, seed, &opt);
    for (size_t i = 0; g && i < kl->n; i++) {
        if (i == cut) {
            buf_t blob;
            buf_init(&blob);
            char err[160] = "";
            game_t *h = game_snapshot(g, &blob) == 0
                            ? game_load(c, (const uint8_t *)blob.data, blob.len, err, sizeof err)
                            : NULL;
            buf_free(&blob);
            game_free(g);
            g = h;
            if (!g) {
                fprintf(stderr, "bot: seed %llu: snapshot at key %zu does not load: %s\n",
                        (unsigned long long)seed, cut, err);
                return -1;
            }
        }
        game_input(g, vm, (key_event_t){kl->keys[i], 0});
    }
    game_status_t a, b;
    game_status(ref, &a);
    if (g)
        game_status(g, &b);
    int same = g && game_hash(g) == game_hash(ref) && !strcmp(a.cause, b.cause) && a.turn == b.turn;
    if (!same)
        fprintf(stderr, "bot: seed %llu: a snapshot at key %zu of %zu changes the end\n",
                (unsigned long long)seed, cut, kl->n);
    game_free(g);
    return same ? 0 : -1;
}

/* The child: one game, its line on fd; exit 0, or 3 on a snapshot mismatch. */
static int bot_child(const content_t *c, uint64_t seed, long max_keys, int check, int fd)
{
    keylog_t kl = {0};
    script_vm_t *vm = script_vm_new();
    game_t *g = vm ? bot_play(c, vm, seed, max_keys, &kl) : NULL;
    if (!g)
        return 2;
    game_status_t st;
    game_status(g, &st);
    char line[300];
    int n = snprintf(line, sizeof line, "seed %llu turns %llu depth %d xl %d score %lld cause %s\n",
                     (unsigned long long)seed, (unsigned long long)st.turn, st.max_depth, st.xl,
                     (long long)st.score, st.cause[0] ? st.cause : "none");
    int rc = 0;
    if (check && kl.n > 2)
        rc = replay_with_cut(c, vm, seed, &kl, 1 + (size_t)(seed * 2654435761u % (kl.n - 1)), g)
                 ? 3
                 : 0;
    if (write(fd, line, (size_t)n) != n)
        rc = 2;
    game_free(g);
    script_vm_forget(vm, c);
    script_vm_free(vm);
    free(kl.keys);
    return rc;
}

typedef struct {
    long games, crashes, mismatches, deepest;
    unsigned long long *turns;
    char (*causes)[128];
    long ncauses;
} tally_t;

static void tally_line(tally_t *t, const char *line)
{
    unsigned long long seed, turns;
    int depth, xl;
    long long score;
    int at = 0;
    if (sscanf(line, "seed %llu turns %llu depth %d xl %d score %lld cause %n", &seed, &turns,
               &depth, &xl, &score, &at) < 5 ||
        !at)
        return;
    t->turns[t->games++] = turns;
    if (depth > t->deepest)
        t->deepest = depth;
    char cause[128];
    snprintf(cause, sizeof cause, "%.*s", (int)strcspn(line + at, "\n"), line + at);
    for (long i = 0; i < t->ncauses; i++)
        if (!strcmp(t->causes[i], cause))
            return;
    memcpy(t->causes[t->ncauses++], cause, sizeof cause);
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Runs game i in a child and reads its line back. */
static void run_one(const content_t *c, uint64_t seed, long max_keys, int check, tally_t *t)
{
    int fds[2];
    if (pipe(fds) < 0) {
        t->crashes++;
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(bot_child(c, seed, max_keys, check, fds[1]));
    }
    close(fds[1]);
    char line[300] = "";
    size_t n = 0;
    for (ssize_t r;
         pid > 0 && n + 1 < sizeof line && (r = read(fds[0], line + n, sizeof line - 1 - n)) > 0;)
        n += (size_t)r;
    line[n] = 0;
    close(fds[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || WIFSIGNALED(status) ||
        (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
        printf("seed %llu crashed (%s %d)\n", (unsigned long long)seed,
               WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        t->crashes++;
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        t->mismatches++;
    fputs(line, stdout);
    tally_line(t, line);
}

int cmd_bot(int argc, char **argv)
{
    long games = 10, max_keys = BOT_MAX_KEYS_DEFAULT;
    uint64_t seed = 1;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check-snapshots")) {
            check = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bot: %s needs a value\n", argv[i]);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(argv[i - 1], "--games"))
            games = strtol(v, NULL, 10);
        else if (!strcmp(argv[i - 1], "--seed"))
            seed = strtoull(v, NULL, 0);
        else if (!strcmp(argv[i - 1], "--max-keys"))
            max_keys = strtol(v, NULL, 10);
        else {
            fprintf(stderr, "bot: bad option %s\n", argv[i - 1]);
            return 2;
        }
    }
    if (games < 1 || games > 100000 || max_keys < 1) {
        fprintf(stderr, "bot: --games must be 1 to 100000 and --max-keys positive\n");
        return 2;
    }
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "bot: %s\n", err);
        return 1;
    }
    tally_t t = {0};
    t.turns = calloc((size_t)games, sizeof *t.turns);
    t.causes = calloc((size_t)games, sizeof *t.causes);
    for (long i = 0; t.turns && t.causes && i < games; i++)
        run_one(c, seed + (uint64_t)i, max_keys, check, &t);
    qsort(t.turns, (size_t)t.games, sizeof *t.turns, cmp_ull);
    if (check)
        printf("bot snapshots checked %ld mismatches %ld\n", t.games, t.mismatches);
    printf("bot games %ld crashes %ld deepest %ld causes %ld median_turns %llu\n", games, t.crashes,
           t.deepest, t.ncauses, t.games ? t.turns[t.games / 2] : 0ull);
    free(t.turns);
    free(t.causes);
    content_free(c);
    return t.crashes || t.mismatches ? 1 : 0;
}
