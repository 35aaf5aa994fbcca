/* gamecfg — [game ID] sections: a table of keys, checks at section end. */
#include "gamecfg.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "statuspat.h"

typedef enum {
    K_TEXT,   /* printable text */
    K_CMD,    /* a command line, checked at the section's end */
    K_ENV,    /* NAME=VALUE, repeatable */
    K_RCFILE, /* a path with %d / %n */
    K_XLOG,   /* an absolute path, or %d/ and a relative one */
    K_PATH,   /* an absolute path */
    K_USER,   /* a system account name */
    K_TERM,   /* a terminal type name */
    K_LIMIT,  /* a uint64_t in limits, times scale */
    K_INT,    /* an int */
    K_KEYS,   /* "prefix ^C" or "direct" */
    K_NET,    /* "none" or "host" */
    K_STATUS, /* a status pattern (statuspat.h) */
    K_NAMES,  /* file names (no '/'), separated by blanks */
    K_SIZE,   /* WxH, two ints */
} kind_t;

typedef struct {
    const char *key;
    kind_t kind;
    size_t off, size;
    long min, max;
    uint64_t scale;
} gamekey_t;

#define F(f)   offsetof(gamecfg_t, f), sizeof(((gamecfg_t *)0)->f)
#define LIM(f) offsetof(gamecfg_t, limits.f), sizeof(uint64_t)
#define MB     (1024u * 1024u)
static const gamekey_t KEYS[] = {
    {"name", K_TEXT, F(name), 0, 0, 0},
    {"command", K_CMD, F(command), 0, 0, 0},
    {"env", K_ENV, 0, GAMECFG_TEXT, 0, 0, 0},
    {"rcfile", K_RCFILE, F(rcfile), 0, 0, 0},
    {"rc-default", K_PATH, F(rc_default), 0, 0, 0},
    {"xlogfile", K_XLOG, F(xlogfile), 0, 0, 0},
    {"playground", K_PATH, F(playground), 0, 0, 0},
    {"playground-shared", K_NAMES, F(playground_shared), 0, 0, 0},
    {"playground-shared-rw", K_NAMES, F(playground_shared_rw), 0, 0, 0},
    {"playground-files", K_NAMES, F(playground_files), 0, 0, 0},
    {"recover", K_CMD, F(recover), 0, 0, 0},
    {"user", K_USER, F(user), 0, 0, 0},
    {"term", K_TERM, F(term), 0, 0, 0},
    {"cpu", K_LIMIT, LIM(cpu_seconds), 0, 1000000, 1},
    {"memory", K_LIMIT, LIM(memory_bytes), 0, 1 << 20, MB},
    {"files", K_LIMIT, LIM(files), 0, 1 << 20, 1},
    {"processes", K_LIMIT, LIM(processes), 0, 100000, 1},
    {"file-size", K_LIMIT, LIM(file_bytes), 0, 1 << 20, MB},
    {"disk", K_LIMIT, F(disk_bytes), 0, 1 << 20, MB},
    {"disk-files", K_LIMIT, F(disk_files), 0, GAMECFG_DISK_FILES_MAX, 1},
    {"copy-max", K_LIMIT, F(copy_bytes), 0, GAMECFG_COPY_MB_MAX, MB},
    {"copy-rate", K_LIMIT, F(copy_rate), 0, GAMECFG_COPY_KBS_MAX, 1024},
    {"idle", K_INT, F(idle_seconds), 0, 86400 * 7, 1},
    {"hangup-timeout", K_INT, F(hangup_seconds), 1, 3600, 1},
    {"start-timeout", K_INT, F(start_seconds), 1, GAMECFG_START_MAX, 1},
    {"keys", K_KEYS, F(key_prefix), 0, 0, 0},
    {"network", K_NET, F(network), 0, 0, 0},
    {"status", K_STATUS, F(status), 0, 0, 0},
    {"min-size", K_SIZE, F(min_size), 0, 0, 0},
    {"phone-size", K_SIZE, F(phone_size), 0, 0, 0},
};
#undef F
#undef LIM
#define NKEYS (sizeof KEYS / sizeof KEYS[0])
_Static_assert(NKEYS <= 32, "a bit of parser_t's seen a key");

