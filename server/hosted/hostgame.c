/* hostgame — a terminal program as a session's game (hostgame.h). */
#include "hostgame.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "backend.h"
#include "hostrec.h"
#include "log.h"
#include "server.h"
#include "session_impl.h"
#include "xlog.h"

typedef struct {
    const gamecfg_t *cfg; /* borrowed from the server's config */
    ptyproc_t *proc;
    screen_t *tmp;   /* the program's screen, for a viewer of another size */
    bool stopping;   /* hung up without an end: the session goes on exit */
    int64_t started; /* Unix seconds: xlog rows before this are others' */
    hostrec_t *rec;  /* the recording; NULL when off */
} hostgame_t;

/* ---- keys ------------------------------------------------------------------------ */

/* xterm's sequences for the named keys, in KEY_LIST order. */
static const char *const NAMED[] = {
    "\033[A",   "\033[B",   "\033[D",   "\033[C",   "\033[H",   "\033[F",   "\033[5~",  "\033[6~",
    "\033[2~",  "\033[3~",  "\033[E",   "\033OP",   "\033OQ",   "\033OR",   "\033OS",   "\033[15~",
    "\033[17~", "\033[18~", "\033[19~", "\033[20~", "\033[21~", "\033[23~", "\033[24~",
};

void hostgame_key_bytes(key_event_t k, buf_t *out)
{
    if (k.mods & KEYMOD_ALT)
        buf_putc(out, '\033'); /* Meta sends Esc first */
    if (k.code >= KEY_BASE) {
        size_t i = k.code - KEY_BASE;
        if (i < sizeof NAMED / sizeof NAMED[0])
            buf_puts(out, NAMED[i]);
        return;
    }
    uint32_t cp = k.code;
    if ((k.mods & KEYMOD_CTRL) && cp >= '@' && cp < 0x80)
        cp &= 0x1F;
    buf_put_utf8(out, cp);
}

/* ---- the backend ------------------------------------------------------------------- */

static hostgame_t *hg_of(const session_t *s)
{
    return s->bk;
}

static void pty_key(conn_t *c, session_t *s, key_event_t k)
{
    buf_t *b = &s->srv->scratch;
    (void)c;
    buf_reset(b);
    hostgame_key_bytes(k, b);
    if (b->len && !b->failed)
        ptyproc_write(hg_of(s)->proc, b->data, b->len);
    session_keyed(s);
}

static void pty_resize(session_t *s, int w, int h)
{
    if (w < VTGRID_MIN_W)
        return;
    int ow, oh;
    vtgrid_size(ptyproc_grid(hg_of(s)->proc), &ow, &oh);
    if (ptyproc_resize(hg_of(s)->proc, w, h) == 0 && (ow != w || oh != h))
        hostrec_resize(hg_of(s)->rec, w, h);
}

static void pty_draw(const session_t *s, screen_t *scr, const game_view_t *v)
{
    hostgame_t *hg = hg_of(s);
    vtgrid_t *g = ptyproc_grid(hg->proc);
    int w, h;
    (void)v;
    vtgrid_size(g, &w, &h);
    if (scr->w == w && scr->h == h) {
        vtgrid_sync(g, scr, true);
        return;
    }
    if (!hg->tmp && !(hg->tmp = screen_new(w, h)))
        return;
    vtgrid_sync(g, hg->tmp, true);
    screen_blit(scr, hg->tmp);
}

/* The program saves itself when hung up; this logs what it wrote so far. */
static void pty_save(session_t *s, const char *why)
{
    hostrec_flush(hg_of(s)->rec);
    ptyproc_stats_t st;
    ptyproc_stats(hg_of(s)->proc, &st);
    log_info("hosted %s user=%s game=%s bytes_out=%llu bytes_in=%llu dropped=%llu", why, s->user,
             s->kind, (unsigned long long)st.bytes_out, (unsigned long long)st.bytes_in,
             (unsigned long long)st.bytes_dropped);
}

