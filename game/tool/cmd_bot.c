/* warren-engine bot — plays seeded games to their end with the bot policy
 * (bot.h), each in a child process so that a crash is counted, not fatal.
 * One line per game, one per class played, and last a summary line of
 * key-value pairs:
 *   seed S turns T depth D xl X score P cause C
 *   bot class NAME games N mean_deepest M deepest D wins W
 *   bot games N crashes C wins W deaths D deepest D mean_deepest M causes K
 *       median_turns T sneak_attacks S spells_cast X missiles M unique_repeats U
 *       warden_off_depth Z temple_heals H view_misses V peaceful_killed P
 *       surface_steps S surface_min F
 * --class NAME plays that class (any race); --dump writes each game's dump
 * (character, gear, last messages, map) to stderr; --policy wait only waits
 * (--turns N of them, default 20: how often a character that does nothing
 * dies). --check-snapshots also replays each game's keys with a snapshot
 * round trip at a random cut point and requires the same end (hash and
 * status). What it counts comes from watching the game: a sneak attack
 * is a blow of the player's that lands on a monster that had not noticed
 * it; a missile, an attack of the player's by something thrown or shot; a
 * unique repeat, a second creature of a unique kind; the warden off depth,
 * the warden anywhere but the bottom level; temple heals, the times the bot
 * paid the temple to heal it; view misses, the keys after which a creature
 * the player sees was not drawn on an 80x24 frame; peacefuls killed, the
 * keepers the player killed; surface steps, the steps taken on the
 * overland (atlas.h's count) in all games, and surface_min the fewest in
 * any one game. Under WARREN_RENDER_VERIFY=1 every key's frame is
 * checked (game_view_t.verify_misses, and against the frame drawn whole):
 * a frame that fails crashes its game. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bot.h"
#include "creature.h"
#include "game.h"
#include "prompt.h"
#include "render.h"
#include "script.h"
#include "tool.h"

#define BOT_MAX_KEYS_DEFAULT 30000

enum { POLICY_EXPLORE = 0, POLICY_WAIT };

typedef struct {
    long games, max_keys, turns;
    uint64_t seed;
    int check, cls, policy, dump;
    int verify; /* WARREN_RENDER_VERIFY=1: every frame checked (game_view_t.verify_misses) */
} bot_opts_t;

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

/* What watching one game counts. */
typedef struct {
    game_t *g;
    handle_t unaware; /* the victim of the player's blow under way, when it had not noticed */
    int sneaks, missiles, repeats, warden_off, view_misses, peaceful_killed;
    handle_t uniques[64]; /* the first creature seen of each unique kind */
} watch_t;

/* A blow of the player's at an unaware monster, landing, is a sneak attack. */
static void watch_event(void *ctx, const ev_info_t *e)
{
    watch_t *w = ctx;
    const obj_t *v = reg_get(&w->g->reg, e->victim);
    if (e->type == EV_DEATH && e->actor == w->g->player && v && v->type == OBJ_CREATURE &&
        (creature_kind(w->g, v)->flags & CF_PEACEFUL))
        w->peaceful_killed++;
    if (e->type == EV_ATTACK && e->actor == w->g->player && (e->flags & EVF_MISSILE))
        w->missiles++;
    if (e->type == EV_ATTACK && e->actor == w->g->player)
        w->unaware = v && !(v->flags & OF_AWARE) ? e->victim : HANDLE_NONE;
    else if (e->type == EV_HIT && e->actor == w->g->player && e->victim == w->unaware) {
        w->sneaks++;
        w->unaware = HANDLE_NONE;
    }
}

/* Uniques made twice and wardens off the bottom level, from the registry. */
static void census(watch_t *w)
{
    game_t *g = w->g;
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type != OBJ_CREATURE || h == g->player)
            continue;
        int u = creature_unique_index(g->c, o->kind);
        if (u < 0)
            continue;
        if ((creature_kind(g, o)->flags & CF_WARDEN) && o->depth != WORLD_MAX_DEPTH)
            w->warden_off++;
        if (!w->uniques[u])
            w->uniques[u] = h;
        else if (w->uniques[u] != h)
            w->repeats++, w->uniques[u] = h;
    }
}

/* The key of the wait policy: make the character as the bot would, walk
 * down from the town as it would (straight down, no trip out first), then
 * wait on level 1 (paging any --More--) until `turns` turns have passed
 * there. */