/* The host's environment; an env line of the same name replaces one. */
static const char *const BASE_ENV[] = {"TERM", "HOME", "PATH"};
#define BASE_PATH "/usr/local/bin:/usr/bin:/bin"

typedef struct {
    gamecfg_list_t *list;
    gamecfg_t *cur; /* the section being read, or NULL */
    unsigned seen;  /* KEYS given in cur (bit i) */
    int errline;    /* set when an error belongs to another line than the one read */
    char *err;
    size_t errlen;
} parser_t;

static int fail(parser_t *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser_t *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- values -------------------------------------------------------------------- */

static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            return false;
    return true;
}

static bool all_of(const char *s, const char *set, size_t max)
{
    size_t n = strlen(s);
    return n >= 1 && n <= max && strspn(s, set) == n;
}

#define LOWER  "abcdefghijklmnopqrstuvwxyz"
#define DIGITS "0123456789"
#define UPPER  "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* The longest values a player brings (a game name of
 * CMDLINE_GAME_NAME_MAX, a name of CMDLINE_NAME_MAX, a directory of
 * GAMECFG_DIR_MAX bytes), for checking a section's substitutions: what
 * passes here expands for every player. */
#define D10         "/ddddddddd"
#define D50         D10 D10 D10 D10 D10
#define SAMPLE_NAME "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
#define SAMPLE_GAME "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"
#define SAMPLE_DIR  D50 D50 D50 D50
static const cmdline_vars_t SAMPLE = {SAMPLE_NAME, SAMPLE_DIR, NULL, SAMPLE_GAME};
_Static_assert(sizeof SAMPLE_NAME - 1 == CMDLINE_NAME_MAX, "the longest name");
_Static_assert(sizeof SAMPLE_GAME - 1 == CMDLINE_GAME_NAME_MAX, "the longest game name");
_Static_assert(sizeof SAMPLE_DIR - 1 == GAMECFG_DIR_MAX, "the longest directory");

/* "%d/NAME": the file is opened relative to the player's directory, never
 * by a path that could lead elsewhere. */
static int check_rcfile(parser_t *ps, const char *val)
{
    bool dir = !strncmp(val, "%d/", 3);
    const char *name = dir ? val + 3 : "";
    size_t n = strlen(name);
    bool ok = n >= 1 && n <= 64 && strspn(name, LOWER UPPER DIGITS "._-") == n &&
              strcmp(name, ".") && strcmp(name, "..");
    if (!ok)
        return fail(ps,
                    "rcfile: must name a file directly in the player's directory, as %%d/NAME "
                    "(NAME of A-Z a-z 0-9 . _ -), got \"%s\"",
                    val);
    return 0;
}

/* One name of a names list (len bytes at s): a file directly in a
 * directory, of A-Z a-z 0-9 . _ -, never "." or "..". */
static bool file_name_ok(const char *s, size_t len)
{
    return len >= 1 && len <= GAMECFG_NAME_MAX && strspn(s, LOWER UPPER DIGITS "._-") >= len &&
           !(len == 1 && s[0] == '.') && !(len == 2 && !strncmp(s, "..", 2));
}

/* A path below the player's directory: names of A-Z a-z 0-9 . _ -
 * (never "." or "..") separated by single '/'. */
static bool rel_path_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128)
        return false;
    for (const char *c = s;; c++) {
        size_t len = strcspn(c, "/");
        if (!file_name_ok(c, len))
            return false;
        c += len;
        if (!*c)
            return true;
    }
}

/* An absolute path (one file for every player), or "%d/PATH": each
 * player's own, opened below the player's directory as the game's user,
 * no link followed (playerfs.h). */