static bool pty_stop(session_t *s)
{
    hostgame_t *hg = hg_of(s);
    if (!ptyproc_running(hg->proc))
        return false;
    hg->stopping = true;
    session_mark_ended(s); /* no longer anyone's live game */
    log_info("hangup user=%s game=%s pid=%d", s->user, s->kind, (int)ptyproc_pid(hg->proc));
    ptyproc_hangup(hg->proc);
    return true;
}

/* The newest row of this player since the program started, if any. */
static bool xlog_last(const hostgame_t *hg, const char *user, xlog_row_t *out)
{
    FILE *f = hg->cfg->xlogfile[0] ? fopen(hg->cfg->xlogfile, "r") : NULL;
    if (!f)
        return false;
    char line[4096], err[100];
    bool found = false;
    xlog_row_t row;
    while (fgets(line, sizeof line, f))
        if (xlog_parse(line, strlen(line), &row, err, sizeof err) == 0 &&
            strcmp(row.name, user) == 0 && row.endtime >= hg->started - 1) {
            *out = row;
            found = true;
        }
    fclose(f);
    return found;
}

static struct gameover *pty_finish(session_t *s, char *msg, size_t n)
{
    hostgame_t *hg = hg_of(s);
    xlog_row_t row;
    if (xlog_last(hg, s->user, &row)) {
        db_hosted_score_t r = {s->user_id, s->kind,      row.name,      row.role,   row.race,
                               row.gender, row.align,    row.death,     row.maxlvl, row.points,
                               row.turns,  row.realtime, row.starttime, row.endtime};
        if (hg->rec)
            hostrec_end(hg->rec, &r);
        else
            db_hosted_score_add(s->srv->db, &r, NULL, NULL);
        log_info("game end user=%s game=%s kind=xlog turns=%lld score=%lld cause=\"%s\"", s->user,
                 s->kind, (long long)row.turns, (long long)row.points, row.death);
        snprintf(msg, n, "%s is over: %s. %lld points after %lld turns.", s->kind_name, row.death,
                 (long long)row.points, (long long)row.turns);
        return NULL; /* the message says it: no end screen of Warren's */
    }
    if (hg->rec)
        hostrec_end(hg->rec, NULL);
    log_info("game end user=%s game=%s: the program exited", s->user, s->kind);
    snprintf(msg, n, "%s has ended.", s->kind_name);
    return NULL;
}

static void pty_free(session_t *s)
{
    hostgame_t *hg = hg_of(s);
    hostrec_close(hg->rec);
    ptyproc_close(hg->proc);
    screen_free(hg->tmp);
    free(hg);
}

const backend_ops_t backend_pty = {
    .kind = "pty",
    .key = pty_key,
    .resize = pty_resize,
    .draw = pty_draw,
    .save = pty_save,
    .stop = pty_stop,
    .finish = pty_finish,
    .free = pty_free,
};

/* ---- the program's events ------------------------------------------------------------ */

static void on_output(ptyproc_t *p, const char *bytes, size_t len, void *user)
{
    session_t *s = user;
    (void)p;
    hostrec_output(hg_of(s)->rec, bytes, len);
    session_output(s);
}

static void on_exited(ptyproc_t *p, int status, void *user)
{
    session_t *s = user;
    hostgame_t *hg = hg_of(s);
    log_info("program exited user=%s game=%s pid=%d status=%d", s->user, s->kind,
             (int)ptyproc_pid(p), status);
    if (hg->stopping)
        session_free(s);
    else
        session_finish(s);
}

/* ---- starting -------------------------------------------------------------------------- */

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int r = mkdir(path, 0750);
        *p = '/';
        if (r < 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0750) < 0 && errno != EEXIST ? -1 : 0;
}

/* <games-dir>/<id>/<name>; games-dir defaults to the database's dir/games. */
static int player_dir(const server_t *srv, const gamecfg_t *g, const char *user, char *out,
                      size_t n)
{
    char base[256];
    if (srv->cfg.games_dir[0])
        snprintf(base, sizeof base, "%s", srv->cfg.games_dir);
    else {
        const char *slash = strrchr(srv->cfg.db, '/');
        int len = slash ? (int)(slash - srv->cfg.db) : 1;
        snprintf(base, sizeof base, "%.*s/games", len, slash ? srv->cfg.db : ".");
    }
    char *abs = realpath(base, NULL);
    int w = snprintf(out, n, "%s/%s/%s", abs ? abs : base, g->id, user);
    free(abs);
    if (w < 0 || (size_t)w >= n || out[0] != '/')
        return -1;
    return mkdirs(out);
}

