/* config — a table of settings shared by the file parser and the flags. */
#include "config.h"
#include "db.h"
#include "proxyproto.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OPT_TEXT: a string shown to players, so no control characters */
/* OPT_NETS: networks as proxyproto.h reads them */
/* OPT_NODE: a node's name (config_node_ok) */
typedef enum {
    OPT_STR,
    OPT_INT,
    OPT_BOOL,
    OPT_ADDR,
    OPT_IPS,
    OPT_SIZE,
    OPT_TEXT,
    OPT_NETS,
    OPT_NODE
} opt_kind_t;

typedef struct {
    const char *name;
    opt_kind_t kind;
    size_t off, size;
    int min, max;
    const char *def; /* the default, as the file would give it; NULL: zero, off */
    const char *help;
} opt_t;

#define S(f) offsetof(config_t, f), sizeof(((config_t *)0)->f)
static const opt_t opts[] = {
    {"telnet", OPT_ADDR, S(telnet), 0, 0, "127.0.0.1:2323",
     "ADDR:PORT telnet listener (default 127.0.0.1:2323)"},
    {"http", OPT_ADDR, S(http), 0, 0, "127.0.0.1:8080",
     "ADDR:PORT web listener (default 127.0.0.1:8080)"},
    {"socket", OPT_STR, S(socket), 0, 0, NULL, "PATH Unix socket for local clients (default off)"},
    {"db", OPT_STR, S(db), 0, 0, "./var/warren.db",
     "PATH database file (default ./var/warren.db), or a postgresql:// URL"},
    {"control", OPT_STR, S(control), 0, 0, NULL,
     "PATH admin control socket, mode 0600 (default: DB.ctl; ./warren.ctl with PostgreSQL)"},
    {"content", OPT_STR, S(content), 0, 0, NULL, "DIR game content (default: the built-in one)"},
    {"daily-secret", OPT_STR, S(daily_secret), 0, 0, NULL,
     "PATH the daily game's secret as a file, made (0600) when absent, instead of the one in "
     "the database (default: none; the database's)"},
    {"grace", OPT_INT, S(grace), 0, 86400 * 7, "600", "SECONDS a detached game stays live (600)"},
    {"games-per-hour", OPT_INT, S(games_per_hour), 0, 10000, "60",
     "N new games of Warren's (and N hosted games' ends) one account may have in an hour, "
     "0 = no cap (60)"},
    {"max-connections", OPT_INT, S(max_conns), 1, 1000000, "5000", "N connections in total (5000)"},
    {"max-per-ip", OPT_INT, S(max_per_ip), 1, 1000000, "50", "N connections per address (50)"},
    {"request-rate", OPT_INT, S(request_rate), 0, 1000000, "20",
     "N HTTP requests, websocket upgrades and telnet connections a second from one address, "
     "0 = no limit (20)"},
    {"request-burst", OPT_INT, S(request_burst), 1, 1000000, "200",
     "N of those from one address at once before request-rate holds them (200)"},
    {"ipv6-prefix", OPT_INT, S(ipv6_prefix), 32, 128, "64",
     "BITS leading bits of an IPv6 address that per-address limits count as one client "
     "(64: a /64; 128: each address)"},
    {"input-rate", OPT_INT, S(input_rate), 1, 10000000, "2000",
     "BYTES/s input per connection (2000)"},
    {"idle-timeout", OPT_INT, S(idle_timeout), 1, 86400 * 7, "900", "SECONDS idle in menus (900)"},
    {"chat-show", OPT_INT, S(chat_show), 1, 3600, "12",
     "SECONDS a chat line stays on the game (12)"},
    {"snapshot-every", OPT_INT, S(snapshot_every), 1, 1000000, "200",
     "TURNS between snapshots (200)"},
    {"output-queue", OPT_INT, S(outq_max), 4096, 1 << 30, "262144",
     "BYTES queued per connection (262144)"},
    {"screen-cells", OPT_INT, S(screen_cells), 0, 1 << 30, "32000000",
     "N cells (columns x rows) past 80x24 that terminals larger than that are drawn at, all "
     "together; one past it is drawn at 80x24 until a resize finds room, 0 = no cap (32000000: "
     "about 512 MB: 400 terminals of 400x200, or 5,000 of 160x50)"},
    {"loops", OPT_INT, S(loops), 1, 64, "1",
     "N loops, one thread each, that Warren's games are spread over (1)"},
    {"listen-backlog", OPT_INT, S(listen_backlog), 1, 1 << 20, "4096",
     "N connections waiting to be accepted, at most net.core.somaxconn (4096)"},
    /* limits */
    {"trust-proxy", OPT_IPS, S(trust_proxy), 0, 0, NULL,
     "ADDR[,ADDR] proxies whose X-Forwarded-For/-Proto are believed (none)"},
    {"proxy-from", OPT_NETS, S(proxy_from), 0, 0, NULL,
     "ADDR[/BITS],... balancers whose connections start with a PROXY v2 or v1 header naming "
     "the client, on the telnet and web listeners (none)"},
    {"register-per-hour", OPT_INT, S(register_per_hour), 0, 1000000, "5",
     "N new accounts per address per hour, 0 = no limit here and in all (5)"},
    {"register-all-per-hour", OPT_INT, S(register_all_per_hour), 0, 1000000, "100",
     "N new accounts an hour from all addresses together, 0 = no limit (100)"},
    {"public-url", OPT_STR, S(public_url), 0, 0, NULL,
     "URL the site's address in links shown on terminals (default http://HTTP-ADDR)"},
    {"server-name", OPT_TEXT, S(server_name), 0, 0, NULL,
     "TEXT the server's name on the telnet banner and the web lobby (Warren)"},
    {"motd", OPT_TEXT, S(motd), 0, 0, NULL,
     "TEXT message of the day under the server's name (default: none)"},
    {"ssh-login", OPT_TEXT, S(ssh_login), 0, 0, NULL,
     "USER@HOST[:PORT] the ssh login shown with the telnet line (default: none)"},
    {"games-dir", OPT_STR, S(games_dir), 0, 0, NULL,
     "DIR players' directories for hosted games (default: DB's dir/games)"},
    {"games-user", OPT_STR, S(games_user), 0, 0, "warren-games",
     "USER whom hosted games run as when their section has no user, never root (warren-games)"},
    {"run-as", OPT_STR, S(run_as), 0, 0, NULL,
     "USER warrend started as root becomes once the spawner is forked (default: none)"},
    {"game-idle", OPT_INT, S(game_idle), 0, 86400 * 7, "3600",
     "SECONDS without a key before a hosted game is hung up, 0 = never (3600); a [game] "
     "section's idle overrides it"},
    {"record-max", OPT_SIZE, S(record_max), 0, 0, "32M",
     "BYTES of a hosted game's output recorded (K, M, G; 32M; 0 = no recordings)"},
    {"record-per-day", OPT_SIZE, S(record_per_day), 0, 0, "256M",
     "BYTES of output one account's hosted games record in 24 hours (K, M, G; 256M; 0 = no "
     "cap)"},
    {"hosted-max", OPT_INT, S(hosted_max), 1, 100000, "100",
     "N live hosted games in all, detached ones in their grace period too (100)"},
    {"hosted-per-ip", OPT_INT, S(hosted_per_ip), 1, 100000, "4",
     "N live hosted games started from one address (4)"},
    {"replay-max", OPT_SIZE, S(replay_max), 4096, 0, "64M",
     "BYTES of a replay's frames or asciicast before it is cut, marked truncated (K, M, G; 64M)"},
    {"replay-cache", OPT_SIZE, S(replay_cache), 0, 0, "64M",
     "BYTES of built replays kept, gzipped (K, M, G; 64M; 0 = none)"},
    {"replay-builds", OPT_INT, S(replay_builds), 1, 64, "2",
     "N replays built at once; hosted games' recordings take at most N-1 of them (2)"},
    {"replay-queue", OPT_INT, S(replay_queue), 0, 100000, "16",
     "N replays waiting to be built; more are answered 503 with Retry-After (16)"},
    {"hosted-output-rate", OPT_SIZE, S(hosted_output_rate), 0, 0, "128K",
     "BYTES/s of a hosted game's output read (K, M; 128K; 0 = no limit)"},
    {"test-hooks", OPT_BOOL, S(test_hooks), 0, 0, NULL, "enable the state-hash key (tests only)"},
    {"test-lists", OPT_BOOL, S(test_lists), 0, 0, NULL,
     "check the watch list against a rebuild every second (tests only)"},
    {"test-change-log", OPT_INT, S(test_change_log), 0, 4096, "4096",
     "N changes a loop's watch-list log holds before it is lost and the list rebuilt, 0 = "
     "every change lost (tests only; 4096)"},
    {"test-login-delay", OPT_INT, S(test_login_delay), 0, 60000, "0",
     "MS a login's password check takes at least, and its answer waits as long again once its "
     "account is read again (tests only; 0)"},
    {"test-copies", OPT_INT, S(test_copies), 1, 32, "32",
     "N hosted files reads at the spawner at once, at most (tests only; 32)"},
    {"test-jobs", OPT_INT, S(test_jobs), 1, 64, "64",
     "N rc file, xlogfile and files jobs the spawner runs at once, at most (tests only; 64)"},
    {"test-delete-hold", OPT_INT, S(test_delete_hold), 0, 60000, "0",
     "MS an account's delete waits between closing its games and deleting its rows (tests "
     "only; 0)"},
    {"test-resume-hold", OPT_INT, S(test_resume_hold), 0, 60000, "0",
     "MS a player's game waits, its lease taken, before its rows are read to resume it (tests "
     "only; 0)"},
    {"test-copy-retries", OPT_INT, S(test_copy_retries), 1, 240, "240",
     "N times a hosted game's last copy is asked again for a place at the spawner before it "
     "is given up (tests only; 240)"},
    {"test-read-budget", OPT_INT, S(test_read_budget), 0, 1000000, "0",
     "N keys a loop turn handles before the rest wait for the next turns, 0 = 8 ms of them "
     "(tests only; 0)"},
    /* storage */
    {"db-max-size", OPT_SIZE, S(db_max_size), 0, 0, NULL,
     "BYTES cap on the database (K, M, G; 0 = none): full acts as a full disk"},
    {"db-check-ms", OPT_INT, S(db_check_ms), 0, 3600000, "10000",
     "MS the quick check of the database at start may take, 0 = none (10000)"},
    {"db-busy-ms", OPT_INT, S(db_busy_ms), 1, 3600000, "5000",
     "MS a write waits for another program's lock on the database (5000)"},
    {"db-lock-wait-ms", OPT_INT, S(db_lock_wait_ms), DB_LOCK_WAIT_MIN, DB_LOCK_WAIT_MAX, "500",
     "MS a write waits for a row another PostgreSQL session holds before its batch is tried "
     "again (3 tries, then it fails as busy; 500)"},
    /* nodes */
    {"node", OPT_NODE, S(node), 0, 0, "",
     "NAME this daemon among several on one PostgreSQL: A-Z a-z 0-9 . _ -; empty: the host's "
     "name (the default)"},
    {"lease-ttl-ms", OPT_INT, S(lease_ttl_ms), 1000, 3600000, "10000",
     "MS a game's lease lasts unrenewed; then another node may take the game (10000)"},
    {"lease-renew-ms", OPT_INT, S(lease_renew_ms), 100, 600000, "3000",
     "MS between renewals of this node's leases, under lease-ttl-ms (3000)"},
    /* watching across nodes (peer.h) */
    {"peer-listen", OPT_ADDR, S(peer_listen), 0, 0, NULL,
     "ADDR:PORT the node-to-node stream's listener (default off; 127.0.0.1 if ADDR is empty)"},
    {"peers", OPT_STR, S(peers), 0, 0, NULL,
     "NAME=ADDR:PORT,... the other nodes' peer-listen; their addresses are trusted"},
    {"peer-secret", OPT_STR, S(peer_secret), 0, 0, NULL,
     "TEXT a node that sends it is trusted from any address (default: none)"},
    {"peer-queue", OPT_INT, S(peer_queue), 65536, 1 << 30, "1048576",
     "BYTES queued to one node; past it a game waits for a keyframe (1048576)"},
    {"peer-max-games", OPT_INT, S(peer_max_games), 0, 1000000, "4096",
     "N other nodes' games listed and watchable here (4096)"},
};
#undef S
#define NOPTS (sizeof opts / sizeof opts[0])