static int check_xlogfile(parser_t *ps, const char *val)
{
    bool own = !strncmp(val, "%d/", 3);
    if (own ? rel_path_ok(val + 3) : cmdline_path_ok(val))
        return 0;
    return fail(ps,
                "xlogfile: must be an absolute path or %%d/PATH (names of A-Z a-z 0-9 . _ - "
                "separated by /, no . or ..), got \"%s\"",
                val);
}

/* A system account name; never root (the games' files and processes would
 * be root's). A name that is uid 0 under another name is refused when the
 * daemon resolves it (spawner.h). */
static int check_user(parser_t *ps, const char *val)
{
    if (!all_of(val, LOWER DIGITS "_-", 32) || val[0] == '-')
        return fail(ps, "user: bad value \"%s\"", val);
    if (!strcmp(val, "root"))
        return fail(ps, "user: hosted games never run as root");
    return 0;
}

static int set_env(parser_t *ps, const char *val)
{
    gamecfg_t *g = ps->cur;
    const char *eq = strchr(val, '=');
    if (!eq || !cmdline_env_name_ok(val, (size_t)(eq - val)))
        return fail(ps, "env: expected NAME=VALUE, got \"%s\"", val);
    for (int i = 0; i < g->nenv; i++)
        if (!strncmp(g->env[i], val, (size_t)(eq - val) + 1))
            return fail(ps, "env: %.*s given twice", (int)(eq - val), val);
    if (g->nenv == GAMECFG_ENV_MAX)
        return fail(ps, "env: more than %d lines", GAMECFG_ENV_MAX);
    snprintf(g->env[g->nenv++], GAMECFG_TEXT, "%s", val);
    return 0;
}

static int set_number(parser_t *ps, const gamekey_t *k, const char *val)
{
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < k->min || v > k->max) {
        return fail(ps, "%s: expected a number from %ld to %ld, got \"%s\"", k->key, k->min, k->max,
                    val);
    }
    char *field = (char *)ps->cur + k->off;
    if (k->kind == K_INT)
        *(int *)field = (int)v;
    else
        *(uint64_t *)field = (uint64_t)v * k->scale;
    return 0;
}

/* "prefix ^C" (a control key a game can spare) or "direct". */
static int set_keys(parser_t *ps, const char *val)
{
    if (!strcmp(val, "direct")) {
        ps->cur->key_prefix = 0;
        return 0;
    }
    const char *k = NULL;
    if (!strncmp(val, "prefix", 6) && (val[6] == ' ' || val[6] == '\t'))
        k = val + 6 + strspn(val + 6, " \t");
    char c = k && k[0] == '^' && k[1] && !k[2] ? (char)toupper((unsigned char)k[1]) : 0;
    if (c < 'A' || c > '_')
        return fail(ps, "keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"%s\"", val);
    if (strchr("HIJM[", c))
        return fail(ps, "keys: ^%c is a key every game needs (Backspace, Tab, Enter, Esc)", c);
    ps->cur->key_prefix = (uint32_t)(c & 0x1F);
    return 0;
}

/* "none" (no network: the default) or "host" (the machine's). */
static int set_network(parser_t *ps, const char *val)
{
    if (strcmp(val, "none") && strcmp(val, "host"))
        return fail(ps, "network: expected \"none\" or \"host\", got \"%s\"", val);
    ps->cur->network = !strcmp(val, "host");
    return 0;
}

/* Names separated by blanks, at most GAMECFG_NAMES of them; kept with
 * one space between them (spawnexec.c splits them so). */
