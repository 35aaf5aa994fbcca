/* spawnd — the spawner process: a poll loop over warrend's socket, a
 * signalfd for SIGCHLD and the report pipes of the starts whose child has
 * not exec'd yet (a start is answered when its report comes, other
 * requests served meanwhile, or killed and answered late at its game's
 * start-timeout, so a start that hangs holds no slot for good) and of
 * the jobs (an rc file or xlogfile request, each in a child of its own,
 * the same), one table of its children found by pid (and one of its
 * running programs found by game and player, for the reads of their
 * files), and the killing of what they leave behind (spawner.h).
 * Nothing on a player's files is done
 * in this process: the running games' disk measurements too are a
 * child's, the measurer's (spawndisk.h). */
#include "spawnd.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "boxnet.h"
#include "hmap.h"
#include "hostfiles.h"
#include "log.h"
#include "playerfs.h"
#include "spawndisk.h"
#include "spawnmsg.h"

#define KIDS_MAX     4096  /* programs at once: more is refused */
#define GIVE_UP_MS   5000  /* after the last SIGKILL is due, stop waiting */
#define TIDY_SCAN_MS 30000 /* while programs run, orphans are looked for this often */
#define STARTS_MAX   SPAWNER_STARTING_MAX /* starts awaiting their child's exec */
#define JOBS_MAX     SPAWNER_RC_MAX       /* rc file and xlogfile requests at work */

/* A request whose child has not reported yet, a start (its exec) or a
 * job (an rc file or xlogfile request): its answer to warrend waits for
 * the report pipe or socket, in the poll set. */
typedef struct {
    int master, report; /* a start's pty master (warrend's once answered); the report's end */
    uint32_t seq;       /* the request's, for the answer */
    uint64_t deadline;  /* monotonic ms: killed and answered late then */
    bool ended;         /* it ended (reaped) before its report came */
    int status;         /* then its wait status */
    uint8_t type;       /* a job's request */
    bool gate;          /* a job holding the rc gate (a save) */
    int files;          /* a files job's memfd (its bundle), -1: none */
} start_t;

/* A child the spawner forked, from the fork to its reap: one record, found
 * by its pid, that owns all the spawner knows of it. */
typedef struct kid {
    hnode_t hn;           /* in spawnd_t.by_pid, by pid */
    hnode_t dir_hn;       /* in spawnd_t.by_dir, by game and dir, while a program */
    bool by_dir;          /* in it */
    LIST_ENTRY(kid) link; /* in spawnd_t.kids */
    pid_t pid;            /* also its process group and session */
    int game;             /* index into cfg->games */
    int slot;         /* its place in spawnd_t.starting or .jobs while it waits; -1: a program */
    uint64_t kill_at; /* monotonic ms of the SIGKILL after a hangup; 0: none */
    start_t st;       /* while slot >= 0 */
    bool job;         /* a job's (spawnd_t.jobs), not a start's */
    spawndisk_game_t disk; /* its directory's measurements */
} kid_t;

typedef struct {
    const spawner_cfg_t *cfg;
    int sock, sigfd;
    bool eof;         /* warrend is gone: ending */
    uint64_t give_up; /* after eof: exit by then whatever is left */
    uint64_t next_scan;
    pid_t self;
    playerfs_t fs;
    boxnets_t nets;        /* the namespaces games without network share */
    spawndisk_t disk;      /* the running games' directories, measured */
    boxfilter_t filter;    /* the programs' system call filter, compiled once (len 0: not yet) */
    hmap_t by_pid;         /* every kid_t (owned), by pid */
    hmap_t by_dir;         /* the programs (kid_t, slot < 0, not jobs), by game and dir */
    hmap_secret_t dir_key; /* by_dir's: the dirs are players' names */
    LIST_HEAD(, kid) kids; /* the same, to walk */
    int nkids;
    kid_t *starting[STARTS_MAX]; /* the kids whose start waits, in the poll set's order */
    int nstarts;
    kid_t *jobs[JOBS_MAX]; /* the kids at work on an rc file or xlogfile, the same */
    int njobs;
    int req_fd; /* the descriptor that came with the request at work, -1: none */
    uint8_t buf[SPAWNMSG_MAX];
} spawnd_t;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- programs ------------------------------------------------------------------------ */

static kid_t *kid_find(spawnd_t *d, pid_t pid)
{
    HMAP_EACH(it, &d->by_pid, hmap_hash_u64((uint64_t)pid))
    {
        kid_t *k = HMAP_ITEM(it, kid_t, hn);
        if (k->pid == pid)
            return k;
    }
    return NULL;
}

/* A kid whose start was answered: a program warrend knows. */
static kid_t *program_find(spawnd_t *d, pid_t pid)
{
    kid_t *k = kid_find(d, pid);
    return k && k->slot < 0 ? k : NULL;
}

static int programs(const spawnd_t *d)
{
    return d->nkids - d->nstarts - d->njobs;
}

/* k (allocated, its fields set) kept from now on, waiting for its
 * report (a job's, or a start's): 0, or -1 when out of memory (not
 * kept). */
static int kid_add(spawnd_t *d, kid_t *k, const char *dir)
{
    if (hmap_add(&d->by_pid, &k->hn, hmap_hash_u64((uint64_t)k->pid)) < 0)
        return -1;
    LIST_INSERT_HEAD(&d->kids, k, link);
    d->nkids++;
    kid_t **set = k->job ? d->jobs : d->starting;
    int *n = k->job ? &d->njobs : &d->nstarts;
    k->slot = *n;
    set[(*n)++] = k;
    spawndisk_game(&k->disk, k->pid, k->game, dir);
    return 0;
}

/* k, whose request was answered, gone (freed). */
/* A program's place in by_dir: its game's id and its player's dir (what
 * a files request carries: no walk of the config's games either). */
static uint64_t dir_hash(const spawnd_t *d, const char *game, const char *dir)
{
    return hmap_hash_keyed_str(&d->dir_key, dir) ^ hmap_hash_str(game);
}

static void kid_remove(spawnd_t *d, kid_t *k)
{
    spawndisk_forget(&d->disk, &k->disk);
    hmap_del(&d->by_pid, &k->hn);
    if (k->by_dir)
        hmap_del(&d->by_dir, &k->dir_hn);
    LIST_REMOVE(k, link);
    d->nkids--;
    free(k);
}

