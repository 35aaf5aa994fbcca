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
#include "db_hosted.h"
#include "hostcap.h"
#include "hostcopy.h"
#include "hostrec.h"
#include "lease.h"
#include "ptyproc.h"
#include "log.h"
#include "moderation.h"
#include "logcap.h"
#include "server.h"
#include "session_impl.h"
#include "siteinfo.h"
#include "spawner.h"
#include "statuspat.h"
#include "xlog.h"

/* A per-player xlogfile's read: the session it is for, NULL once that
 * is gone (pty_free). */
struct xlog_call {
    session_t *s;
};

typedef struct {
    const gamecfg_t *cfg; /* borrowed from the server's config */
    ptyproc_t *proc;
    screen_t *tmp;    /* the program's screen, for a viewer of another size */
    bool stopping;    /* hung up without an end: the session goes on exit */
    bool failed;      /* the program could not start: the session ends, saying so */
    bool drew;        /* the program wrote to its terminal (until then: "Starting") */
    int64_t started;  /* Unix seconds: xlog rows before this are others' */
    hostrec_t *rec;   /* the recording; NULL when off */
    hostcopy_t *copy; /* its files kept in a shared database (hostcopy.h); NULL: not */
    /* the account's game name (%u): its directory, its xlog rows */
    char game_name[32];
    /* a per-player xlogfile's newest rows, read by the spawner once the
     * program exited (xlog_own_read): owned; NULL when none was read */
    char *own_rows;
    size_t own_len;
    struct xlog_call *xcall; /* the read under way, or NULL */
    /* its charge against hosted-max and hosted-per-ip (hostcap.h) */
    budget_slot_t cap;
    /* the section's status pattern (NULL: none) and what it last read
     * off the program's screen when frame status_seq - 1 was the last
     * sent (0: none read) */
    statuspat_t *pat;
    uint64_t status_seq, turn;
    int depth;
    /* whether a game began: not yet (a status pattern, no screen matched
     * yet), yes, or unknown (no pattern, or BEGAN_CHECKS screens did not);
     * screen_read writes it */
    uint8_t began;
    uint16_t began_checks;
} hostgame_t;

enum { BEGAN_NOT_YET, BEGAN_YES, BEGAN_UNKNOWN };
#define BEGAN_CHECKS 4000 /* screens looked at for a game's start, at most */

/* ---- keys ------------------------------------------------------------------------ */

/* xterm's sequences for the named keys, in KEY_LIST order. */
static const char *const NAMED[] = {
    "\033[A",   "\033[B",   "\033[D",   "\033[C",   "\033[H",   "\033[F",   "\033[5~",  "\033[6~",
    "\033[2~",  "\033[3~",  "\033[E",   "\033OP",   "\033OQ",   "\033OR",   "\033OS",   "\033[15~",
    "\033[17~", "\033[18~", "\033[19~", "\033[20~", "\033[21~", "\033[23~", "\033[24~",
};

static void key_bytes(key_event_t k, buf_t *out)
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
    key_bytes(k, b);
    if (b->len && !b->failed)
        ptyproc_write(hg_of(s)->proc, b->data, b->len);
    session_keyed(s);
}

/* A terminal program is never given a size below its section's
 * min-size, 80x24 at least (Crawl aborts, NetHack's tty draws over
 * itself): a smaller terminal's player is told to enlarge it
 * (conn_small) while the program keeps that size or more. */
static void program_size(const gamecfg_t *g, int *w, int *h)
{
    if (*w < g->min_size[0])
        *w = g->min_size[0];
    if (*h < g->min_size[1])
        *h = g->min_size[1];
}

static void pty_resize(session_t *s, int w, int h)
{
    program_size(hg_of(s)->cfg, &w, &h);
    int ow, oh;
    vtgrid_size(ptyproc_grid(hg_of(s)->proc), &ow, &oh);
    if (ptyproc_resize(hg_of(s)->proc, w, h) == 0 && (ow != w || oh != h))
        hostrec_resize(hg_of(s)->rec, w, h);
}