static int set_names(parser_t *ps, const gamekey_t *k, const char *val)
{
    char *out = (char *)ps->cur + k->off;
    size_t used = 0;
    int n = 0;
    for (const char *s = val + strspn(val, " \t"); *s; s += strspn(s, " \t")) {
        size_t len = strcspn(s, " \t");
        if (!file_name_ok(s, len) && memchr(s, ':', len))
            return fail(ps,
                        "%s: \"%.*s\" is not a file name (A-Z a-z 0-9 . _ -, no /); a name "
                        "shared writable goes in playground-shared-rw",
                        k->key, (int)len, s);
        if (!file_name_ok(s, len))
            return fail(ps, "%s: \"%.*s\" is not a file name (A-Z a-z 0-9 . _ -, no /)", k->key,
                        (int)len, s);
        if (len == 4 && !memcmp(s, "save", 4)) /* the box's own per player (spawnexec.c) */
            return fail(ps, "%s: \"save\" is each player's own directory, the box makes it",
                        k->key);
        if (++n > GAMECFG_NAMES)
            return fail(ps, "%s: more than %d names", k->key, GAMECFG_NAMES);
        used +=
            (size_t)snprintf(out + used, k->size - used, "%s%.*s", used ? " " : "", (int)len, s);
        s += len;
    }
    return 0;
}

/* A status pattern compiles (and is dropped: each game compiles its own). */
static int check_status(parser_t *ps, const char *val)
{
    char msg[200];
    statuspat_t *p = statuspat_new(val, msg, sizeof msg);
    if (!p)
        return fail(ps, "status: bad pattern \"%s\": %s", val, msg);
    statuspat_free(p);
    return 0;
}

/* "WxH" (x or X), each a number within the size caps. */
static int set_size(parser_t *ps, const gamekey_t *k, const char *val)
{
    int *out = (int *)((char *)ps->cur + k->off);
    char *end = NULL;
    errno = 0;
    long w = isdigit((unsigned char)val[0]) ? strtol(val, &end, 10) : -1;
    long h = end && (*end == 'x' || *end == 'X') && isdigit((unsigned char)end[1])
                 ? strtol(end + 1, &end, 10)
                 : -1;
    if (errno || h < 0 || *end)
        return fail(ps, "[game %s]: %s: expected columns x rows, as 80x24, got \"%s\"", ps->cur->id,
                    k->key, val);
    if (w < GAMECFG_SIZE_MIN_W || h < GAMECFG_SIZE_MIN_H || w > GAMECFG_SIZE_MAX_W ||
        h > GAMECFG_SIZE_MAX_H)
        return fail(ps, "[game %s]: %s: %s is outside %dx%d to %dx%d", ps->cur->id, k->key, val,
                    GAMECFG_SIZE_MIN_W, GAMECFG_SIZE_MIN_H, GAMECFG_SIZE_MAX_W, GAMECFG_SIZE_MAX_H);
    out[0] = (int)w;
    out[1] = (int)h;
    return 0;
}

static int set_value(parser_t *ps, const gamekey_t *k, const char *val)
{
    if (k->kind == K_LIMIT || k->kind == K_INT)
        return set_number(ps, k, val);
    if (k->kind == K_SIZE)
        return set_size(ps, k, val);
    if (k->kind == K_KEYS)
        return set_keys(ps, val);
    if (k->kind == K_NET)
        return set_network(ps, val);
    if (strlen(val) >= k->size)
        return fail(ps, "%s: value too long", k->key);
    if (!*val)
        return fail(ps, "%s: empty value", k->key);
    if (!printable(val))
        return fail(ps, "%s: control characters", k->key);
    bool ok = true;
    switch (k->kind) {
    case K_ENV: return set_env(ps, val);
    case K_RCFILE: ok = check_rcfile(ps, val) == 0; break;
    case K_XLOG: ok = check_xlogfile(ps, val) == 0; break;
    case K_PATH: ok = cmdline_path_ok(val); break;
    case K_USER: ok = check_user(ps, val) == 0; break;
    case K_TERM: ok = all_of(val, LOWER UPPER DIGITS "._+-", 31); break;
    case K_STATUS: ok = check_status(ps, val) == 0; break;
    case K_NAMES: return set_names(ps, k, val);
    default: break;
    }
    if (!ok)
        return k->kind == K_RCFILE || k->kind == K_XLOG || k->kind == K_USER || k->kind == K_STATUS
                   ? -1
                   : fail(ps, "%s: bad value \"%s\"", k->key, val);
    memcpy((char *)ps->cur + k->off, val, strlen(val) + 1);
    return 0;
}

