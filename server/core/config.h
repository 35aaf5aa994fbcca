/* config — warrend's settings: defaults, a config file, command-line flags.
 *
 * File format (one setting per line):
 *     # comment            blank lines and lines starting with # are ignored
 *     telnet = 127.0.0.1:2323
 *     grace  = 600         # a trailing " #..." is a comment too
 * Keys are the long flag names without "--" (see config_print_usage). Flags given
 * on the command line override the file; the file overrides the defaults.
 * An empty value ("http =") turns a listener off. Unknown keys, bad numbers
 * and bad addresses are errors with "file:line: message".
 * The file may end with hosted games: from the first "[game ID]" line on,
 * the text is gamecfg.h's. */
#ifndef WARREN_CONFIG_H
#define WARREN_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gamecfg.h"

typedef struct {
    char telnet[128]; /* ADDR:PORT, "" = off */
    char http[128];   /* ADDR:PORT, "" = off */
    char socket[256]; /* Unix socket path, "" = off */
    char db[256];
    char control[256];  /* admin control socket; "" = the database path + ".ctl" */
    char content[256];  /* "" = the built-in location */
    int grace;          /* seconds a detached game stays live */
    int games_per_hour; /* new games of Warren's one account starts in an hour (and hosted
                           games it ended: hostgame.c); 0 = no cap */
    int max_conns;      /* connections in total */
    int max_per_ip;
    int request_rate;   /* requests and telnet connections a second per address (0 = no limit) */
    int request_burst;  /* ... and at once (addrrate.h) */
    int ipv6_prefix;    /* IPv6 bits per-address limits count as one address (addrkey.h) */
    int input_rate;     /* input bytes per second per connection (burst 4x) */
    int idle_timeout;   /* seconds of no input in menus before disconnect */
    int chat_show;      /* seconds a chat line stays on a game's strip (screens/chat.c) */
    int snapshot_every; /* turns between periodic snapshots */
    int outq_max;       /* bytes queued per connection before frames are skipped */
    int screen_cells;   /* cells past 80x24 all terminals are drawn at together; 0: no cap */
    int listen_backlog; /* connections the kernel holds for accept (clamped by somaxconn) */
    int loops;          /* loops (threads) Warren's games are spread over (shard.h) */
    /* limits: who the web listener believes, how many accounts an address makes */
    char trust_proxy[256];     /* ADDR[,ADDR]: proxies whose X-Forwarded-* are believed */
    char proxy_from[512];      /* ADDR[/BITS], ...: balancers that send a PROXY header first */
    int register_per_hour;     /* new accounts per address per hour (0 = no limit) */
    int register_all_per_hour; /* new accounts an hour from all addresses (0 = no limit) */
    char public_url[200];      /* the site's address as players reach it, for links */
    char server_name[64];      /* the first screens' title (siteinfo.h); "" = Warren */
    char motd[240];            /* message of the day under it; "" = none */
    char ssh_login[128];       /* USER@HOST[:PORT] shown as how to connect; "" = none */
    int game_idle;          /* seconds without a key before a hosted game is hung up (0: never) */
    char games_dir[256];    /* players' directories of hosted games; "" = DB's dir/games */
    char games_user[33];    /* whom hosted games run as when a section has no user */
    char run_as[33];        /* the user a root warrend becomes (privsep.h); "" = none */
    int64_t record_max;     /* bytes of a hosted game's output recorded; 0 = none */
    int64_t record_per_day; /* bytes one account's hosted games record in 24 h; 0 = no cap */
    int hosted_max;         /* live hosted games in all (hostcap.h) */
    int hosted_per_ip;      /* live hosted games started from one address */
    int64_t replay_max;     /* bytes of a replay's or cast's body before it is cut */
    int64_t replay_cache;   /* bytes of gzipped replay bodies kept (0: none) */
    int replay_builds;      /* replays built at once (records.h) */
    int replay_queue;       /* replays waiting to be built before 503 */
    int64_t hosted_output_rate; /* a hosted game's output bytes read a second; 0 = no limit */
    gamecfg_list_t games;       /* [game ID] sections; owned (config_free) */
    /* storage */
    int64_t db_max_size; /* bytes the database may grow to; 0 = no cap */
    int db_check_ms;     /* the quick check at start may run this long; 0 = none */
    int db_busy_ms;      /* a write waits this long for another program's lock */
    int db_lock_wait_ms; /* PostgreSQL: a write waits this long for another's row lock */
    /* nodes: several daemons on one PostgreSQL (lease.h) */
    char node[64];      /* this daemon's name: [A-Za-z0-9._-], default the host's name */
    int lease_ttl_ms;   /* a game's lease lasts this long unrenewed (10000) */
    int lease_renew_ms; /* the heartbeat renews every lease this often (3000) */
    /* watching across nodes (peer.h) */
    char peer_listen[64];  /* the node-to-node stream's listener; "" = off */
    char peers[1024];      /* NAME=ADDR:PORT,...: the other nodes, trusted by address */
    char peer_secret[128]; /* trusted from any address when sent; "" = none */
    int peer_queue;        /* bytes queued to one node before frames wait (1 MiB) */
    int peer_max_games;    /* other nodes' games mirrored here at most (4096) */
    /* the daily game (daily.h) */
    char daily_secret[256]; /* its secret's file; "" = the one in the database (daily.h) */
    bool test_hooks; /* F12 in a game logs "hook user=... hash=... turn=... seq=... stored=..." */
    bool test_lists; /* the watch list checked against a rebuild each sync (wlist.c) */
    int test_change_log;   /* changes a loop's watch-list log holds before it is lost (session.c) */
    int test_jobs;         /* jobs the spawner runs at once (spawner.h: SPAWNER_RC_MAX) */
    int test_copies;       /* files reads at the spawner at once (spawner.h: SPAWNER_COPIES_MAX) */
    int test_copy_retries; /* a last copy asked again at most (hostcopy.h: HOSTCOPY_RETRIES) */
    int test_login_delay;  /* ms a login's password check takes at least (accounts.c) */
    int test_delete_hold;  /* ms a delete waits before its rows go (admin/control_mod.c) */
    int test_resume_hold;  /* ms a player's resume waits, its lease taken (session_load.c) */
    int test_read_budget;  /* keys a loop turn handles, 0: READTURN_NS of them (readturn.h) */
    bool help, version;
} config_t;