static void pty_draw(const session_t *s, screen_t *scr, const session_view_t *v)
{
    hostgame_t *hg = hg_of(s);
    vtgrid_t *g = ptyproc_grid(hg->proc);
    int w, h;
    (void)v;
    /* the spawner forks and execs it meanwhile; then it loads (Crawl: seconds) */
    if (ptyproc_starting(hg->proc) || (!hg->drew && ptyproc_running(hg->proc))) {
        screen_clear(scr);
        screen_textf(scr, 0, 0, STYLE_DEFAULT, "Starting %s...", s->kind_name);
        return;
    }
    vtgrid_size(g, &w, &h);
    if (scr->w == w && scr->h == h) {
        vtgrid_sync(g, scr, false); /* the rows that changed (vtgrid.h) */
        return;
    }
    if (!hg->tmp && !(hg->tmp = screen_new(w, h)))
        return;
    vtgrid_sync(g, hg->tmp, false);
    screen_blit(scr, hg->tmp);
}

/* The program saves itself when hung up; this logs what it wrote so far
 * (a player leaving, as often as they like, under the log's cap: a few
 * times in a window per account). */
static void pty_save(session_t *s, const char *why)
{
    static const logcap_kind_t say_detach = {"hosted detach", 10, 1000};
    hostrec_flush(hg_of(s)->rec);
    ptyproc_stats_t st;
    ptyproc_stats(hg_of(s)->proc, &st);
    char line[256];
    snprintf(line, sizeof line,
             "hosted %s user=%s game=%s bytes_out=%llu bytes_in=%llu dropped=%llu", why, s->user,
             s->kind, (unsigned long long)st.bytes_out, (unsigned long long)st.bytes_in,
             (unsigned long long)st.bytes_dropped);
    if (strcmp(why, "detach") == 0)
        logcap_say(s->srv->strangers, now_ms(s->srv), LOG_INFO, &say_detach, s->user, "%s", line);
    else
        log_info("%s", line);
}

static bool pty_stop(session_t *s)
{
    hostgame_t *hg = hg_of(s);
    if (!ptyproc_running(hg->proc) && !ptyproc_starting(hg->proc))
        return false;
    hg->stopping = true;   /* a start in flight is hung up once it runs */
    session_mark_ended(s); /* no longer anyone's live game */
    log_info("hangup user=%s game=%s pid=%d", s->user, s->kind, (int)ptyproc_pid(hg->proc));
    ptyproc_hangup(hg->proc);
    return true;
}

/* The xlogfile's newest rows: its last XLOG_TAIL bytes at most. The file
 * lies where the games' user writes, so it may be anything: a link, a
 * FIFO that would block the loop, a huge file. Returns the bytes read
 * into buf (from a line's start), or -1. */
#define XLOG_TAIL (64 * 1024)
static ssize_t xlog_tail(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno != ENOENT)
        log_warn("xlogfile %s: %s: not read", path, errno == ELOOP ? "a link" : strerror(errno));
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        log_warn("xlogfile %s is not a regular file: not read", path);
        close(fd);
        return -1;
    }
    off_t at = st.st_size > (off_t)cap ? st.st_size - (off_t)cap : 0;
    ssize_t n = pread(fd, buf, cap, at);
    close(fd);
    if (n <= 0)
        return n;
    if (at > 0) { /* the first line is cut: it starts after its newline */
        char *nl = memchr(buf, '\n', (size_t)n);
        size_t skip = nl ? (size_t)(nl - buf) + 1 : (size_t)n;
        memmove(buf, buf + skip, (size_t)n - skip);
        n -= (ssize_t)skip;
    }
    return n;
}

/* The newest row of this player since the program started, if any;
 * *readable says whether the xlogfile could be read at all. */
static bool xlog_last(const hostgame_t *hg, const char *user, xlog_row_t *out, bool *readable)
{
    bool own = gamecfg_xlog_own(hg->cfg);
    char *buf = !own && hg->cfg->xlogfile[0] ? malloc(XLOG_TAIL) : NULL;
    ssize_t n = buf ? xlog_tail(hg->cfg->xlogfile, buf, XLOG_TAIL) : -1;
    if (own && hg->own_rows && (buf = malloc(hg->own_len + 1))) {
        memcpy(buf, hg->own_rows, hg->own_len);
        n = (ssize_t)hg->own_len;
    }
    *readable = n >= 0;
    char err[100];
    bool found = false;
    xlog_row_t row;
    for (size_t at = 0; n > 0 && at < (size_t)n;) {
        const char *nl = memchr(buf + at, '\n', (size_t)n - at);
        size_t len = (nl ? (size_t)(nl - buf) : (size_t)n) - at;
        if (xlog_parse(buf + at, len, &row, err, sizeof err) == 0 && strcmp(row.name, user) == 0 &&
            row.endtime >= hg->started - 1) {
            *out = row;
            found = true;
        }
        at += len + 1;
    }
    free(buf);
    return found;
}