/* ---- sections ------------------------------------------------------------------ */

/* Whether names (one space between them) holds name (len bytes). */
static bool names_hold(const char *names, const char *name, size_t len)
{
    for (const char *s = names; *s; s += strspn(s, " ")) {
        size_t n = strcspn(s, " ");
        if (n == len && !memcmp(s, name, len))
            return true;
        s += n;
    }
    return false;
}

/* An own xlogfile in the player's playground/ that playground-shared(-rw)
 * binds over from the real one: the game would write there, not in the
 * file read. */
static int check_xlog_shared(parser_t *ps, const gamecfg_t *g)
{
    const char *own = gamecfg_xlog_own(g), *name = own ? own + strlen("playground/") : NULL;
    if (!own || strncmp(own, "playground/", strlen("playground/")) || strchr(name, '/'))
        return 0;
    const char *lists[] = {g->playground_shared, g->playground_shared_rw};
    for (size_t i = 0; i < 2; i++)
        if (names_hold(lists[i], name, strlen(name)))
            return fail(ps, "[game %s]: xlogfile is each player's own, so %s may not name %s",
                        g->id, i ? "playground-shared-rw" : "playground-shared", name);
    return 0;
}

/* The playground's lists: each needs playground, and a name is in one
 * of them at most (shared read-only, shared writable, each player's own). */
static int check_playground_names(parser_t *ps, const gamecfg_t *g)
{
    static const char *const KEY[] = {"playground-shared", "playground-shared-rw",
                                      "playground-files"};
    const char *lists[] = {g->playground_shared, g->playground_shared_rw, g->playground_files};
    for (size_t i = 0; i < 3; i++) {
        if (lists[i][0] && !g->playground[0])
            return fail(ps, "[game %s]: %s needs playground", g->id, KEY[i]);
        for (const char *s = lists[i]; *s; s += strspn(s, " ")) {
            size_t n = strcspn(s, " ");
            for (size_t j = i + 1; j < 3; j++)
                if (names_hold(lists[j], s, n))
                    return fail(ps, "[game %s]: %.*s is in both %s and %s", g->id, (int)n, s,
                                KEY[i], KEY[j]);
            s += n;
        }
    }
    return 0;
}

/* recover's substitutions (as command's: v) and program: an absolute
 * path, with room for the lock file's name; only with a playground. */
static int check_recover(parser_t *ps, const gamecfg_t *g, const cmdline_vars_t *v)
{
    if (!g->playground[0])
        return fail(ps, "[game %s]: recover needs playground (where it looks)", g->id);
    char **argv, msg[160];
    if (cmdline_argv(g->recover, v, &argv, msg, sizeof msg) < 0)
        return fail(ps, "[game %s]: recover: %s", g->id, msg);
    bool abs = argv[0][0] == '/';
    cmdline_free(argv);
    if (!abs)
        return fail(ps, "[game %s]: recover: the program must be an absolute path", g->id);
    return 0;
}

/* A command's and env values' substitutions, with sample values. */
static int check_command(parser_t *ps, const gamecfg_t *g)
{
    cmdline_vars_t v = SAMPLE;
    char rc[CMDLINE_VALUE_MAX];
    v.rc = NULL;
    if (g->rcfile[0] && cmdline_expand(g->rcfile, &SAMPLE, rc, sizeof rc, NULL, 0) >= 0)
        v.rc = rc;
    char **argv, msg[160], out[CMDLINE_VALUE_MAX];
    if (cmdline_argv(g->command, &v, &argv, msg, sizeof msg) < 0)
        return fail(ps, "[game %s]: command: %s", g->id, msg);
    bool abs = argv[0][0] == '/';
    cmdline_free(argv);
    if (!abs)
        return fail(ps, "[game %s]: command: the program must be an absolute path", g->id);
    if (g->recover[0] && check_recover(ps, g, &v) < 0)
        return -1;
    for (int i = 0; i < g->nenv; i++)
        if (cmdline_expand(strchr(g->env[i], '=') + 1, &v, out, sizeof out, msg, sizeof msg) < 0)
            return fail(ps, "[game %s]: env: %s", g->id, msg);
    return 0;
}

