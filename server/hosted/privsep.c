/* privsep — the spawner forked, then root's rights dropped (privsep.h). */
#include "privsep.h"
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "log.h"
#include "spawner.h"

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 32 && s[0] != '-' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* Whether a listener (ADDR:PORT) needs a port below 1024. */
static bool low_port(const char *addr)
{
    char host[128];
    int port;
    return addr[0] && config_split_addr(addr, host, sizeof host, &port) == 0 && port < 1024;
}

/* games-dir, or the database's directory + /games. */
static void games_dir(const config_t *cfg, char *out, size_t n)
{
    if (cfg->games_dir[0]) {
        snprintf(out, n, "%s", cfg->games_dir);
        return;
    }
    const char *slash = strrchr(cfg->db, '/');
    int len = slash ? (int)(slash - cfg->db) : 1;
    snprintf(out, n, "%.*s/games", len, slash ? cfg->db : ".");
}

/* run-as looked up into u (u->uid 0 when there is none). */
static int run_as_user(const config_t *cfg, spawner_user_t *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    if (!cfg->run_as[0])
        return 0;
    if (!name_ok(cfg->run_as) || spawner_user_lookup(cfg->run_as, u) < 0)
        return snprintf(err, errlen, "run-as %s: %s", cfg->run_as,
                        u->why[0] ? u->why : "not a user name"),
               -1;
    if (u->uid == 0)
        return snprintf(err, errlen, "run-as %s: uid 0 is what it is meant to leave", cfg->run_as),
               -1;
    if (geteuid() != 0 && geteuid() != u->uid)
        return snprintf(err, errlen, "run-as %s: warrend is not root, so it cannot become %s",
                        cfg->run_as, cfg->run_as),
               -1;
    return 0;
}

/* The checks and the start-up lines about whom games run as. */
static int check_games(const config_t *cfg, const spawner_cfg_t *sc, const spawner_user_t *run,
                       char *err, size_t errlen)
{
    for (int i = 0; i < cfg->games.n; i++) {
        const spawner_user_t *u = &sc->users[i];
        if (run->uid && u->sw && u->uid == run->uid)
            return snprintf(err, errlen,
                            "[game %s]: runs as run-as %s: the game could read the "
                            "database; give it another user",
                            cfg->games.games[i].id, cfg->run_as),
                   -1;
        if (!u->ok)
            log_warn("hosted game %s: %s (make deps or deploy/RUNNING.md creates it)",
                     cfg->games.games[i].id, u->why);
    }
    if (cfg->games.n && geteuid() != 0)
        log_warn("warrend is not root: hosted games run as its own user (uid %u) and could read "
                 "its database; start it as root with run-as (deploy/RUNNING.md)",
                 (unsigned)geteuid());
    return 0;
}

/* Keeps CAP_NET_BIND_SERVICE (only) across the uid change. */
static int keep_bind_cap(void)
{
    cap_value_t v = CAP_NET_BIND_SERVICE;
    cap_t c = cap_init();
    int ret = !c || cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET) < 0 ||
                      cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET) < 0 || cap_set_proc(c) < 0
                  ? -1
                  : 0;
    if (c)
        cap_free(c);
    return ret;
}

static int drop(const config_t *cfg, const spawner_user_t *u, char *err, size_t errlen)
{
    bool bind = low_port(cfg->telnet) || low_port(cfg->http);
    if ((bind && prctl(PR_SET_KEEPCAPS, 1) < 0) || setgroups((size_t)u->ngroups, u->groups) < 0 ||
        setgid(u->gid) < 0 || setuid(u->uid) < 0 ||
        (bind && (keep_bind_cap() < 0 || prctl(PR_SET_KEEPCAPS, 0) < 0)))
        return snprintf(err, errlen, "run-as %s: %s", cfg->run_as, strerror(errno)), -1;
    if (setuid(0) == 0 || geteuid() != u->uid || getegid() != u->gid)
        return snprintf(err, errlen, "run-as %s: root's rights are not gone", cfg->run_as), -1;
    log_info("running as %s (uid %u gid %u)%s", cfg->run_as, (unsigned)u->uid, (unsigned)u->gid,
             bind ? ", allowed to bind ports below 1024" : "");
    return 0;
}

int privsep_start(const config_t *cfg, struct spawner **sp, char *err, size_t errlen)
{
    *sp = NULL;
    if (!name_ok(cfg->games_user))
        return snprintf(err, errlen, "games-user: bad user name \"%s\"", cfg->games_user), -1;
    if (!strcmp(cfg->games_user, "root"))
        return snprintf(err, errlen, "games-user: hosted games never run as root"), -1;
    spawner_user_t run;
    spawner_cfg_t sc;
    char dir[256];
    games_dir(cfg, dir, sizeof dir);
    bool root = geteuid() == 0;
    if (run_as_user(cfg, &run, err, errlen) < 0 ||
        spawner_config(&sc, &cfg->games, cfg->games_user, dir,
                       root && run.uid ? run.uid : geteuid(), root && run.uid ? run.gid : getegid(),
                       err, errlen) < 0 ||
        check_games(cfg, &sc, &run, err, errlen) < 0)
        return -1;
    if (cfg->test_copies > 0 && cfg->test_copies < SPAWNER_COPIES_MAX)
        sc.copies_max = cfg->test_copies;
    if (cfg->test_jobs > 0 && cfg->test_jobs < SPAWNER_RC_MAX)
        sc.jobs_max = cfg->test_jobs;
    if (!(*sp = spawner_start(&sc, err, errlen)))
        return -1;
    if (root && run.uid)
        return drop(cfg, &run, err, errlen);
    if (root)
        log_warn("warrend runs as root: set run-as (deploy/RUNNING.md) so that it drops root's "
                 "rights once the spawner is started");
    return 0;
}