/* " Its page: URL/hosted/ID" for the end line, "" without a site or row. */
static void page_line(const session_t *s, char *out, size_t n)
{
    char url[200];
    int64_t id = hostrec_id(hg_of(s)->rec);
    siteinfo_url(&s->srv->cfg, url, sizeof url);
    out[0] = 0;
    if (url[0] && id > 0)
        snprintf(out, n, "\nIts page: %s/hosted/%lld", url, (long long)id);
}

/* The program exited with no row in an xlogfile it could read: the game
 * did not end (NetHack writes a row for every death, win and quit), it
 * was saved, unless it never began. Without an xlogfile nothing says
 * which. */
static void exited_line(const session_t *s, bool xlog_read, char *msg, size_t n)
{
    if (hg_of(s)->began == BEGAN_NOT_YET)
        snprintf(msg, n, "%s ended before a game began.", s->kind_name);
    else if (xlog_read)
        snprintf(msg, n, "%s was saved: choose it again to go on.", s->kind_name);
    else
        snprintf(msg, n, "%s has ended.", s->kind_name);
}

/* Its files were too large to keep a copy of for another server. */
static void copy_over_line(const hostgame_t *hg, char *msg, size_t n)
{
    size_t len = strlen(msg);
    if (hostcopy_over(hg->copy) && len < n)
        snprintf(msg + len, n - len,
                 " Your files for it are over %llu MB, so no other server can go on with it.",
                 (unsigned long long)(hg->cfg->copy_bytes >> 20));
}

static bool pty_finish(session_t *s, session_end_t *end, char *msg, size_t n)
{
    hostgame_t *hg = hg_of(s);
    xlog_row_t row;
    char page[240];
    bool xlog_read;
    (void)end;
    if (hg->failed) { /* its player is in the menu already, told */
        snprintf(msg, n, "%s could not start.", s->kind_name);
        return false;
    }
    page_line(s, page, sizeof page);
    if (xlog_last(hg, hg->game_name, &row, &xlog_read)) {
        db_hosted_score_t r = {s->user_id, s->kind,      row.name,      row.role,   row.race,
                               row.gender, row.align,    row.death,     row.maxlvl, row.points,
                               row.turns,  row.realtime, row.starttime, row.endtime};
        if (hg->rec)
            hostrec_end(hg->rec, &r);
        else
            db_hosted_score_add(s->srv->db, &r, NULL, NULL);
        log_info("game end user=%s game=%s kind=xlog turns=%lld score=%lld cause=\"%s\"", s->user,
                 s->kind, (long long)row.turns, (long long)row.points, row.death);
        snprintf(msg, n, "%s is over: %s. %lld points after %lld turns.%s", s->kind_name, row.death,
                 (long long)row.points, (long long)row.turns, page);
        return false; /* the message says it: no end screen of Warren's */
    }
    if (hg->rec)
        hostrec_end(hg->rec, NULL);
    log_info("game end user=%s game=%s: the program exited", s->user, s->kind);
    exited_line(s, xlog_read, msg, n);
    copy_over_line(hg, msg, n);
    return false;
}

/* The status pattern over the program's own screen (libvterm's grid: not
 * the frame sent, which has the chat strip any watcher writes in over
 * it): the depth and turn it finds, and whether a game began. Until the
 * pattern first matches, the program's own screens are up (NetHack's
 * "Shall I pick", Crawl's species): a game that ends then was never
 * begun, so it cannot have been saved. */
static void screen_read(hostgame_t *hg)
{
    buf_t b; /* not the scratch buffer: a caller of another loop may hold it */
    buf_init(&b);
    vtgrid_text(ptyproc_grid(hg->proc), &b);
    bool matched = !b.failed && statuspat_match(hg->pat, b.data, b.len, &hg->depth, &hg->turn);
    buf_free(&b);
    if (hg->began != BEGAN_NOT_YET)
        return;
    if (matched)
        hg->began = BEGAN_YES;
    else if (++hg->began_checks >= BEGAN_CHECKS)
        hg->began = BEGAN_UNKNOWN;
}