/* min-size's and phone-size's defaults; a phone's terminal is not below
 * the program's smallest. */
static int check_sizes(parser_t *ps, gamecfg_t *g)
{
    if (!g->min_size[0])
        g->min_size[0] = GAMECFG_SIZE_MIN_W, g->min_size[1] = GAMECFG_SIZE_MIN_H;
    if (!g->phone_size[0])
        memcpy(g->phone_size, g->min_size, sizeof g->phone_size);
    if (g->phone_size[0] < g->min_size[0] || g->phone_size[1] < g->min_size[1])
        return fail(ps, "[game %s]: phone-size %dx%d is below min-size %dx%d", g->id,
                    g->phone_size[0], g->phone_size[1], g->min_size[0], g->min_size[1]);
    return 0;
}

/* The end of a section: check it, fill defaults, add it to the list. */
static int section_end(parser_t *ps)
{
    gamecfg_t *g = ps->cur;
    if (!g)
        return 0;
    ps->errline = g->line;
    if (!g->command[0])
        return fail(ps, "[game %s]: no command", g->id);
    if (g->rc_default[0] && !g->rcfile[0])
        return fail(ps, "[game %s]: rc-default needs rcfile", g->id);
    if (g->playground[0] && g->network)
        return fail(ps, "[game %s]: playground needs network = none (the box it is mounted in)",
                    g->id);
    if (check_playground_names(ps, g) < 0 || check_xlog_shared(ps, g) < 0 ||
        check_command(ps, g) < 0 || check_sizes(ps, g) < 0)
        return -1;
    if (!g->name[0])
        snprintf(g->name, sizeof g->name, "%s", g->id);
    if (!g->term[0])
        snprintf(g->term, sizeof g->term, "xterm-256color");
    if (!g->hangup_seconds)
        g->hangup_seconds = GAMECFG_HANGUP_S;
    if (!g->start_seconds)
        g->start_seconds = GAMECFG_START_S;
    gamecfg_t *games = realloc(ps->list->games, sizeof *games * (size_t)(ps->list->n + 1));
    if (!games)
        return fail(ps, "out of memory");
    ps->errline = 0;
    games[ps->list->n++] = *g;
    ps->list->games = games;
    free(g);
    ps->cur = NULL;
    return 0;
}