bool config_node_ok(const char *s)
{
    size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
    return n > 0 && n < 64 && s[n] == '\0';
}

/* The host's name, its other characters as '-' ("warren" without one). */
static void config_default_node(char *out, size_t n)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        snprintf(host, sizeof host, "warren");
    snprintf(out, n, "%.63s", host);
    for (char *p = out; *p; p++)
        if (!strchr("._-", *p) && !isalnum((unsigned char)*p))
            *p = '-';
}

int config_split_addr(const char *s, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s)
        return -1;
    const char *h = s;
    size_t hl = (size_t)(colon - s);
    if (h[0] == '[') {
        if (hl < 3 || h[hl - 1] != ']')
            return -1;
        h++;
        hl -= 2;
    }
    if (hl >= hostlen)
        return -1;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || p < 1 || p > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (int)p;
    return 0;
}

/* A comma-separated list of IPv4 or IPv6 addresses, no spaces ("" is an
 * empty list): 0, else -1. */
static int config_check_ips(const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        char one[64];
        unsigned char bin[16];
        if (n == 0 || n >= sizeof one)
            return -1;
        memcpy(one, p, n);
        one[n] = 0;
        if (inet_pton(AF_INET, one, bin) != 1 && inet_pton(AF_INET6, one, bin) != 1)
            return -1;
        if (p[n] == ',' && !p[n + 1])
            return -1; /* a trailing comma: an empty entry */
        p += n + (p[n] == ',');
    }
    return 0;
}