static key_event_t wait_key(bot_t *b, game_t *g, uint64_t *start, long turns, bool *done)
{
    b->trip = 2;
    if (!g->pc.created || g->prompt != PROMPT_NONE || g->depth == 0)
        return bot_next_key(b, g);
    if (!*start)
        *start = g->sched.now / SCHED_MOVE + 1;
    *done = g->sched.now / SCHED_MOVE + 1 >= *start + (uint64_t)turns;
    return (key_event_t){'.', 0};
}

/* The key that quits from where the game stands: y at the question, a
 * space at a --More-- (and a new level's), Escape out of any other prompt
 * (the target cursor, a walk's, a spell's), Q with none. */
static uint32_t quit_key(const game_t *g)
{
    switch (g->prompt) {
    case PROMPT_NONE: return 'Q';
    case PROMPT_QUIT: return 'y';
    case PROMPT_MORE:
    case PROMPT_WELCOME:
    case PROMPT_LEVELUP:
    case PROMPT_HISTORY: return ' ';
    default: return KEY_ESC;
    }
}

/* WARREN_RENDER_VERIFY=1: the key's frame, drawn from the kept one with
 * every row checked (unmarked: the rows a writer left unmarked), must
 * have no such row and equal the frame drawn whole (into whole), or the
 * game crashes (counted as a crash). */
static void verify_frame(game_t *g, const screen_t *frame, screen_t *whole, uint64_t seed, long i,
                         uint64_t unmarked)
{
    game_view_t v = {0};
    render_full(g, whole, &v);
    bool same =
        frame->cur_visible == whole->cur_visible &&
        (!frame->cur_visible || (frame->cur_x == whole->cur_x && frame->cur_y == whole->cur_y));
    for (int k = 0; same && k < frame->w * frame->h; k++)
        same = cell_eq(&frame->cells[k], &whole->cells[k]);
    if (unmarked || !same) {
        fprintf(stderr, "bot: seed %llu key %ld: %llu changed map rows unmarked, %s\n",
                (unsigned long long)seed, i, (unsigned long long)unmarked,
                same ? "the frame as drawn whole" : "the frame not as drawn whole");
        abort();
    }
}