static int section_start(parser_t *ps, char *s, int lineno)
{
    size_t n = strlen(s);
    if (s[n - 1] != ']')
        return fail(ps, "expected [game ID], got \"%s\"", s);
    s[n - 1] = 0;
    char *id = s + 1;
    if (strncmp(id, "game", 4) != 0 || (id[4] != ' ' && id[4] != '\t'))
        return fail(ps, "unknown section [%s] (expected [game ID])", s + 1);
    id += 4;
    id += strspn(id, " \t");
    id[strcspn(id, " \t")] = 0;
    if (!all_of(id, LOWER DIGITS "_-", GAMECFG_ID_MAX))
        return fail(ps, "game id \"%s\": 1 to %d of a-z, 0-9, _ and -", id, GAMECFG_ID_MAX);
    if (gamecfg_find(ps->list, id))
        return fail(ps, "[game %s] given twice", id);
    if (ps->list->n >= GAMECFG_GAMES)
        return fail(ps, "more than %d games", GAMECFG_GAMES);
    if (!(ps->cur = calloc(1, sizeof *ps->cur)))
        return fail(ps, "out of memory");
    snprintf(ps->cur->id, sizeof ps->cur->id, "%s", id);
    ps->cur->line = lineno;
    ps->cur->idle_seconds = -1; /* absent: the daemon's game-idle */
    ps->cur->key_prefix = GAMECFG_PREFIX;
    ps->cur->disk_bytes = (uint64_t)GAMECFG_DISK_MB * MB; /* absent: the caps are on */
    ps->cur->disk_files = GAMECFG_DISK_FILES;
    ps->cur->copy_bytes = (uint64_t)GAMECFG_COPY_MB * MB;
    ps->cur->copy_rate = (uint64_t)GAMECFG_COPY_KBS * 1024;
    ps->seen = 0;
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

static int parse_line(parser_t *ps, char *line, int lineno)
{
    char *hash = strstr(line, " #");
    if (hash)
        *hash = 0;
    char *s = trim(line);
    if (!*s || *s == '#')
        return 0;
    if (*s == '[')
        return section_end(ps) < 0 ? -1 : section_start(ps, s, lineno);
    if (!ps->cur)
        return fail(ps, "a setting outside a [game ID] section");
    char *eq = strchr(s, '=');
    if (!eq)
        return fail(ps, "expected \"key = value\"");
    *eq = 0;
    char *key = trim(s), *val = trim(eq + 1);
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(KEYS[i].key, key) != 0)
            continue;
        if (KEYS[i].kind != K_ENV && (ps->seen & (1u << i)))
            return fail(ps, "%s given twice", key);
        ps->seen |= 1u << i;
        return set_value(ps, &KEYS[i], val);
    }
    return fail(ps, "unknown key \"%s\"", key);
}

int gamecfg_parse(gamecfg_list_t *list, const char *text, size_t len, int first_line, char *err,
                  size_t errlen)
{
    char line[GAMECFG_LINE_MAX + 1], msg[512];
    parser_t ps = {list, NULL, 0, 0, msg, sizeof msg};
    int lineno = first_line - 1, ret = 0, had = list->n;
    for (size_t at = 0; at < len && ret == 0;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = (nl ? (size_t)(nl - text) : len) - at;
        lineno++;
        if (n > GAMECFG_LINE_MAX)
            ret = fail(&ps, "line too long");
        else if (memchr(text + at, 0, n))
            ret = fail(&ps, "NUL byte in the line");
        else {
            memcpy(line, text + at, n);
            line[n] = 0;
            ret = parse_line(&ps, line, lineno);
        }
        at += n + 1;
    }
    if (ret == 0)
        ret = section_end(&ps);
    free(ps.cur);
    if (ret < 0) { /* a file that fails adds no game */
        list->n = had;
        if (!had)
            gamecfg_list_free(list);
        snprintf(err, errlen, "line %d: %s", ps.errline ? ps.errline : lineno, msg);
    }
    return ret;
}

void gamecfg_list_free(gamecfg_list_t *list)
{
    free(list->games);
    list->games = NULL;
    list->n = 0;
}

const gamecfg_t *gamecfg_find(const gamecfg_list_t *list, const char *id)
{
    for (int i = 0; i < list->n; i++)
        if (!strcmp(list->games[i].id, id))
            return &list->games[i];
    return NULL;
}

/* ---- launching ----------------------------------------------------------------- */

static char *env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s=%s", name, value);
    return s;
}

/* TERM, HOME, PATH, then the env lines; a line naming a base variable
 * takes its place. */