int config_parse_size(const char *s, int64_t *bytes)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    int shift = 0;
    if (*end) {
        static const char units[] = "kmg";
        char u = (char)(*end | 0x20);
        const char *at = u >= 'a' && u <= 'z' ? strchr(units, u) : NULL;
        if (!at || end[1])
            return -1;
        shift = (int)(at - units + 1) * 10;
    }
    if (errno || v > INT64_MAX >> shift)
        return -1;
    *bytes = (int64_t)v << shift;
    return 0;
}

static const opt_t *opt_find(const char *name)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (strcmp(opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

/* Printable UTF-8 (players see it): no control characters, no bad bytes. */
static bool config_text_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80             ? 0
                : (*p & 0xE0) == 0xC0 ? 1
                : (*p & 0xF0) == 0xE0 ? 2
                : (*p & 0xF8) == 0xF0 ? 3
                                      : -1;
        if (n < 0 || *p < 0x20 || *p == 0x7F || (*p >= 0xC0 && *p < 0xC2) || *p > 0xF4)
            return false;
        for (int i = 1; i <= n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return false;
        p += n + 1;
    }
    return true;
}

static int opt_set(config_t *c, const opt_t *o, const char *val, char *err, size_t errlen)
{
    char *field = (char *)c + o->off;
    if (o->kind == OPT_STR || o->kind == OPT_ADDR || o->kind == OPT_IPS || o->kind == OPT_TEXT ||
        o->kind == OPT_NETS || o->kind == OPT_NODE) {
        if (strlen(val) >= o->size) {
            snprintf(err, errlen, "%s: value too long", o->name);
            return -1;
        }
        if (o->kind == OPT_NODE && !val[0]) { /* the default: the host's name */
            config_default_node(field, o->size);
            return 0;
        }
        if (o->kind == OPT_NODE && !config_node_ok(val)) {
            snprintf(err, errlen, "%s: expected 1 to 63 of A-Z a-z 0-9 . _ -, got \"%s\"", o->name,
                     val);
            return -1;
        }
        if (o->kind == OPT_TEXT && !config_text_ok(val)) {
            snprintf(err, errlen, "%s: control characters or invalid UTF-8", o->name);
            return -1;
        }
        if (o->kind == OPT_IPS && config_check_ips(val)) {
            snprintf(err, errlen, "%s: expected addresses like 127.0.0.1,::1, got \"%s\"", o->name,
                     val);
            return -1;
        }
        const char *why = NULL;
        proxy_nets_t nets;
        if (o->kind == OPT_NETS && proxy_nets_parse(val, &nets, &why)) {
            snprintf(err, errlen, "%s: %s, got \"%s\"", o->name, why, val);
            return -1;
        }
        char host[128];
        int port;
        if (o->kind == OPT_ADDR && val[0] && config_split_addr(val, host, sizeof host, &port)) {
            snprintf(err, errlen, "%s: expected ADDR:PORT, got \"%s\"", o->name, val);
            return -1;
        }
        memcpy(field, val, strlen(val) + 1);
        return 0;
    }
    if (o->kind == OPT_SIZE) {
        if (config_parse_size(val, (int64_t *)field)) {
            snprintf(err, errlen, "%s: expected bytes with K, M or G, got \"%s\"", o->name, val);
            return -1;
        }
        if (*(int64_t *)field < o->min) {
            snprintf(err, errlen, "%s: at least %d bytes", o->name, o->min);
            return -1;
        }
        return 0;
    }
    if (o->kind == OPT_BOOL) {
        bool v;
        if (!strcmp(val, "") || !strcmp(val, "1") || !strcmp(val, "yes") || !strcmp(val, "true") ||
            !strcmp(val, "on"))
            v = true;
        else if (!strcmp(val, "0") || !strcmp(val, "no") || !strcmp(val, "false") ||
                 !strcmp(val, "off"))
            v = false;
        else {
            snprintf(err, errlen, "%s: expected yes or no, got \"%s\"", o->name, val);
            return -1;
        }
        *(bool *)field = v;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || *end || end == val || v < o->min || v > o->max) {
        snprintf(err, errlen, "%s: expected a number from %d to %d, got \"%s\"", o->name, o->min,
                 o->max, val);
        return -1;
    }
    *(int *)field = (int)v;
    return 0;
}

int config_defaults(config_t *c)
{
    memset(c, 0, sizeof *c);
    char err[160];
    int ret = 0;
    for (size_t i = 0; i < NOPTS; i++)
        if (opts[i].def && opt_set(c, &opts[i], opts[i].def, err, sizeof err))
            ret = -1;
    return ret;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

int config_test_keys(const config_t *c, char *out, size_t n)
{
    config_t def;
    config_defaults(&def); /* no game sections: nothing to free */
    int count = 0;
    size_t at = 0;
    if (n)
        out[0] = 0;
    for (size_t i = 0; i < NOPTS; i++) {
        const opt_t *o = &opts[i];
        if (strncmp(o->name, "test-", 5) != 0 ||
            memcmp((const char *)c + o->off, (const char *)&def + o->off, o->size) == 0)
            continue;
        if (at < n) {
            int w = snprintf(out + at, n - at, "%s%s", count ? ", " : "", o->name);
            at += w > 0 ? (size_t)w : 0;
        }
        count++;
    }
    return count;
}

static int config_line(config_t *c, char *line, char *err, size_t errlen)
{
    char *hash = strstr(line, " #");
    if (hash)
        *hash = 0;
    char *s = trim(line);
    if (!*s || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (!eq) {
        snprintf(err, errlen, "expected \"key = value\"");
        return -1;
    }
    *eq = 0;
    char *key = trim(s), *val = trim(eq + 1);
    const opt_t *o = opt_find(key);
    if (!o || !strcmp(key, "help")) {
        snprintf(err, errlen, "unknown setting \"%s\"", key);
        return -1;
    }
    return opt_set(c, o, val, err, errlen);
}

void config_free(config_t *c)
{
    gamecfg_list_free(&c->games);
}

/* The rest of the file, from its first section on, is hosted games. */
static int config_games(config_t *c, const char *text, size_t len, const char *name, int lineno,
                        char *err, size_t errlen)
{
    char msg[512];
    if (gamecfg_parse(&c->games, text, len, lineno, msg, sizeof msg) == 0)
        return 0;
    snprintf(err, errlen, "%s: %s", name, msg);
    return -1;
}

int config_parse(config_t *c, const char *text, size_t len, const char *name, char *err,
                 size_t errlen)
{
    char line[CONFIG_LINE_MAX + 1], msg[512];
    int lineno = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = (nl ? (size_t)(nl - text) : len) - at;
        lineno++;
        const char *why = NULL;
        if (text[at] == '[')
            return config_games(c, text + at, len - at, name, lineno, err, errlen);
        if (n > CONFIG_LINE_MAX)
            why = "line too long";
        else if (memchr(text + at, 0, n))
            why = "NUL byte in the line";
        else {
            memcpy(line, text + at, n);
            line[n] = 0;
            if (config_line(c, line, msg, sizeof msg) == 0) {
                at += n + 1;
                continue;
            }
            why = msg;
        }
        snprintf(err, errlen, "%s:%d: %s", name, lineno, why);
        return -1;
    }
    return 0;
}

int config_load_file(config_t *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = malloc(CONFIG_FILE_MAX + 1);
    size_t len = text ? fread(text, 1, CONFIG_FILE_MAX + 1, f) : 0;
    int bad = !text || ferror(f);
    fclose(f);
    int ret = -1;
    if (bad)
        snprintf(err, errlen, "%s: cannot read", path);
    else if (len > CONFIG_FILE_MAX)
        snprintf(err, errlen, "%s: larger than %d bytes", path, CONFIG_FILE_MAX);
    else
        ret = config_parse(c, text, len, path, err, errlen);
    free(text);
    return ret;
}

/* "--name=value" or "--name value"; booleans take no value. */
static int arg_take(int argc, char **argv, int *i, const char **name, size_t *nlen,
                    const char **val)
{
    const char *a = argv[*i] + 2;
    const char *eq = strchr(a, '=');
    *name = a;
    *nlen = eq ? (size_t)(eq - a) : strlen(a);
    *val = eq ? eq + 1 : NULL;
    (void)argc;
    return 0;
}

int config_from_args(config_t *c, int argc, char **argv, char *err, size_t errlen)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 1; i < argc; i++) {
            if (strncmp(argv[i], "--", 2) != 0) {
                snprintf(err, errlen, "unexpected argument \"%s\" (try --help)", argv[i]);
                return -1;
            }
            const char *name, *val;
            size_t nlen;
            arg_take(argc, argv, &i, &name, &nlen, &val);
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(nlen < 63 ? nlen : 63), name);
            bool is_conf = !strcmp(key, "config");
            const opt_t *o = opt_find(key);
            bool takes = is_conf || (o && o->kind != OPT_BOOL);
            if (takes && !val) {
                if (i + 1 >= argc) {
                    snprintf(err, errlen, "--%s needs a value", key);
                    return -1;
                }
                val = argv[++i];
            }
            if (!strcmp(key, "help") || !strcmp(key, "version")) {
                if (pass == 1)
                    *(key[0] == 'h' ? &c->help : &c->version) = true;
                continue;
            }
            if (is_conf) {
                if (pass == 0 && config_load_file(c, val, err, errlen))
                    return -1;
                continue;
            }
            if (!o) {
                snprintf(err, errlen, "unknown option --%s (try --help)", key);
                return -1;
            }
            if (pass == 1 && opt_set(c, o, val ? val : "", err, errlen))
                return -1;
        }
    }
    if (c->lease_renew_ms >= c->lease_ttl_ms) {
        snprintf(err, errlen, "lease-renew-ms (%d) must be under lease-ttl-ms (%d)",
                 c->lease_renew_ms, c->lease_ttl_ms);
        return -1;
    }
    return 0;
}

void config_print_usage(FILE *out)
{
    fputs("usage: warrend [options]\n"
          "  --config FILE       read settings from FILE (key = value lines)\n",
          out);
    for (size_t i = 0; i < NOPTS; i++) {
        /* a valued option's help starts with its metavariable ("PATH ...") */
        const char *help = opts[i].help, *sp = strchr(help, ' ');
        int mlen = opts[i].kind == OPT_BOOL || !sp ? 0 : (int)(sp - help);
        char flag[48];
        snprintf(flag, sizeof flag, "--%s%s%.*s", opts[i].name, mlen ? " " : "", mlen, help);
        fprintf(out, "  %-19s %s\n", flag, mlen ? sp + 1 : help);
    }
    fputs("  --help              this text\n  --version           print the version\n", out);
}

int config_control_path(const config_t *c, char *out, size_t outlen)
{
    int n = c->control[0]         ? snprintf(out, outlen, "%s", c->control)
            : db_is_server(c->db) ? snprintf(out, outlen, "./warren.ctl")
                                  : snprintf(out, outlen, "%s.ctl", c->db);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