/* Plays one game; the keys typed go to kl. NULL on OOM. */
static game_t *bot_play(const content_t *c, script_vm_t *vm, const bot_opts_t *o, uint64_t seed,
                        keylog_t *kl, watch_t *w, bot_t *b)
{
    game_options_t opt = {"Bot"};
    game_t *g = game_new(c, seed, &opt);
    bot_init(b, seed, o->cls);
    w->g = g;
    uint64_t start = 0;
    bool done = false;
    screen_t *frame = screen_new(80, 24), *whole = o->verify ? screen_new(80, 24) : NULL;
    /* past max_keys the bot quits: Q, then y at the question */
    for (long i = 0; g && g->state == GAME_RUNNING && i < o->max_keys + 20 && !done; i++) {
        key_event_t k = i < o->max_keys
                            ? (o->policy == POLICY_WAIT ? wait_key(b, g, &start, o->turns, &done)
                                                        : bot_next_key(b, g))
                            : (key_event_t){quit_key(g), 0};
        if (i >= o->max_keys && g->items.screen)
            k.code = KEY_ESC;
        if (done || log_key(kl, k.code) < 0)
            break;
        g->watch = watch_event, g->watch_ctx = w;
        game_input(g, vm, k);
        g->watch = NULL;
        census(w);
        uint64_t unmarked = 0;
        w->view_misses += frame && bot_view_misses(g, frame, o->verify ? &unmarked : NULL) > 0;
        if (frame && whole)
            verify_frame(g, frame, whole, seed, i, unmarked);
    }
    screen_free(frame);
    screen_free(whole);
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

/* The child: one game, its line and its counts on fd; exit 0, or 3 on a
 * snapshot mismatch. */
static int bot_child(const content_t *c, const bot_opts_t *o, uint64_t seed, int fd)
{
    keylog_t kl = {0};
    watch_t w = {0};
    bot_t b;
    script_vm_t *vm = script_vm_new();
    game_t *g = vm ? bot_play(c, vm, o, seed, &kl, &w, &b) : NULL;
    if (!g)
        return 2;
    game_status_t st;
    game_status(g, &st);
    if (o->dump) { /* how it ended, for whoever tunes the game */
        buf_t d;
        buf_init(&d);
        game_dump(g, &d);
        fprintf(stderr, "==== seed %llu\n%.*s\n", (unsigned long long)seed, (int)d.len, d.data);
        buf_free(&d);
    }
    if (g->script_errors) /* content's handlers must not fail in play */
        fprintf(stderr, "bot: seed %llu: %u handler errors, the last: %s\n",
                (unsigned long long)seed, g->script_errors, g->script_err);
    char line[512];
    int n = snprintf(line, sizeof line,
                     "seed %llu turns %llu depth %d xl %d score %lld cause %s\n"
                     "counts won %d dead %d sneaks %d casts %d missiles %d repeats %d "
                     "warden_off %d temple %d view_misses %d peaceful_killed %d surface %u "
                     "class %d\n",
                     (unsigned long long)seed, (unsigned long long)st.turn, st.max_depth, st.xl,
                     (long long)st.score, st.cause[0] ? st.cause : "none", st.state == GAME_WON,
                     st.state == GAME_DEAD, w.sneaks, b.casts, w.missiles, w.repeats, w.warden_off,
                     b.temple, w.view_misses, w.peaceful_killed, g->atlas.steps,
                     g->pc.created ? g->pc.cls : -1);
    int status = 0;
    if (o->check && kl.n > 2)
        status = replay_with_cut(c, vm, seed, &kl, 1 + (size_t)(seed * 2654435761u % (kl.n - 1)), g)
                     ? 3
                     : 0;
    if (write(fd, line, (size_t)n) != n)
        status = 2;
    bot_free(&b);
    game_free(g);
    script_vm_forget(vm, c);
    script_vm_free(vm);
    free(kl.keys);
    return status;
}

#define BOT_CLASSES 8 /* classes told apart in the per-class lines */

typedef struct {
    long games, crashes, mismatches, deepest, depth_sum;
    long cls_games[BOT_CLASSES], cls_depth[BOT_CLASSES], cls_deepest[BOT_CLASSES],
        cls_wins[BOT_CLASSES];
    long wins, deaths, sneaks, casts, missiles, repeats, warden_off, temple, view_misses,
        peaceful_killed;
    long surface, surface_min; /* overland steps: all games', the fewest in one (-1 none yet) */
    unsigned long long *turns;
    char (*causes)[128];
    long ncauses;
} tally_t;

static void tally_cause(tally_t *t, const char *line, int at)
{
    char cause[128];
    snprintf(cause, sizeof cause, "%.*s", (int)strcspn(line + at, "\n"), line + at);
    for (long i = 0; i < t->ncauses; i++)
        if (!strcmp(t->causes[i], cause))
            return;
    memcpy(t->causes[t->ncauses++], cause, sizeof cause);
}

/* Adds a child's two lines to the tally; the first goes to stdout. */
static void tally_lines(tally_t *t, const char *line)
{
    unsigned long long seed, turns;
    int depth, xl, at = 0, won, dead, sneaks, casts, missiles, repeats, off, temple, misses, pk,
                   surface, cls;
    long long score;
    if (sscanf(line, "seed %llu turns %llu depth %d xl %d score %lld cause %n", &seed, &turns,
               &depth, &xl, &score, &at) < 5 ||
        !at)
        return;
    printf("%.*s\n", (int)strcspn(line, "\n"), line);
    t->turns[t->games++] = turns;
    t->depth_sum += depth;
    if (depth > t->deepest)
        t->deepest = depth;
    tally_cause(t, line, at);
    const char *counts = strstr(line, "\ncounts ");
    if (counts &&
        sscanf(counts,
               "\ncounts won %d dead %d sneaks %d casts %d missiles %d repeats %d warden_off %d "
               "temple %d view_misses %d peaceful_killed %d surface %d class %d",
               &won, &dead, &sneaks, &casts, &missiles, &repeats, &off, &temple, &misses, &pk,
               &surface, &cls) == 12) {
        t->wins += won, t->deaths += dead, t->sneaks += sneaks, t->casts += casts;
        t->missiles += missiles;
        t->repeats += repeats, t->warden_off += off, t->temple += temple;
        t->view_misses += misses, t->peaceful_killed += pk;
        t->surface += surface;
        if (t->surface_min < 0 || surface < t->surface_min)
            t->surface_min = surface;
        if (cls >= 0 && cls < BOT_CLASSES) {
            t->cls_games[cls]++, t->cls_depth[cls] += depth, t->cls_wins[cls] += won;
            if (depth > t->cls_deepest[cls])
                t->cls_deepest[cls] = depth;
        }
    }
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

/* Runs one game in a child and reads its lines back. */
static void run_one(const content_t *c, const bot_opts_t *o, uint64_t seed, tally_t *t)
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
        _exit(bot_child(c, o, seed, fds[1]));
    }
    close(fds[1]);
    char line[512] = "";
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
    tally_lines(t, line);
}