static int build_env(const gamecfg_t *g, const cmdline_vars_t *v, char **envp, char *err,
                     size_t errlen)
{
    const char *base[] = {g->term, v->dir, BASE_PATH};
    int n = 0;
    for (size_t i = 0; i < 3; i++)
        if (!(envp[n++] = env_entry(BASE_ENV[i], base[i])))
            goto oom;
    char val[CMDLINE_VALUE_MAX];
    for (int i = 0; i < g->nenv; i++) {
        const char *eq = strchr(g->env[i], '=');
        if (cmdline_expand(eq + 1, v, val, sizeof val, err, errlen) < 0)
            return -1;
        int at = n;
        for (int j = 0; j < 3; j++)
            if (!strncmp(g->env[i], BASE_ENV[j], (size_t)(eq - g->env[i])) &&
                !BASE_ENV[j][eq - g->env[i]])
                at = j;
        char name[GAMECFG_TEXT];
        snprintf(name, sizeof name, "%.*s", (int)(eq - g->env[i]), g->env[i]);
        free(envp[at]);
        if (!(envp[at] = env_entry(name, val)))
            goto oom;
        if (at == n)
            n++;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

const char *gamecfg_rc_name(const gamecfg_t *g)
{
    return g->rcfile[0] ? g->rcfile + 3 : NULL; /* after "%d/" (check_rcfile) */
}

int gamecfg_rc_check(const char *text, size_t len, char *err, size_t errlen)
{
    if (len > GAMECFG_RC_MAX)
        return snprintf(err, errlen, "the file is larger than %d bytes", GAMECFG_RC_MAX), -1;
    if (len && memchr(text, 0, len)) /* a line would end at it and lose the rest */
        return snprintf(err, errlen, "the file holds a NUL byte, which no rc file has"), -1;
    int lines = 0;
    for (size_t at = 0; at < len; lines++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - text - at) : len - at;
        size_t keep = n && text[at + n - 1] == '\r' ? n - 1 : n;
        if (keep > GAMECFG_RC_LINE_MAX || lines >= GAMECFG_RC_LINES)
            return snprintf(err, errlen,
                            "line %d: the file may have lines of at most %d bytes and at most "
                            "%d lines",
                            lines + 1, GAMECFG_RC_LINE_MAX, GAMECFG_RC_LINES),
                   -1;
        at += n + 1;
    }
    return 0;
}

const char *gamecfg_xlog_own(const gamecfg_t *g)
{
    return !strncmp(g->xlogfile, "%d/", 3) ? g->xlogfile + 3 : NULL; /* check_xlogfile */
}

int gamecfg_launch(const gamecfg_t *g, const char *name, const char *game, const char *dir,
                   gamecfg_launch_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (strlen(dir) > GAMECFG_DIR_MAX) {
        snprintf(err, errlen, "%%d: longer than %d bytes", GAMECFG_DIR_MAX);
        return -1;
    }
    cmdline_vars_t v = {name, dir, NULL, game};
    const cmdline_vars_t for_rc = {NULL, dir, NULL, game};
    char rc[CMDLINE_VALUE_MAX];
    /* every value is checked even when the command uses none */
    if (cmdline_expand("%u %n %d", &v, rc, sizeof rc, err, errlen) < 0)
        return -1;
    if (g->rcfile[0] && cmdline_expand(g->rcfile, &for_rc, rc, sizeof rc, err, errlen) < 0)
        return -1;
    if (g->rcfile[0] && !(v.rc = out->rcfile = strdup(rc)))
        goto oom;
    if (cmdline_argv(g->command, &v, &out->argv, err, errlen) < 0)
        goto fail;
    if (g->recover[0] && cmdline_argv(g->recover, &v, &out->recover, err, errlen) < 0)
        goto fail;
    if (!(out->envp = calloc(3 + GAMECFG_ENV_MAX + 1, sizeof *out->envp)))
        goto oom;
    if (build_env(g, &v, out->envp, err, errlen) < 0)
        goto fail;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    gamecfg_launch_free(out);
    return -1;
}

void gamecfg_launch_free(gamecfg_launch_t *l)
{
    cmdline_free(l->argv);
    cmdline_free(l->envp);
    cmdline_free(l->recover);
    free(l->rcfile);
    memset(l, 0, sizeof *l);
}