static void hangup(spawnd_t *d, kid_t *k)
{
    const gamecfg_t *g = &d->cfg->games->games[k->game];
    if (k->kill_at) /* hung up already: its SIGKILL is due */
        return;
    kill(-k->pid, SIGHUP);
    kill(-k->pid, SIGCONT); /* a stopped program must see its SIGHUP */
    k->kill_at = now_ms() + (uint64_t)g->hangup_seconds * 1000u;
}

/* ---- what programs leave behind -------------------------------------------------------- */

/* The session of pid (from /proc/PID/stat); false when it is gone. */
static bool session_of(pid_t pid, pid_t *sid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return false;
    line[n] = 0;
    const char *end = strrchr(line, ')'); /* the name may hold anything */
    int pp, pg, ss;
    char st;
    if (!end || sscanf(end + 1, " %c %d %d %d", &st, &pp, &pg, &ss) != 4)
        return false;
    *sid = ss;
    return true;
}

/* The spawner's children, from the kernel's list of them. */
#define CHILDREN_TEXT (KIDS_MAX * 16)
static int children(const spawnd_t *d, pid_t *out, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)d->self, (int)d->self);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char text[CHILDREN_TEXT + 1];
    size_t len = 0;
    for (ssize_t r; len < CHILDREN_TEXT && (r = read(fd, text + len, CHILDREN_TEXT - len)) > 0;)
        len += (size_t)r;
    close(fd);
    text[len] = 0;
    int n = 0;
    for (char *p = text, *end; n < max && *p; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        out[n++] = (pid_t)v;
    }
    return n;
}

/* SIGKILL to each child of ours that is not a program, unless it is in
 * the session of a program still running: a double fork or a setsid left
 * it here. Its own children come to us as it dies, and the reap that
 * follows looks again. Returns how many were killed. */
static int kill_orphans(spawnd_t *d)
{
    pid_t pids[KIDS_MAX * 2];
    int n = children(d, pids, KIDS_MAX * 2), killed = 0;
    for (int i = 0; i < n; i++) {
        pid_t sid;
        if (kid_find(d, pids[i]) || pids[i] == spawndisk_meter_pid(&d->disk) ||
            !session_of(pids[i], &sid))
            continue;
        if (program_find(d, sid))
            continue; /* its game still runs: it ends with it */
        if (kill(pids[i], SIGKILL) == 0)
            killed++;
    }
    if (n < 0)
        log_error("spawner: cannot list its children: %s", strerror(errno));
    if (killed)
        log_info("spawner: killed %d process%s left behind by hosted programs", killed,
                 killed == 1 ? "" : "es");
    return killed;
}

/* ---- children ending ----------------------------------------------------------------- */

static void begin_end(spawnd_t *d);

static void report_exit(spawnd_t *d, pid_t pid, int status)
{
    spawnmsg_t m = {.type = SPAWNMSG_EXIT, .pid = pid, .status = status};
    if (d->eof || spawnmsg_send(d->sock, &m, -1) == 0)
        return;
    if (errno == EPIPE || errno == ECONNRESET) /* warrend is gone: its end of file follows */
        begin_end(d);
    else
        log_error("spawner: cannot report exit pid=%d: %s", (int)pid, strerror(errno));
}

/* One child that ended, not reaped yet. A program's group is killed while
 * its zombie still holds the pid, so the group id cannot be anyone's. */
static void reap_one(spawnd_t *d, pid_t pid)
{
    kid_t *k = kid_find(d, pid);
    if (k)
        kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (k && k->slot >= 0) { /* its exit is told after its answer, when the report comes */
        k->st.ended = true;
        k->st.status = status;
        return;
    }
    if (!k)
        return;
    kid_remove(d, k);
    report_exit(d, pid, status);
}

static void reap(spawnd_t *d)
{
    struct signalfd_siginfo si;
    while (read(d->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        continue;
    int reaped = 0;
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == 0)
            break;
        reap_one(d, info.si_pid);
        reaped++;
    }
    if (reaped)
        kill_orphans(d);
}

