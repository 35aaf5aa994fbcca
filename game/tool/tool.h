/* warren-engine — the headless driver: subcommands from one const table.
 * Adding a command is one TOOL_CMD_LIST line plus a file defining
 * int cmd_NAME(int argc, char **argv) (argv[0] is the command name). */
#ifndef WARREN_TOOL_H
#define WARREN_TOOL_H
#include <stdio.h>
#include "ansi.h"
#include "game.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} tool_cmd_t;

#define TOOL_CMD_LIST(X)                                                                         \
    X(play, "play --seed S --keys FILE [--snapshot-at K] [--size WxH] [--save FILE] [--dump] "   \
            "[--frames]: final screen + hash (--frames: each key's frame's ANSI bytes hashed)")  \
    X(bench, "bench [walk|kinds|keys KIND]: engine BENCH lines (keys: each key's frame)")        \
    X(levels, "levels [--seed S] [--count N] [--depth D] [--size WxH] [--show] [--bench]: "      \
              "generated levels")                                                                \
    X(bot, "bot [--games N] [--seed S] [--class NAME] [--policy explore|wait] [--turns N] "      \
           "[--max-keys K] [--check-snapshots] [--dump]: seeded games played to their end")      \
    X(arena, "arena --a KIND --b KIND [--a-effect EFFECT] [--fights N] [--seed S] [--turns T]: " \
             "two creature kinds fight in an empty room")                                        \
    X(content, "content --stats: counts of the content's kinds")                                 \
    X(world, "world --seed S [--dir DIR]: the surface world of a seed, its map and names")

#define TOOL_CMD_DECL_(n, h) int cmd_##n(int argc, char **argv);
TOOL_CMD_LIST(TOOL_CMD_DECL_)
#undef TOOL_CMD_DECL_

extern const tool_cmd_t TOOL_CMDS[];

/* cmd_levels.c: engine.levelgen.us (median of 200 levels) and engine.fov.us
 * (radius 8 inside life caves), for the bench command. */
double levels_bench_levelgen_us(const content_t *c);
double levels_bench_fov_us(const content_t *c);

/* bench_bot.c: bot play at depths 1-10 (engine.turn.*, *.10levels). */
typedef struct {
    double median_us, p99_us, samples;
    double heap, snapshot; /* bytes once 10 levels were visited; < 0: none got there */
} bench_bot_t;
int bench_bot(const content_t *c, bench_bot_t *out);

/* bench_walk.c: a fresh game of seed 1 at 80x24 on a session's path, the
 * walks' start: a random character ('x') made, its first frame sent whole
 * (keyframe into b), so the grid and what the terminal shows (sent) agree.
 * bench_play_start: 0, or -1 when the game cannot start; bench_play_end
 * frees what it made either way. */
typedef struct {
    ansi_profile_t prof; /* what telnet gives an xterm-256color terminal */
    game_t *g;
    screen_t *grid, *sent;
    buf_t b;
    game_view_t v;
} bench_play_t;
int bench_play_start(bench_play_t *p, const content_t *c, script_vm_t *vm);
void bench_play_end(bench_play_t *p);

/* bench_walk.c: the seeded 200-key walk at 80x24 (walk.*): bytes per key
 * over the ANSI encoder, CPU per key to render (game_render) and to diff,
 * and CPU per key for both through the kept frame (game_frame). */
typedef struct {
    double bytes, render_ns, diff_ns, frame_ns, keys;
} bench_walk_t;
int bench_walk(const content_t *c, script_vm_t *vm, bench_walk_t *out);
/* The walk's n keys (the eight directions, seeded). */
void bench_walk_keys(char *keys, int n);

/* bench_kinds.c: kinds of play (explore, travel, menus, messages), 200
 * seeded keys each at 80x24: the ANSI bytes and the cells that changed.
 * Fills out[0..max) and returns how many, or -1 when a game cannot start. */
typedef struct {
    const char *name; /* static */
    double bytes, cells, keys;
} bench_kind_t;
int bench_kinds(const content_t *c, script_vm_t *vm, bench_kind_t *out, int max);
/* One kind's keys (or "walk": the seeded walk's), a line each into f: the
 * frame's bytes, the cells and rows it changed, where the player stands.
 * -1 for an unknown kind or a game that cannot start. */
int bench_kind_trace(const content_t *c, script_vm_t *vm, const char *kind, FILE *f);

#endif