/* screen_read at most once per frame sent. */
static void frame_read(const session_t *s, hostgame_t *hg)
{
    if (!hg->pat || hg->status_seq == s->frame_seq + 1)
        return;
    hg->status_seq = s->frame_seq + 1;
    screen_read(hg);
}

/* Depth and turn as the status pattern finds them on the program's screen
 * (frame_read: read again only when a frame went out since); the race and
 * class stay unknown, so this says false. */
static bool pty_status(const session_t *s, session_status_t *st)
{
    hostgame_t *hg = hg_of(s);
    frame_read(s, hg);
    st->depth = hg->depth;
    st->turn = hg->turn;
    st->hosted_id = hostrec_id(hg->rec);
    return false;
}

static void pty_free(session_t *s)
{
    hostgame_t *hg = hg_of(s);
    if (hg->xcall) /* its answer finds no session */
        hg->xcall->s = NULL;
    free(hg->own_rows);
    statuspat_free(hg->pat);
    hostrec_close(hg->rec);
    hostcap_release(s->srv, &hg->cap);
    hostcopy_end(hg->copy); /* a last copy: the program ended (or is hung up) */
    ptyproc_close(hg->proc);
    screen_free(hg->tmp);
    free(hg);
}

static bool pty_hosted(const session_t *s)
{
    (void)s;
    return true;
}

static const backend_ops_t backend_pty = {
    .kind = "pty",
    .key = pty_key,
    .resize = pty_resize,
    .draw = pty_draw,
    .save = pty_save,
    .stop = pty_stop,
    .status = pty_status,
    .hosted = pty_hosted,
    .finish = pty_finish,
    .free = pty_free,
};

/* ---- the program's events ------------------------------------------------------------ */

static void on_output(ptyproc_t *p, const char *bytes, size_t len, void *user)
{
    session_t *s = user;
    (void)p;
    hostgame_t *hg = hg_of(s);
    if (hg->began == BEGAN_NOT_YET) /* each screen until one shows the game on */
        screen_read(hg);
    hg->drew = true;
    hostrec_output(hg->rec, bytes, len);
    hostcopy_changed(hg->copy);
    session_output(s);
}

static void on_own_rows(const char *text, size_t len, const char *err, void *user)
{
    struct xlog_call *call = user;
    session_t *s = call->s;
    free(call);
    if (!s)
        return;
    hostgame_t *hg = hg_of(s);
    hg->xcall = NULL;
    if (err)
        log_warn("xlogfile of user=%s game=%s: %s", s->user, s->kind, err);
    else if ((hg->own_rows = malloc(len + 1))) {
        memcpy(hg->own_rows, text, len);
        hg->own_len = len;
    }
    session_finish(s);
}

/* The program's own xlogfile is read by the spawner, as its user: the
 * session finishes on the answer. false when no read could be asked. */
static bool xlog_own_read(session_t *s, hostgame_t *hg)
{
    char err[200];
    struct xlog_call *call = malloc(sizeof *call);
    if (!call)
        return false;
    call->s = s;
    if (spawner_xlog_read(s->srv->spawner, hg->cfg->id, hg->game_name, on_own_rows, call, err,
                          sizeof err) < 0) {
        log_warn("xlogfile of user=%s game=%s: %s", s->user, s->kind, err);
        free(call);
        return false;
    }
    hg->xcall = call;
    return true;
}

static void on_exited(ptyproc_t *p, int status, void *user)
{
    session_t *s = user;
    hostgame_t *hg = hg_of(s);
    log_info("program exited user=%s game=%s pid=%d status=%d", s->user, s->kind,
             (int)ptyproc_pid(p), status);
    if (hg->stopping)
        session_free(s);
    else if (!gamecfg_xlog_own(hg->cfg) || !xlog_own_read(s, hg))
        session_finish(s);
}

#define CANNOT_START "The game cannot start now; the admins can see why in the log."
#define LATE_START   "The game did not start in time; the admins can see why in the log."
#define DISK_HELP    "It can start again once they fit: an admin can help."

/* The player is back in the menu, told why (as when the start is refused
 * at once; lines of it on a screen of their own); watchers are told the
 * game ended. */
static void start_failed(session_t *s, const char *why)
{
    conn_t *p = s->player;
    if (p) {
        p->sess = NULL;
        s->player = NULL;
    }
    hg_of(s)->failed = true;
    session_finish(s);
    if (p && !p->closing && strchr(why, '\n'))
        conn_message(p, why);
    else if (p && !p->closing)
        conn_menu(p, why);
}