/* The rc default becomes the player's rc file the first time. */
static void rc_first_copy(const gamecfg_t *g, const char *rcfile)
{
    if (!rcfile || !g->rc_default[0] || access(rcfile, F_OK) == 0)
        return;
    FILE *in = fopen(g->rc_default, "rb"), *out = in ? fopen(rcfile, "wb") : NULL;
    char b[4096];
    for (size_t n; out && (n = fread(b, 1, sizeof b, in)) > 0;)
        fwrite(b, 1, n, out);
    if (out)
        fclose(out);
    if (in)
        fclose(in);
}

/* ---- rc files ---------------------------------------------------------------------------- */

/* The switch to g's user, when warrend can make it: true with *u. */
static bool game_owner(const gamecfg_t *g, ptyproc_user_t *u, char *err, size_t n)
{
    return g->user[0] && geteuid() == 0 && ptyproc_user_lookup(g->user, u, err, n) == 0;
}

/* The player's rc file path into path (the directory made, the default
 * copied when the file is missing). */
static int rc_path(const server_t *srv, const gamecfg_t *g, const char *user, char *path,
                   size_t size, char *err, size_t n)
{
    char dir[GAMECFG_DIR_MAX + 1];
    if (!g->rcfile[0]) {
        snprintf(err, n, "%s has no rc file", g->name);
        return -1;
    }
    if (player_dir(srv, g, user, dir, sizeof dir) < 0) {
        snprintf(err, n, "cannot make the player's directory: %s", strerror(errno));
        return -1;
    }
    gamecfg_launch_t l;
    if (gamecfg_launch(g, user, dir, 80, 24, &l, err, n) < 0)
        return -1;
    int w = snprintf(path, size, "%s", l.rcfile ? l.rcfile : "");
    rc_first_copy(g, l.rcfile);
    gamecfg_launch_free(&l);
    if (w <= 0 || (size_t)w >= size) {
        snprintf(err, n, "the rc file's path is too long");
        return -1;
    }
    ptyproc_user_t u;
    if (game_owner(g, &u, err, n) && (chown(dir, u.uid, u.gid) < 0 || chown(path, u.uid, u.gid)))
        log_error("chown %s: %s", path, strerror(errno));
    return 0;
}

int hostgame_rc_load(server_t *srv, const gamecfg_t *g, const char *user, buf_t *out, char *err,
                     size_t n)
{
    char path[GAMECFG_TEXT + GAMECFG_DIR_MAX];
    if (rc_path(srv, g, user, path, sizeof path, err, n) < 0)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f && errno == ENOENT)
        return 0; /* no default: an empty file to begin with */
    char b[HOSTGAME_RC_MAX + 1];
    size_t got = f ? fread(b, 1, sizeof b, f) : 0;
    bool bad = !f || ferror(f);
    if (f)
        fclose(f);
    if (bad || got > HOSTGAME_RC_MAX) {
        snprintf(err, n, bad ? "cannot read the rc file" : "the rc file is larger than %d bytes",
                 HOSTGAME_RC_MAX);
        return -1;
    }
    buf_put(out, b, got);
    return out->failed ? (snprintf(err, n, "out of memory"), -1) : 0;
}