static int class_named(const content_t *c, const char *name)
{
    for (int i = 0; i < c->n_classes; i++)
        if (!strcasecmp(c->classes[i].name, name))
            return i;
    return -1;
}

/* Options into o; 0, or 2 on a bad one (said on stderr). Content names
 * the classes, so --class is checked by the caller. */
static int parse(int argc, char **argv, bot_opts_t *o, const char **cls)
{
    *o = (bot_opts_t){10, BOT_MAX_KEYS_DEFAULT, 20, 1, 0, -1, POLICY_EXPLORE};
    const char *verify = getenv("WARREN_RENDER_VERIFY");
    o->verify = verify && !strcmp(verify, "1");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check-snapshots")) {
            o->check = 1;
            continue;
        }
        if (!strcmp(argv[i], "--dump")) {
            o->dump = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bot: %s needs a value\n", argv[i]);
            return 2;
        }
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--games"))
            o->games = strtol(v, NULL, 10);
        else if (!strcmp(k, "--seed"))
            o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(k, "--max-keys"))
            o->max_keys = strtol(v, NULL, 10);
        else if (!strcmp(k, "--turns"))
            o->turns = strtol(v, NULL, 10);
        else if (!strcmp(k, "--class"))
            *cls = v;
        else if (!strcmp(k, "--policy") && (!strcmp(v, "explore") || !strcmp(v, "wait")))
            o->policy = !strcmp(v, "wait") ? POLICY_WAIT : POLICY_EXPLORE;
        else {
            fprintf(stderr, "bot: bad option %s %s\n", k, v);
            return 2;
        }
    }
    if (o->games < 1 || o->games > 100000 || o->max_keys < 1 || o->turns < 1) {
        fprintf(stderr, "bot: --games must be 1 to 100000, --max-keys and --turns positive\n");
        return 2;
    }
    return 0;
}

/* One line per class played: how deep its characters went, on average. */
static void class_lines(const tally_t *t, const content_t *c)
{
    for (int i = 0; i < c->n_classes && i < BOT_CLASSES; i++)
        if (t->cls_games[i])
            printf("bot class %s games %ld mean_deepest %.2f deepest %ld wins %ld\n",
                   c->classes[i].name, t->cls_games[i],
                   (double)t->cls_depth[i] / (double)t->cls_games[i], t->cls_deepest[i],
                   t->cls_wins[i]);
}

static void summary(const tally_t *t, long games)
{
    printf("bot games %ld crashes %ld wins %ld deaths %ld deepest %ld mean_deepest %.2f causes %ld "
           "median_turns %llu sneak_attacks %ld spells_cast %ld missiles %ld unique_repeats %ld "
           "warden_off_depth %ld temple_heals %ld view_misses %ld peaceful_killed %ld "
           "surface_steps %ld surface_min %ld\n",
           games, t->crashes, t->wins, t->deaths, t->deepest,
           t->games ? (double)t->depth_sum / (double)t->games : 0.0, t->ncauses,
           t->games ? t->turns[t->games / 2] : 0ull, t->sneaks, t->casts, t->missiles, t->repeats,
           t->warden_off, t->temple, t->view_misses, t->peaceful_killed, t->surface,
           t->surface_min < 0 ? 0 : t->surface_min);
}

int cmd_bot(int argc, char **argv)
{
    bot_opts_t o;
    const char *cls = NULL;
    int status = parse(argc, argv, &o, &cls);
    if (status)
        return status;
    char err[256];
    content_t *c = content_load(NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "bot: %s\n", err);
        return 1;
    }
    if (cls && (o.cls = class_named(c, cls)) < 0) {
        fprintf(stderr, "bot: no class '%s'\n", cls);
        content_free(c);
        return 2;
    }
    tally_t t = {.surface_min = -1};
    t.turns = calloc((size_t)o.games, sizeof *t.turns);
    t.causes = calloc((size_t)o.games, sizeof *t.causes);
    for (long i = 0; t.turns && t.causes && i < o.games; i++)
        run_one(c, &o, o.seed + (uint64_t)i, &t);
    qsort(t.turns, (size_t)t.games, sizeof *t.turns, cmp_ull);
    class_lines(&t, c);
    if (o.check)
        printf("bot snapshots checked %ld mismatches %ld\n", t.games, t.mismatches);
    summary(&t, o.games);
    free(t.turns);
    free(t.causes);
    content_free(c);
    return t.crashes || t.mismatches ? 1 : 0;
}