/* The spawner refused the start: the player's files are over the disk
 * cap, by how much (SPAWNER_DISK_OVER's sentence). */
static void disk_refused(session_t *s, const char *how)
{
    char say[600];
    log_warn("hosted start refused user=%s game=%s: over its disk cap: %s", s->user, s->kind, how);
    snprintf(say, sizeof say, "%s cannot start: your files for it are over its cap.\n%s.\n%s",
             s->kind_name, how, DISK_HELP);
    start_failed(s, say);
}

/* The spawner's answer: the game runs (its id, its rate, its recording),
 * or the player is back in the menu, told. */
static void on_started(ptyproc_t *p, const char *err, void *user)
{
    session_t *s = user;
    hostgame_t *hg = hg_of(s);
    size_t over = strlen(SPAWNER_DISK_OVER);
    if (err && !strncmp(err, SPAWNER_DISK_OVER, over)) {
        disk_refused(s, err + over);
        return;
    }
    if (err) {
        log_error("cannot start game=%s user=%s: %s", s->kind, s->user, err);
        start_failed(s, strcmp(err, SPAWNER_LATE) ? CANNOT_START : LATE_START);
        return;
    }
    if (hg->stopping) /* left while it started: hung up now, it goes on exit */
        return;
    ptyproc_set_output_rate(p, (uint64_t)s->srv->cfg.hosted_output_rate);
    int w, h;
    vtgrid_size(ptyproc_grid(p), &w, &h);
    hg->rec = hostrec_open(s->srv, s->user_id, s->kind, w, h); /* before any output is read */
    hg->copy = hostcopy_new(s->srv, s->game_id, s->user_id, s->user, hg->cfg, hg->game_name);
    log_info("hosted start user=%s game=%s pid=%d", s->user, s->kind, (int)ptyproc_pid(p));
    session_output(s);
}

/* The spawner hung the program up on its own (its player's directory
 * over the disk cap): the player goes back to the menu told why, as
 * after the grace period; the session goes once the program exited. */
static void on_stopped(ptyproc_t *p, const char *why, void *user)
{
    session_t *s = user;
    conn_t *c = s->player;
    char line[200], say[600];
    (void)p;
    log_warn("hosted stopped user=%s game=%s: over its disk cap: %s", s->user, s->kind, why);
    if (hg_of(s)->stopping)
        return;
    snprintf(line, sizeof line, "%s was stopped: your files for it went over its cap.",
             s->kind_name);
    snprintf(say, sizeof say, "%s\n%s.\n%s", line, why, DISK_HELP);
    session_hang_up(s, line, "disk");
    if (c && !c->closing && !c->sess) /* the whole of it, on a screen of its own */
        conn_message(c, say);
}

/* ---- rc files ---------------------------------------------------------------------------- */

/* The spawner reads and writes them, as the game's user, through the
 * player's directory (spawner.h, playerfs.h), without holding up the
 * loop: the answer comes to the caller's callback. */

/* A request on its way: whose answer goes where (and a save's, logged). */
typedef struct {
    hooks_rc_fn *fn;
    void *ud;
    char user[32], game[GAMECFG_ID_MAX + 1];
    size_t len;
} rc_call_t;

static rc_call_t *rc_call_new(const gamecfg_t *g, const char *user, size_t len, hooks_rc_fn *fn,
                              void *ud)
{
    rc_call_t *rc = malloc(sizeof *rc);
    if (rc) {
        *rc = (rc_call_t){.fn = fn, .ud = ud, .len = len};
        snprintf(rc->user, sizeof rc->user, "%s", user);
        snprintf(rc->game, sizeof rc->game, "%s", g->id);
    }
    return rc;
}

static void on_rc_loaded(const char *text, size_t len, const char *err, void *user)
{
    rc_call_t *rc = user;
    rc->fn(rc->ud, text, len, err);
    free(rc);
}

static void on_rc_saved(const char *text, size_t len, const char *err, void *user)
{
    rc_call_t *rc = user;
    if (!err)
        log_info("rc file saved user=%s game=%s bytes=%zu", rc->user, rc->game, rc->len);
    rc->fn(rc->ud, text, len, err);
    free(rc);
}