int hostgame_rc_save(server_t *srv, const gamecfg_t *g, const char *user, const char *text,
                     size_t len, char *err, size_t n)
{
    char path[GAMECFG_TEXT + GAMECFG_DIR_MAX], tmp[sizeof path + 8];
    if (len > HOSTGAME_RC_MAX || memchr(text, 0, len)) {
        snprintf(err, n,
                 len > HOSTGAME_RC_MAX ? "the rc file may have at most %d bytes"
                                       : "the rc file may not hold NUL bytes",
                 HOSTGAME_RC_MAX);
        return -1;
    }
    if (rc_path(srv, g, user, path, sizeof path, err, n) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "wb"); /* then renamed: a crash leaves the old file or the new */
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    ptyproc_user_t u;
    if (ok && game_owner(g, &u, err, n) && chown(tmp, u.uid, u.gid) < 0)
        ok = false;
    if (!ok || rename(tmp, path) < 0) {
        snprintf(err, n, "cannot write the rc file: %s", strerror(errno));
        unlink(tmp);
        return -1;
    }
    log_info("rc file saved user=%s game=%s bytes=%zu", user, g->id, len);
    return 0;
}

static int hostgame_spawn(session_t *s, hostgame_t *hg, const conn_t *c, char *err, size_t n)
{
    char dir[GAMECFG_DIR_MAX + 1];
    if (player_dir(s->srv, hg->cfg, s->user, dir, sizeof dir) < 0) {
        snprintf(err, n, "cannot make the player's directory: %s", strerror(errno));
        return -1;
    }
    gamecfg_launch_t l;
    if (gamecfg_launch(hg->cfg, s->user, dir, c->w, c->h, &l, err, n) < 0)
        return -1;
    rc_first_copy(hg->cfg, l.rcfile);
    ptyproc_user_t u;
    if (hg->cfg->user[0] && geteuid() == 0) {
        if (ptyproc_user_lookup(hg->cfg->user, &u, err, n) < 0) {
            gamecfg_launch_free(&l);
            return -1;
        }
        if (chown(dir, u.uid, u.gid) < 0 || (l.rcfile && chown(l.rcfile, u.uid, u.gid) < 0))
            log_error("chown %s: %s", dir, strerror(errno));
        l.opts.user = &u;
    }
    ptyproc_cbs_t cbs = {on_output, on_exited};
    int r = ptyproc_spawn(s->srv->loop, &l.opts, &cbs, s, &hg->proc, err, n);
    gamecfg_launch_free(&l);
    return r;
}

void hostgame_play(conn_t *c, const gamecfg_t *g)
{
    server_t *srv = c->srv;
    session_t *s = session_find_kind(srv, c->user_id, g->id);
    if (s) {
        session_attach_player(s, c);
        return;
    }
    char err[256] = "out of memory";
    hostgame_t *hg = calloc(1, sizeof *hg);
    s = hg ? session_new(srv, 0, c->user_id, c->user, NULL, 0) : NULL;
    if (!s) {
        free(hg);
        menu_enter(c, "The game cannot start now.");
        return;
    }
    hg->cfg = g;
    hg->started = (int64_t)time(NULL);
    s->ops = &backend_pty;
    s->bk = hg;
    snprintf(s->kind, sizeof s->kind, "%s", g->id);
    snprintf(s->kind_name, sizeof s->kind_name, "%s", g->name);
    if (hostgame_spawn(s, hg, c, err, sizeof err) < 0) {
        log_error("cannot start game=%s user=%s: %s", g->id, c->user, err);
        session_free(s);
        menu_enter(c, "The game cannot start now; the admins can see why in the log.");
        return;
    }
    session_set_game_id(s, -(int64_t)ptyproc_pid(hg->proc)); /* live only: never a games row */
    ptyproc_set_output_rate(hg->proc, (uint64_t)srv->cfg.hosted_output_rate);
    s->key_prefix = g->key_prefix; /* Warren's keys behind it: the program gets the rest */
    int w, h;
    vtgrid_size(ptyproc_grid(hg->proc), &w, &h);
    hg->rec = hostrec_open(srv, c->user_id, g->id, w, h); /* before any output is read */
    int idle = g->idle_seconds >= 0 ? g->idle_seconds : srv->cfg.game_idle;
    s->idle_limit_ms = (uint64_t)idle * 1000;
    log_info("hosted start user=%s game=%s pid=%d", c->user, g->id, (int)ptyproc_pid(hg->proc));
    session_attach_player(s, c);
}