static bool no_children(void)
{
    siginfo_t info;
    return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

/* ---- requests ---------------------------------------------------------------------------- */

static void reply(spawnd_t *d, spawnmsg_t *m, uint32_t seq, int fd)
{
    m->seq = seq;
    if (spawnmsg_send(d->sock, m, fd) < 0 && errno != EPIPE && errno != ECONNRESET)
        log_error("spawner: cannot answer %s: %s", spawnmsg_type_name(m->type), strerror(errno));
}

/* A reason always goes out: printable, never empty (spawnmsg.h's rule). */
static void reply_failed(spawnd_t *d, uint32_t seq, const char *why)
{
    char text[320];
    snprintf(text, sizeof text, "%s", why[0] ? why : "failed");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            *c = '?';
    spawnmsg_t m = {.type = SPAWNMSG_FAILED, .text = text, .len = strlen(text)};
    reply(d, &m, seq, -1);
}

static int game_index(const spawnd_t *d, const char *id)
{
    const gamecfg_t *g = gamecfg_find(d->cfg->games, id);
    return g ? (int)(g - d->cfg->games->games) : -1;
}

static playerfs_user_t fs_user(const spawner_user_t *u)
{
    return (playerfs_user_t){u->uid, u->gid, u->sw};
}

/* games-dir, made and opened the first time it is needed (as before the
 * spawner: a daemon without players makes nothing). */
static int games_dir(spawnd_t *d, char *err, size_t errlen)
{
    if (d->fs.games_fd >= 0)
        return 0;
    if (playerfs_open(&d->fs, d->cfg->games_dir, d->cfg->owner, d->cfg->group, err, errlen) == 0)
        return 0;
    log_error("spawner: %s", err);
    return -1;
}

/* A request's game (*game) and the path of its player's directory,
 * nothing of the player's touched yet: 0, or -1 with err. */
static int request_game(spawnd_t *d, const spawnmsg_t *m, int *game, char *path, size_t pathlen,
                        char *err, size_t errlen)
{
    *game = game_index(d, m->game);
    if (*game < 0)
        return snprintf(err, errlen, "no game %s", m->game), -1;
    const spawner_user_t *u = &d->cfg->users[*game];
    if (!u->ok)
        return snprintf(err, errlen, "%s", u->why), -1;
    if (games_dir(d, err, errlen) < 0)
        return -1;
    return playerfs_path(&d->fs, m->game, m->dir, path, pathlen, err, errlen);
}

/* The player's directory of a request's game: its descriptor, or -1 with err. */
static int request_dir(spawnd_t *d, const spawnmsg_t *m, int *game, char *path, size_t pathlen,
                       char *err, size_t errlen)
{
    if (request_game(d, m, game, path, pathlen, err, errlen) < 0)
        return -1;
    playerfs_user_t pu = fs_user(&d->cfg->users[*game]);
    return playerfs_dir(&d->fs, m->game, m->dir, &pu, path, pathlen, err, errlen);
}

/* The no-network namespaces u's games share (boxnet.h) in *userns and
 * *netns, or -1 in both: each game makes its own (the kernel cannot
 * scope abstract unix sockets, or they could not be made: then never
 * again). */
static void shared_net(spawnd_t *d, const spawner_user_t *u, int *userns, int *netns)
{
    char err[200];
    uid_t uid = u->sw ? u->uid : geteuid();
    gid_t gid = u->sw ? u->gid : getegid();
    if (boxnet_get(&d->nets, uid, gid, userns, netns, err, sizeof err) == 0)
        return;
    if (d->nets.scope) {
        log_warn("spawner: %s: each game without network makes its own", err);
        d->nets.scope = 0;
    }
    *userns = *netns = -1;
}

/* The player's own xlogfile made when missing; a failure (something of
 * the player's in its place) is logged, and the game starts anyway. */
static void xlog_first(const gamecfg_t *g, int dirfd, const playerfs_user_t *pu, const char *dir)
{
    char err[300];
    const char *own = gamecfg_xlog_own(g);
    if (own && playerfs_xlog_first(dirfd, own, pu, err, sizeof err) < 0)
        log_warn("spawner: xlogfile of dir=%s game=%s: %s", dir, g->id, err);
}

/* The files of the player's own the game needs in its playground
 * (playground-files), made empty when missing; a failure is logged, and
 * the game starts anyway (and says what it misses). */
static void playground_files(const gamecfg_t *g, int dirfd, const playerfs_user_t *pu,
                             const char *dir)
{
    char path[GAMECFG_NAME_MAX + 16], err[300];
    for (const char *s = g->playground_files; *s; s += strspn(s, " ")) {
        size_t len = strcspn(s, " ");
        snprintf(path, sizeof path, "playground/%.*s", (int)len, s);
        if (playerfs_file_first(dirfd, path, pu, err, sizeof err) < 0)
            log_warn("spawner: playground file of dir=%s game=%s: %s", dir, g->id, err);
        s += len;
    }
}

/* What a start's child does to the player's files (spawnexec_prep_fn). */
typedef struct {
    spawnd_t *d;
    const spawnmsg_t *m;
    int game;
} prep_t;

/* In the start's child: the player's directory (made as needed),
 * measured against its caps, its xlogfile, playground files and rc file
 * made, reachable by the game's user; its descriptor, or -1 with err. */
static int prepare_dir(void *ud, char *err, size_t errlen)
{
    const prep_t *p = ud;
    const gamecfg_t *g = &p->d->cfg->games->games[p->game];
    playerfs_user_t pu = fs_user(&p->d->cfg->users[p->game]);
    const char *rc = gamecfg_rc_name(g), *def = rc && g->rc_default[0] ? g->rc_default : NULL;
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    int dirfd = playerfs_dir(&p->d->fs, p->m->game, p->m->dir, &pu, path, sizeof path, err, errlen);
    if (dirfd < 0)
        return -1;
    if (spawndisk_check(&p->d->disk, p->game, p->m->dir, err, errlen) < 0)
        return close(dirfd), -1;
    xlog_first(g, dirfd, &pu, p->m->dir);
    playground_files(g, dirfd, &pu, p->m->dir);
    if ((rc && playerfs_rc_first(dirfd, rc, def, &pu, err, errlen) < 0) ||
        playerfs_reachable(path, &pu, err, errlen) < 0)
        return close(dirfd), -1;
    return dirfd;
}

/* The system call filter, compiled when the spawner starts and kept: a
 * compile that failed is tried again at each start, which it refuses
 * meanwhile with the compile's reason (no program runs unfiltered).
 * 0, or -1 with err. */
static int filter_ready(spawnd_t *d, char *err, size_t errlen)
{
    if (d->filter.len || boxfilter_make(&d->filter, err, errlen) == 0)
        return 0;
    log_error("spawner: %s: hosted programs cannot start", err);
    return -1;
}

/* Everything before the fork, none of it on the player's files (the
 * child's prepare_dir): the game, the launch, the fork. */
static pid_t start_program(spawnd_t *d, const spawnmsg_t *m, int *game, int *master, int *report,
                           char *err, size_t errlen)
{
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    if (request_game(d, m, game, path, sizeof path, err, errlen) < 0 ||
        filter_ready(d, err, errlen) < 0)
        return -1;
    const gamecfg_t *g = &d->cfg->games->games[*game];
    const spawner_user_t *u = &d->cfg->users[*game];
    prep_t prep = {d, m, *game};
    gamecfg_launch_t la;
    pid_t pid = -1;
    if (gamecfg_launch(g, m->name, m->dir, path, &la, err, errlen) == 0) {
        spawnexec_t x = {.argv = la.argv,
                         .envp = la.envp,
                         .dirfd = -1,
                         .prepare = prepare_dir,
                         .prep_ud = &prep,
                         .prep_fd = d->fs.games_fd,
                         .w = m->w,
                         .h = m->h,
                         .limits = &g->limits,
                         .user = u,
                         .network = g->network,
                         .games_dir = d->fs.path,
                         .game = m->game,
                         .dir = m->dir,
                         .playground = g->playground,
                         .shared = g->playground_shared,
                         .shared_rw = g->playground_shared_rw,
                         .recover = la.recover,
                         .userns = -1,
                         .netns = -1,
                         .filter = &d->filter};
        if (!g->network)
            shared_net(d, u, &x.userns, &x.netns);
        pid = spawnexec_start(&x, master, report, err, errlen);
        gamecfg_launch_free(&la);
    }
    return pid;
}

/* A start is answered once its child's report pipe says how it went
 * (start_report): meanwhile the loop serves other requests. */
static void on_spawn(spawnd_t *d, const spawnmsg_t *m)
{
    char err[300] = "out of memory";
    int game = -1, master = -1, report = -1;
    if (d->nkids - d->njobs >= KIDS_MAX) {
        reply_failed(d, m->seq, "too many hosted programs are running");
        return;
    }
    kid_t *k = calloc(1, sizeof *k);
    pid_t pid = k ? start_program(d, m, &game, &master, &report, err, sizeof err) : -1;
    if (pid < 0) {
        free(k);
        reply_failed(d, m->seq, err);
        return;
    }
    /* the loop reads no request while STARTS_MAX starts wait: room */
    uint64_t deadline = now_ms() + (uint64_t)d->cfg->games->games[game].start_seconds * 1000u;
    *k = (kid_t){.pid = pid, .game = game, .st = {master, report, m->seq, deadline, false, 0}};
    if (kid_add(d, k, m->dir) == 0)
        return;
    kill(-pid, SIGKILL); /* no room to keep it: it goes, the reap takes its zombie */
    kill(pid, SIGKILL);
    close(master);
    close(report);
    free(k);
    reply_failed(d, m->seq, "out of memory");
}

/* k's start answered: out of the poll set. */
static void start_remove(spawnd_t *d, kid_t *k)
{
    kid_t **set = k->job ? d->jobs : d->starting;
    kid_t *last = set[k->job ? --d->njobs : --d->nstarts];
    close(k->st.report);
    set[k->slot] = last;
    last->slot = k->slot;
    k->slot = -1;
}

/* It exec'd: warrend gets the pty's master, and its exit if it ended
 * meanwhile; a program that comes after warrend went is hung up. */
static void start_running(spawnd_t *d, kid_t *k)
{
    if (programs(d) == 1) /* the first program: orphans are looked for a scan's time from now */
        d->next_scan = now_ms() + TIDY_SCAN_MS;
    spawnmsg_t r = {.type = SPAWNMSG_SPAWNED, .pid = k->pid};
    /* found by its files' reads from now on (out of memory: not found, so read in full) */
    k->by_dir = hmap_add(&d->by_dir, &k->dir_hn,
                         dir_hash(d, d->cfg->games->games[k->game].id, k->disk.dir)) == 0;
    if (!d->eof)
        reply(d, &r, k->st.seq, k->st.master);
    close(k->st.master); /* warrend's copy is the only one: its end hangs the pty up */
    spawndisk_watch(&d->disk, &k->disk, now_ms()); /* measured here from now on */
    if (k->st.ended) {
        pid_t pid = k->pid;
        int status = k->st.status;
        kid_remove(d, k);
        report_exit(d, pid, status);
    } else if (d->eof)
        hangup(d, k);
}

/* A start's child said something on the way (a recover that failed):
 * told to warrend for its log, nothing else changes. */
static void start_note(spawnd_t *d, kid_t *k, int status, const char *text)
{
    const gamecfg_t *g = &d->cfg->games->games[k->game];
    char say[300]; /* a lock file's name is the player's: printable only */
    snprintf(say, sizeof say, "%s", text[0] ? text : "a note");
    for (char *c = say; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            *c = '?';
    spawnmsg_t m = {.type = SPAWNMSG_NOTE, .status = status, .text = say, .len = strlen(say)};
    snprintf(m.game, sizeof m.game, "%s", g->id);
    snprintf(m.dir, sizeof m.dir, "%s", k->disk.dir);
    if (!d->eof && spawnmsg_send(d->sock, &m, -1) < 0 && errno != EPIPE && errno != ECONNRESET)
        log_error("spawner: cannot send a note game=%s dir=%s: %s", g->id, k->disk.dir,
                  strerror(errno));
}

/* A start's report pipe is readable: the answer to its request. */
static void start_report(spawnd_t *d, kid_t *k)
{
    char err[300];
    int status = 0;
    int r = spawnexec_result(k->st.report, err, sizeof err, &status);
    if (r == 2) {
        start_note(d, k, status, err);
        return;
    }
    if (r > 0)
        return;
    start_remove(d, k);
    if (r == 0) {
        start_running(d, k);
        return;
    }
    if (!k->st.ended) /* it reported and exits: no program, no exit to tell */
        while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    close(k->st.master);
    reply_failed(d, k->st.seq, err);
    kid_remove(d, k);
}

/* A start past its deadline (its box's mounts hang, say): the child is
 * killed (its group once it has one: the reaper with it), its slot
 * freed, warrend told; the reap that follows takes its zombie. */
static void start_late(spawnd_t *d, kid_t *k)
{
    const gamecfg_t *g = &d->cfg->games->games[k->game];
    start_remove(d, k);
    if (!k->st.ended) {
        kill(-k->pid, SIGKILL);
        kill(k->pid, SIGKILL); /* before its setsid it leads no group */
    }
    close(k->st.master);
    log_warn("spawner: game=%s pid=%d did not reach its exec in %d s: killed", g->id, (int)k->pid,
             g->start_seconds);
    reply_failed(d, k->st.seq, SPAWNER_LATE);
    kid_remove(d, k);
}

static void on_signal(spawnd_t *d, const spawnmsg_t *m)
{
    kid_t *k = program_find(d, m->pid);
    if (!k) /* it ended meanwhile (or was never ours): nothing to signal */
        return;
    if (m->type == SPAWNMSG_HANGUP)
        hangup(d, k);
    else
        kill(-k->pid, SIGKILL);
}

/* An rc request's work: the text read into text (*len), or saved. */
static int rc_work(spawnd_t *d, const spawnmsg_t *m, char *text, size_t *len, char *err,
                   size_t errlen)
{
    const gamecfg_t *g = gamecfg_find(d->cfg->games, m->game);
    const char *name = g ? gamecfg_rc_name(g) : NULL;
    if (g && !name)
        return snprintf(err, errlen, "%s has no rc file", g->name), -1;
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    int game, dirfd = request_dir(d, m, &game, path, sizeof path, err, errlen);
    if (dirfd < 0)
        return -1;
    playerfs_user_t pu = fs_user(&d->cfg->users[game]);
    int ret = m->type == SPAWNMSG_RC_LOAD
                  ? playerfs_rc_load(dirfd, name, g->rc_default[0] ? g->rc_default : NULL, &pu,
                                     text, PLAYERFS_RC_MAX, len, err, errlen)
                  : playerfs_rc_save(dirfd, name, &pu, m->text, m->len, err, errlen);
    close(dirfd);
    return ret;
}

/* A save may be made only while warrend's gate is open (spawner.h): it
 * is held SAVING meanwhile, so warrend, shutting down, never tells a
 * player "Not saved" of a save made after. No gate: always. */
static bool rc_gate_enter(_Atomic uint32_t *gate)
{
    uint32_t open = SPAWNER_RC_OPEN;
    return !gate || atomic_compare_exchange_strong(gate, &open, SPAWNER_RC_SAVING);
}

static void rc_gate_leave(_Atomic uint32_t *gate)
{
    if (gate)
        atomic_store(gate, SPAWNER_RC_OPEN);
}

static bool job_start(spawnd_t *d, const spawnmsg_t *m, bool gate, uint64_t quiet);

static void on_rc(spawnd_t *d, const spawnmsg_t *m)
{
    bool save = m->type == SPAWNMSG_RC_SAVE;
    if (save && now_ms() >= m->deadline_ms) {
        /* warrend told the player it was not saved: it must not be now */
        log_warn("spawner: an rc file save came after its deadline: not made");
        reply_failed(d, m->seq, "too late: not saved");
        return;
    }
    if (save && !rc_gate_enter(d->cfg->rc_gate)) { /* warrend stopped: told not saved */
        log_warn("spawner: an rc file save came after warrend began to stop: not made");
        reply_failed(d, m->seq, "the server is shutting down: not saved");
        return;
    }
    job_start(d, m, save, 0);
}

/* The tail of a player's own xlogfile into text (*len), as the game's
 * user. */
static int xlog_work(spawnd_t *d, const spawnmsg_t *m, char *text, size_t cap, size_t *len,
                     char *err, size_t errlen)
{
    const gamecfg_t *g = gamecfg_find(d->cfg->games, m->game);
    const char *own = g ? gamecfg_xlog_own(g) : NULL;
    if (g && !own)
        return snprintf(err, errlen, "%s has no xlogfile of each player's own", g->name), -1;
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    int game, dirfd = request_dir(d, m, &game, path, sizeof path, err, errlen);
    if (dirfd < 0)
        return -1;
    playerfs_user_t pu = fs_user(&d->cfg->users[game]);
    int ret = playerfs_xlog_tail(dirfd, own, &pu, text, cap, len, err, errlen);
    close(dirfd);
    return ret;
}

static void on_xlog(spawnd_t *d, const spawnmsg_t *m)
{
    job_start(d, m, false, 0);
}

/* A files request's game: its copy-max (0: it keeps no copy). */
static uint64_t copy_max(const spawnd_t *d, const spawnmsg_t *m, char *err, size_t errlen)
{
    const gamecfg_t *g = gamecfg_find(d->cfg->games, m->game);
    if (g && !g->copy_bytes)
        snprintf(err, errlen, "%s keeps no copy of its players' files", g->name);
    return g ? g->copy_bytes : 0;
}

static int write_fd(int fd, const uint8_t *p, size_t n)
{
    for (off_t at = 0; n;) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w, at += w, n -= (size_t)w;
    }
    return 0;
}

/* The player's files (hostfiles.h), as the game's user, into files (a
 * memfd); what was not copied said in note (*len bytes). While the
 * game's program runs (quiet > 0: files still this long, in ms), only a
 * still set (SPAWNER_FILES_BUSY). */
static int files_read_work(spawnd_t *d, const spawnmsg_t *m, int files, uint64_t quiet, char *note,
                           size_t cap, size_t *len, char *err, size_t errlen)
{
    uint64_t max = copy_max(d, m, err, errlen);
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    int game, dirfd = max ? request_dir(d, m, &game, path, sizeof path, err, errlen) : -1;
    if (dirfd < 0)
        return -1;
    playerfs_user_t pu = fs_user(&d->cfg->users[game]);
    hostfiles_buf_t b;
    int skipped = 0, ret = hostfiles_buf_init(&b, (size_t)max);
    char why[200] = "";
    if (ret < 0)
        snprintf(err, errlen, "out of memory");
    else if ((ret = playerfs_files_collect(dirfd, &pu, quiet, &b, &skipped, note, cap, why,
                                           sizeof why)) < 0) /* what warrend tells apart */
        snprintf(err, errlen, "%s%s",
                 ret == PLAYERFS_BUSY   ? SPAWNER_FILES_BUSY
                 : ret == PLAYERFS_OVER ? SPAWNER_FILES_OVER
                                        : "",
                 why);
    if (ret == 0 && write_fd(files, b.p, b.len) < 0)
        ret = -1, snprintf(err, errlen, "cannot hold the files: %s", strerror(errno));
    hostfiles_buf_free(&b);
    close(dirfd);
    *len = strlen(note);
    return ret;
}

/* A bundle warrend sent (files, a memfd: checked whole, at most the
 * game's copy-max) written into the player's directory, as its user. */
static int files_write_work(spawnd_t *d, const spawnmsg_t *m, int files, char *err, size_t errlen)
{
    uint64_t max = copy_max(d, m, err, errlen);
    size_t len = 0;
    if (!max)
        return -1;
    void *p = hostfiles_map(files, &len, err, errlen); /* sealed: it cannot shrink meanwhile */
    if (!p)
        return -1;
    if (len < HOSTFILES_HEAD || (uint64_t)len > max) {
        munmap(p, len);
        return snprintf(err, errlen, "the files sent are not a bundle within copy-max"), -1;
    }
    char path[PLAYERFS_PATH_MAX + 2 * 64];
    int game, dirfd = request_dir(d, m, &game, path, sizeof path, err, errlen), ret = -1;
    if (dirfd >= 0) {
        playerfs_user_t pu = fs_user(&d->cfg->users[game]);
        ret = playerfs_files_unpack(dirfd, &pu, p, len, (size_t)max, err, errlen);
        close(dirfd);
    }
    munmap(p, len);
    return ret;
}

/* The running program of game (its id) for dir, if any: one lookup,
 * however many run. */
static kid_t *program_of(spawnd_t *d, const char *game, const char *dir)
{
    HMAP_EACH(it, &d->by_dir, dir_hash(d, game, dir))
    {
        kid_t *k = HMAP_ITEM(it, kid_t, dir_hn);
        if (!strcmp(d->cfg->games->games[k->game].id, game) && !strcmp(k->disk.dir, dir))
            return k;
    }
    return NULL;
}

/* Whether pid, a child, ended (a zombie not reaped yet). */
static bool ended(pid_t pid)
{
    siginfo_t si = {0};
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* A read of a running game's files in whose directory nothing changed
 * since its last read began is answered at once, with no child. */
static void on_files(spawnd_t *d, const spawnmsg_t *m)
{
    kid_t *k = m->type == SPAWNMSG_FILES_READ ? program_of(d, m->game, m->dir) : NULL;
    if (k && !spawndisk_changed(&d->disk, &k->disk, now_ms())) {
        reply_failed(d, m->seq, SPAWNER_FILES_SAME);
        return;
    }
    /* while its program runs, only still files; once it ended (its
     * terminal may tell warrend before its reap), all */
    uint64_t quiet = k && !ended(k->pid) ? SPAWNER_FILES_QUIET_MS : 0;
    bool started = job_start(d, m, false, quiet);
    if (started && k)
        spawndisk_copying(&k->disk);
}

/* ---- jobs: requests on a player's files, each in a child of its own ------------------- */

/* A job's report: its first byte 1 and the text, or 0 and why not. */
typedef struct {
    uint8_t ok;
    char text[SPAWNMSG_TEXT_MAX];
} job_report_t;

/* In the job's child: the request's work, its report sent on out, the
 * end. It holds nothing of the spawner's but games-dir and stderr. */
static void __attribute__((noreturn))
job_run(spawnd_t *d, const spawnmsg_t *m, int out, int files, uint64_t quiet)
{
    job_report_t r = {0};
    char err[300];
    size_t len = 0;
    int keep[] = {out, d->fs.games_fd, files};
    spawnexec_close_all_but(keep, 3);
    int ret;
    if (m->type == SPAWNMSG_FILES_READ)
        ret = files_read_work(d, m, files, quiet, r.text, sizeof r.text, &len, err, sizeof err);
    else if (m->type == SPAWNMSG_FILES_WRITE)
        ret = files_write_work(d, m, files, err, sizeof err);
    else if (m->type == SPAWNMSG_XLOG_READ)
        ret = xlog_work(d, m, r.text, sizeof r.text, &len, err, sizeof err);
    else
        ret = rc_work(d, m, r.text, &len, err, sizeof err);
    r.ok = ret == 0;
    if (!r.ok)
        len = (size_t)snprintf(r.text, sizeof r.text, "%s", err);
    ssize_t n = send(out, &r, 1 + len, MSG_NOSIGNAL);
    _exit(n == (ssize_t)(1 + len) ? 0 : 1);
}

/* What answers a job's request that worked. */
static spawnmsg_type_t job_reply_type(uint8_t type)
{
    if (type == SPAWNMSG_FILES_READ)
        return SPAWNMSG_FILES;
    return type == SPAWNMSG_RC_SAVE || type == SPAWNMSG_FILES_WRITE ? SPAWNMSG_DONE
                                                                    : SPAWNMSG_RC_TEXT;
}

/* A files job's memfd: for a read, made here (the child fills it); for a
 * write, the one warrend sent with it (taken). -1 for the other jobs, or
 * when none could be made. */
static int job_files_fd(spawnd_t *d, const spawnmsg_t *m)
{
    if (m->type == SPAWNMSG_FILES_READ)
        return hostfiles_memfd();
    int fd = m->type == SPAWNMSG_FILES_WRITE ? d->req_fd : -1;
    if (fd >= 0)
        d->req_fd = -1;
    return fd;
}

/* The answer to k's request: its report (n bytes of r; 0: it died
 * without one), or why not (late: killed, its zombie left to the reap,
 * as it may take its time to die); then k is gone. */
static void job_answer(spawnd_t *d, kid_t *k, const job_report_t *r, ssize_t n, const char *why)
{
    start_remove(d, k);
    if (k->st.gate)
        rc_gate_leave(d->cfg->rc_gate);
    if (!k->st.ended)
        kill(k->pid, SIGKILL);
    if (!k->st.ended && !why) /* it reported (or closed its end) and exits */
        while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    spawnmsg_t a = {.type = job_reply_type(k->st.type)};
    /* a read's bundle sealed once its child is gone, before warrend maps it */
    if (!why && n >= 1 && r->ok && a.type == SPAWNMSG_FILES && hostfiles_seal(k->st.files) < 0)
        why = "the files read could not be sealed";
    if (!why && n >= 1 && r->ok) {
        a.text = r->text;
        a.len = (size_t)n - 1;
        reply(d, &a, k->st.seq, a.type == SPAWNMSG_FILES ? k->st.files : -1);
    } else if (!why && n >= 1) {
        char text[300];
        snprintf(text, sizeof text, "%.*s", (int)(n - 1), r->text);
        kid_t *p = k->st.type == SPAWNMSG_FILES_READ && k->game >= 0 &&
                           !strncmp(text, SPAWNER_FILES_BUSY, strlen(SPAWNER_FILES_BUSY))
                       ? program_of(d, d->cfg->games->games[k->game].id, k->disk.dir)
                       : NULL;
        if (p) /* nothing copied: the next read reads, whatever changes meanwhile */
            p->disk.changed = true;
        reply_failed(d, k->st.seq, text);
    } else
        reply_failed(d, k->st.seq, why ? why : "the work on your files failed");
    if (k->st.files >= 0)
        close(k->st.files);
    kid_remove(d, k);
}

/* A job's socket is readable: its report, or its end without one. */
static void job_report(spawnd_t *d, kid_t *k)
{
    job_report_t r;
    ssize_t n = recv(k->st.report, &r, sizeof r, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    job_answer(d, k, &r, n < 0 ? 0 : n, NULL);
}

/* A job past its deadline (the player's directory hangs, say): killed,
 * its player told. */
static void job_late(spawnd_t *d, kid_t *k)
{
    const char *game = k->game >= 0 ? d->cfg->games->games[k->game].id : "?";
    log_warn("spawner: %s game=%s dir=%s pid=%d did not end in time: killed",
             spawnmsg_type_name(k->st.type), game, k->disk.dir, (int)k->pid);
    job_answer(d, k, NULL, 0, "your files for this game did not answer in time");
}

/* An rc file or xlogfile request (m) done by a child of its own, so a
 * player's directory that hangs (a dead mount) holds that request
 * alone: answered when the child reports, or killed at the game's
 * start-timeout (a save's own deadline if sooner). gate: the rc gate
 * is held (entered) until then. quiet: a files read's stillness (ms,
 * files_read_work), 0 for the other jobs. */
static bool job_start(spawnd_t *d, const spawnmsg_t *m, bool gate, uint64_t quiet)
{
    const gamecfg_t *g = gamecfg_find(d->cfg->games, m->game);
    int sv[2] = {-1, -1};
    char err[300];
    bool files_job = m->type == SPAWNMSG_FILES_READ || m->type == SPAWNMSG_FILES_WRITE;
    int files = job_files_fd(d, m);
    kid_t *k =
        d->njobs < d->cfg->jobs_max && (!files_job || files >= 0) ? calloc(1, sizeof *k) : NULL;
    pid_t pid = -1;
    games_dir(d, err, sizeof err); /* opened once, here: a failure is the child's to report */
    if (k && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0 && (pid = fork()) == 0)
        job_run(d, m, sv[1], files, quiet);
    if (sv[1] >= 0)
        close(sv[1]);
    uint64_t deadline = now_ms() + (uint64_t)(g ? g->start_seconds : GAMECFG_START_S) * 1000u;
    if (gate && m->deadline_ms < deadline)
        deadline = m->deadline_ms;
    if (pid > 0) {
        *k = (kid_t){.pid = pid, .game = g ? (int)(g - d->cfg->games->games) : -1, .job = true};
        k->st = (start_t){-1, sv[0], m->seq, deadline, false, 0, (uint8_t)m->type, gate, files};
    }
    if (pid > 0 && kid_add(d, k, m->dir) == 0)
        return true;
    if (pid > 0)
        kill(pid, SIGKILL); /* the reap takes it */
    if (sv[0] >= 0)
        close(sv[0]);
    if (files >= 0)
        close(files);
    free(k);
    if (gate)
        rc_gate_leave(d->cfg->rc_gate);
    reply_failed(d, m->seq,
                 m->type == SPAWNMSG_FILES_READ
                     ? SPAWNER_FILES_FULL /* warrend asks a game's last copy again */
                     : SPAWNER_JOBS_FULL);
    return false;
}

typedef void handler_fn(spawnd_t *d, const spawnmsg_t *m);
static handler_fn *const HANDLERS[SPAWNMSG_TYPES] = {
    [SPAWNMSG_SPAWN] = on_spawn,      [SPAWNMSG_HANGUP] = on_signal,
    [SPAWNMSG_KILL] = on_signal,      [SPAWNMSG_RC_LOAD] = on_rc,
    [SPAWNMSG_RC_SAVE] = on_rc,       [SPAWNMSG_XLOG_READ] = on_xlog,
    [SPAWNMSG_FILES_READ] = on_files, [SPAWNMSG_FILES_WRITE] = on_files,
};

/* warrend is gone: every program is hung up, orphans are killed. */
static void begin_end(spawnd_t *d)
{
    d->eof = true;
    spawndisk_free(&d->disk); /* measured no more: the measurer is killed */
    uint64_t last = now_ms();
    kid_t *k;
    LIST_FOREACH(k, &d->kids, link)
    {
        if (k->slot >= 0) /* a start: hung up once it runs */
            continue;
        hangup(d, k);
        if (k->kill_at > last)
            last = k->kill_at;
    }
    d->give_up = last + GIVE_UP_MS;
    if (programs(d))
        log_info("spawner: warrend is gone; hanging up %d program%s", programs(d),
                 programs(d) == 1 ? "" : "s");
    kill_orphans(d);
}

static void serve(spawnd_t *d)
{
    spawnmsg_t m;
    int fd;
    char err[200];
    int r = spawnmsg_recv(d->sock, d->buf, MSG_DONTWAIT, &m, &fd, err, sizeof err);
    if (r < 0 && errno == EBADMSG) {
        log_warn("spawner: refused a request: %s", err);
        reply_failed(d, m.seq, "a bad request");
        return;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (r <= 0) {
        begin_end(d);
        return;
    }
    d->req_fd = fd; /* a handler that keeps it takes it */
    if (HANDLERS[m.type])
        HANDLERS[m.type](d, &m);
    else
        reply_failed(d, m.seq, "not a request");
    if (d->req_fd >= 0)
        close(d->req_fd);
    d->req_fd = -1;
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* A game over its disk cap (spawndisk.h): warrend is told why first, so
 * the player hears it before the exit. One whose start is not answered
 * yet waits for its answer (false). */
static bool on_disk(void *ud, pid_t pid, spawndisk_act_t act, const char *why, const char *what)
{
    spawnd_t *d = ud;
    kid_t *k = program_find(d, pid);
    spawnmsg_t m = {.type = SPAWNMSG_STOPPED, .pid = pid, .text = why, .len = strlen(why)};
    if (!k)
        return false;
    log_warn("spawner: disk over %s: %s", what, act == SPAWNDISK_KILL ? "killed" : "hung up");
    if (!d->eof && spawnmsg_send(d->sock, &m, -1) < 0 && errno != EPIPE && errno != ECONNRESET)
        log_error("spawner: cannot report a stop pid=%d: %s", (int)pid, strerror(errno));
    if (act == SPAWNDISK_HANGUP)
        hangup(d, k);
    else
        kill(-pid, SIGKILL);
    return true;
}

static void run_timers(spawnd_t *d)
{
    uint64_t now = now_ms();
    if (!d->eof)
        spawndisk_run(&d->disk, now);
    kid_t *k;
    LIST_FOREACH(k, &d->kids, link)
    if (k->kill_at && k->kill_at <= now) {
        kill(-k->pid, SIGKILL);
        k->kill_at = 0;
    }
    if (programs(d) && now >= d->next_scan) {
        kill_orphans(d);
        d->next_scan = now + TIDY_SCAN_MS;
    }
    for (int i = d->nstarts - 1; i >= 0; i--) /* downwards: a removal moves a later one */
        if (d->starting[i]->st.deadline <= now)
            start_late(d, d->starting[i]);
    for (int i = d->njobs - 1; i >= 0; i--)
        if (d->jobs[i]->st.deadline <= now)
            job_late(d, d->jobs[i]);
}

static int next_timeout(const spawnd_t *d)
{
    uint64_t now = now_ms(), due = d->eof ? d->give_up : (programs(d) ? d->next_scan : 0);
    uint64_t disk = d->eof ? 0 : spawndisk_next(&d->disk);
    if (disk && (!due || disk < due))
        due = disk;
    const kid_t *k;
    LIST_FOREACH(k, &d->kids, link)
    if (k->kill_at && (!due || k->kill_at < due))
        due = k->kill_at;
    for (int i = 0; i < d->nstarts; i++)
        if (!due || d->starting[i]->st.deadline < due)
            due = d->starting[i]->st.deadline;
    for (int i = 0; i < d->njobs; i++)
        if (!due || d->jobs[i]->st.deadline < due)
            due = d->jobs[i]->st.deadline;
    if (!due)
        return -1;
    return due <= now ? 0 : (int)(due - now < 60000 ? due - now : 60000);
}

/* Keeps only what starting programs needs, of what it has: switching ids,
 * signalling other users' processes, owning and reaching players' files,
 * following the links of the files a game maps (spawndisk.c). */
static void keep_caps(void)
{
    static const int KEEP[] = {CAP_SETUID,
                               CAP_SETGID,
                               CAP_KILL,
                               CAP_CHOWN,
                               CAP_FOWNER,
                               CAP_DAC_OVERRIDE,
                               CAP_DAC_READ_SEARCH,
                               CAP_CHECKPOINT_RESTORE};
    if (spawnd_caps_keep(KEEP, sizeof KEEP / sizeof KEEP[0]) < 0)
        log_warn("spawner: cannot narrow its capabilities: %s", strerror(errno));
}

int spawnd_caps_keep(const int *keep, size_t n)
{
    cap_value_t have[16];
    int k = 0;
    cap_t now = cap_get_proc(), c = cap_init();
    for (size_t i = 0; now && i < n && k < (int)(sizeof have / sizeof have[0]); i++) {
        cap_flag_value_t v = CAP_CLEAR;
        if (cap_get_flag(now, keep[i], CAP_PERMITTED, &v) == 0 && v == CAP_SET)
            have[k++] = keep[i];
    }
    bool set = now && c && (!k || cap_set_flag(c, CAP_PERMITTED, k, have, CAP_SET) == 0) &&
               (!k || cap_set_flag(c, CAP_EFFECTIVE, k, have, CAP_SET) == 0);
    int ret = set && cap_set_proc(c) == 0 ? 0 : -1;
    int e = errno;
    if (now)
        cap_free(now);
    if (c)
        cap_free(c);
    errno = e;
    return ret;
}

/* The process itself: signals, descriptors, subreaper, rights. */
static void setup(spawnd_t *d, int sock)
{
    static const int IGNORED[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
                                  SIGUSR1, SIGUSR2, SIGTTOU, SIGTTIN, SIGTSTP};
    for (size_t i = 0; i < sizeof IGNORED / sizeof IGNORED[0]; i++)
        signal(IGNORED[i], SIG_IGN); /* it ends when warrend does, not by a terminal's keys */
    setpgid(0, 0);                   /* nor by a signal to warrend's process group */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_SETMASK, &chld, NULL);
    d->sock = sock;
    d->req_fd = -1;
    d->self = getpid();
    if (sock != 3 && (dup3(sock, 3, O_CLOEXEC) < 0 || close(sock) < 0))
        _exit(1);
    d->sock = 3;
    close_range(4, ~0U, 0);
    d->sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    umask(022); /* modes are explicit; parents of games-dir stay passable */
    prctl(PR_SET_NAME, "warren-spawner");
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || d->sigfd < 0)
        log_error("spawner: cannot be a subreaper: %s", strerror(errno));
    if (geteuid() == 0) {
        setgroups(0, NULL); /* root's groups are no one's business here */
        keep_caps();
    }
}

/* The poll set: warrend's socket (not read while STARTS_MAX starts
 * wait, nor once it is gone), the signalfd, each start's report pipe,
 * each job's socket. */
static int poll_set(const spawnd_t *d, struct pollfd *p)
{
    bool read_sock = !d->eof && d->nstarts < STARTS_MAX;
    p[0] = (struct pollfd){read_sock ? d->sock : -1, POLLIN, 0};
    p[1] = (struct pollfd){d->sigfd, POLLIN, 0};
    for (int i = 0; i < d->nstarts; i++)
        p[2 + i] = (struct pollfd){d->starting[i]->st.report, POLLIN, 0};
    for (int i = 0; i < d->njobs; i++)
        p[2 + d->nstarts + i] = (struct pollfd){d->jobs[i]->st.report, POLLIN, 0};
    return 2 + d->nstarts + d->njobs;
}

void spawnd_run(const spawner_cfg_t *cfg, int sock)
{
    spawnd_t d;
    memset(&d, 0, sizeof d);
    d.cfg = cfg;
    d.fs.games_fd = -1;
    d.nets.scope = -1;
    hmap_init(&d.by_pid);
    hmap_init(&d.by_dir);
    LIST_INIT(&d.kids);
    setup(&d, sock);
    if (hmap_secret_init(&d.dir_key) < 0) /* still found, only not keyed against flooding */
        log_warn("spawner: no random key for its table of programs by player");
    spawndisk_init(&d.disk, cfg, &d.fs); /* after setup, which closes what was open */
    char err[300];
    filter_ready(&d, err, sizeof err); /* once; a failure is told at each start */
    for (;;) {
        struct pollfd p[2 + STARTS_MAX + JOBS_MAX + 2];
        int ns = d.nstarts, nj = d.njobs, n = poll_set(&d, p);
        p[n] = (struct pollfd){spawndisk_fd(&d.disk), POLLIN, 0}; /* last: the starts' stay */
        p[n + 1] = (struct pollfd){spawndisk_meter_fd(&d.disk), POLLIN, 0};
        int r = poll(p, (nfds_t)n + 2, next_timeout(&d));
        if (r > 0 && p[n].revents)
            spawndisk_events(&d.disk, now_ms());
        if (r > 0 && p[n + 1].revents)
            spawndisk_reports(&d.disk, now_ms(), on_disk, &d);
        if (r > 0 && p[1].revents)
            reap(&d);
        for (int i = ns - 1; r > 0 && i >= 0; i--) /* downwards: a removal moves a later one */
            if (p[2 + i].revents)
                start_report(&d, d.starting[i]);
        for (int i = nj - 1; r > 0 && i >= 0; i--)
            if (p[2 + ns + i].revents)
                job_report(&d, d.jobs[i]);
        if (r > 0 && p[0].revents)
            serve(&d);
        run_timers(&d);
        if (d.eof && (no_children() || now_ms() >= d.give_up))
            break;
    }
    _exit(0);
}