static int rc_load(server_t *srv, const gamecfg_t *g, const char *user, hooks_rc_fn *fn, void *ud,
                   char *err, size_t n)
{
    if (!g->rcfile[0])
        return snprintf(err, n, "%s has no rc file", g->name), -1;
    rc_call_t *rc = rc_call_new(g, user, 0, fn, ud);
    if (!rc)
        return snprintf(err, n, "out of memory"), -1;
    if (spawner_rc_load(srv->spawner, g->id, user, on_rc_loaded, rc, err, n) < 0) {
        free(rc);
        return -1;
    }
    return 0;
}

static int rc_save(server_t *srv, const gamecfg_t *g, const char *user, const char *text,
                   size_t len, hooks_rc_fn *fn, void *ud, char *err, size_t n)
{
    if (len > GAMECFG_RC_MAX || memchr(text, 0, len)) {
        snprintf(err, n,
                 len > GAMECFG_RC_MAX ? "the rc file may have at most %d bytes"
                                      : "the rc file may not hold NUL bytes",
                 GAMECFG_RC_MAX);
        return -1;
    }
    if (!g->rcfile[0])
        return snprintf(err, n, "%s has no rc file", g->name), -1;
    rc_call_t *rc = rc_call_new(g, user, len, fn, ud);
    if (!rc)
        return snprintf(err, n, "out of memory"), -1;
    if (spawner_rc_save(srv->spawner, g->id, user, text, len, on_rc_saved, rc, err, n) < 0) {
        free(rc);
        return -1;
    }
    return 0;
}

/* ---- starting -------------------------------------------------------------------------- */

static int hostgame_spawn(session_t *s, hostgame_t *hg, const conn_t *c, char *err, size_t n)
{
    ptyproc_opts_t o = {hg->cfg->id, s->user, hg->game_name, c->w, c->h};
    program_size(hg->cfg, &o.w, &o.h); /* c may have become too small meanwhile (play: the wait) */
    ptyproc_cbs_t cbs = {on_output, on_exited, on_started, on_stopped};
    return ptyproc_spawn(s->srv->loop, s->srv->spawner, &o, &cbs, s, &hg->proc, err, n);
}

/* A new game of g for c, or c's own still running (after the wait for
 * games-per-hour, another of c's conns may have started it). */
static void play_now(conn_t *c, const gamecfg_t *g)
{
    server_t *srv = c->srv;
    if (srv->stopping) { /* asked before the shutdown began: no game starts now */
        conn_menu(c, "The server is shutting down.");
        return;
    }
    session_t *s = session_find_kind(srv, c->user_id, g->id);
    if (s) {
        session_attach_player(s, c);
        return;
    }
    if (moderation_deleting(srv, c->user_id)) { /* asked before the delete began */
        conn_menu(c, MOD_DELETING_MSG);
        return;
    }
    const char *why = spawner_unavailable(srv->spawner, g->id);
    if (why) { /* its user is missing: logged at start, told here */
        char msg[300];
        snprintf(msg, sizeof msg, "%s.", why);
        conn_menu(c, msg);
        return;
    }
    if (spawner_starting(srv->spawner) >= SPAWNER_STARTING_MAX) { /* the cap: no log line each */
        conn_menu(c, "Many games are starting: try again in a moment.");
        return;
    }
    char err[256] = "out of memory";
    hostgame_t *hg = calloc(1, sizeof *hg);
    /* its id from the start, for its whole life (lists and watchers find
     * it by it): negative, never a games row's, never another's; nodes
     * sharing a database take it from the games' counter, so every node
     * names it alike (peer.h) */
    int64_t id = lease_on(srv) ? db_game_id_take(srv->db) : ++srv->hosted_ids;
    s = hg && id > 0 ? session_new(srv, -id, c->user_id, c->user, &backend_pty) : NULL;
    if (!s) {
        free(hg);
        conn_menu(c, "The game cannot start now.");
        return;
    }
    hg->cfg = g;
    hg->started = (int64_t)time(NULL);
    if (g->status[0] && !(hg->pat = statuspat_new(g->status, err, sizeof err)))
        log_warn("game=%s status pattern: %s", g->id, err); /* checked at start: memory */
    hg->began = hg->pat ? BEGAN_NOT_YET : BEGAN_UNKNOWN;
    snprintf(hg->game_name, sizeof hg->game_name, "%s", c->game_name);
    s->bk = hg;
    snprintf(s->kind, sizeof s->kind, "%s", g->id);
    snprintf(s->kind_name, sizeof s->kind_name, "%s", g->name);
    s->min_w = g->min_size[0]; /* its viewers are told below it (conn_min_size) */
    s->min_h = g->min_size[1];
    if (hostcap_take(srv, &hg->cap, c->ip, c->key, err, sizeof err) < 0) {
        session_free(s);
        conn_menu(c, err);
        return;
    }
    if (hostgame_spawn(s, hg, c, err, sizeof err) < 0) {
        log_error("cannot start game=%s user=%s: %s", g->id, c->user, err);
        session_free(s);
        conn_menu(c, CANNOT_START);
        return;
    }
    s->key_prefix = g->key_prefix; /* Warren's keys behind it: the program gets the rest */
    int idle = g->idle_seconds >= 0 ? g->idle_seconds : srv->cfg.game_idle;
    s->idle_limit_ms = (uint64_t)idle * 1000;
    session_attach_player(s, c); /* "Starting" until on_started */
}