/* Every setting at its default: 0, or -1 when a default in the table does
 * not parse (a bug: the unit tests check it never does). */
int config_defaults(config_t *c);
void config_free(config_t *c); /* what the file's game sections hold */
/* The test-only keys (test-*) c sets off their defaults, named in out
 * ("test-hooks, test-login-delay"; "" when none): how many. They weaken a
 * server (cheap password hashes, a state-hash key, slowed logins, fewer
 * spawner jobs), so the daemon says so loudly at start. */
int config_test_keys(const config_t *c, char *out, size_t n);
/* Parses argv into c: first finds --config and reads that file, then applies
 * every other flag. Returns 0, or -1 with a message in err. */
int config_from_args(config_t *c, int argc, char **argv, char *err, size_t errlen);
int config_load_file(config_t *c, const char *path, char *err, size_t errlen);
/* Parses the text of a config file (len bytes, no NUL needed), applying each
 * line to c in order; name is the file name for messages. A line longer than
 * CONFIG_LINE_MAX bytes or holding a NUL byte is an error. Returns 0, or -1
 * with "name:line: message" in err (the lines before it stay applied). */
#define CONFIG_LINE_MAX 1023
#define CONFIG_FILE_MAX (1 << 20)
int config_parse(config_t *c, const char *text, size_t len, const char *name, char *err,
                 size_t errlen);
/* A size in bytes: digits with an optional K, M or G (powers of 1024).
 * Returns 0 with *bytes, or -1. */
int config_parse_size(const char *s, int64_t *bytes);
/* Splits "host:port" ("[v6]:port" too). Returns 0 or -1. */
int config_split_addr(const char *s, char *host, size_t hostlen, int *port);
void config_print_usage(FILE *out);
/* The admin control socket's path: cfg.control, else cfg.db + ".ctl".
 * Returns 0, or -1 if it does not fit in out. */
int config_control_path(const config_t *c, char *out, size_t outlen);
/* Whether s is a good node name: 1 to 63 of A-Z a-z 0-9 . _ - */
bool config_node_ok(const char *s);

#endif