/* ---- games-per-hour --------------------------------------------------------------------- */

/* Each hosted game's end is a hosted_scores row kept for ever (its
 * xlogfile row): a script starting and quitting games would grow the
 * database without bound, so an account that ended games-per-hour of
 * them in the last hour starts no new one until the oldest of those is an
 * hour old. Its running game is never held back (play). */
typedef struct {
    conn_t *c; /* conn_ref'd while the ends are read */
    int64_t user_id;
    const gamecfg_t *g; /* borrowed from the server's config */
} hour_req_t;

/* ends: the newest first, n of them at most games-per-hour. */
static bool too_many_ended(conn_t *c, const int64_t *ends, size_t n)
{
    static const logcap_kind_t say = {"hosted start refused: games-per-hour", 1, 100};
    server_t *srv = c->srv;
    int cap = srv->cfg.games_per_hour;
    int64_t now = (int64_t)time(NULL);
    if (cap <= 0 || n < (size_t)cap)
        return false;
    int64_t wait = ends[cap - 1] + 3600 - now;
    if (wait < 60)
        wait = 60;
    char msg[160];
    snprintf(msg, sizeof msg,
             "You ended %d hosted games in the last hour: a new one can start in %lld minute%s.",
             cap, (long long)(wait + 59) / 60, wait > 60 ? "s" : "");
    logcap_say_user(srv->strangers, now_ms(srv), LOG_INFO, &say, c->key, c->user,
                    "hosted start refused user=%s: %d hosted games in the last hour", c->user, cap);
    conn_menu(c, msg);
    return true;
}

static void on_hour_ends(void *ud, int status, const int64_t *ends, size_t n)
{
    hour_req_t *rq = ud;
    conn_t *c = rq->c;
    if (c->closing || c->place != CONN_WAIT || c->user_id != rq->user_id) {
        /* gone or elsewhere: nothing to start */
    } else if (status != DB_OK) {
        log_error("hosted ends lookup failed user=%s: %d", c->user, status);
        conn_menu(c, "The game store is not available. Please try again.");
    } else if (!too_many_ended(c, ends, n)) {
        hostcopy_before(c, rq->g, play_now);
    }
    conn_unref(c);
    free(rq);
}

/* The player's running game of g at once; a new one once the account's
 * ends of the last hour are counted (games-per-hour, 0: at once). */
static void play(conn_t *c, const gamecfg_t *g)
{
    server_t *srv = c->srv;
    int cap = srv->cfg.games_per_hour;
    session_t *s = session_find_kind(srv, c->user_id, g->id);
    if (s) {
        play_now(c, g);
        return;
    }
    if (cap <= 0) {
        hostcopy_before(c, g, play_now); /* the newest of the player's files first */
        return;
    }
    hour_req_t *rq = malloc(sizeof *rq);
    if (!rq) {
        conn_menu(c, "The game cannot start now.");
        return;
    }
    *rq = (hour_req_t){c, c->user_id, g};
    conn_ref(c);
    /* keys dropped meanwhile; nothing drawn (a browser gets the game or why not) */
    conn_set_place(c, CONN_WAIT);
    db_hosted_ends_since(srv->db, c->user_id, (int64_t)time(NULL) - 3600, cap, on_hour_ends, rq);
}

void hostgame_hooks(hooks_t *h)
{
    static const hooks_hosted_t hosted = {play, rc_load, rc_save};
    h->hosted = &hosted;
}
