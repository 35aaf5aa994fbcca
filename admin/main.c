/* warren-admin — the administrator's tool. Talks to the running warrend
 * through its control socket (a Unix socket of mode 0600, so it runs as the
 * daemon's user): one command line out, the answer back. See
 * server/admin/control.c for the commands and deploy/RUNNING.md for its use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include "config.h"
#include "db.h"
#include "migrate_db.h"

#define VERSION   "0.1.0"
#define LINE_MAX_ 1024

static void usage(FILE *out)
{
    fprintf(out, "usage: warren-admin [--config FILE] [--db PATH] [--control PATH] COMMAND [ARGS]\n"
                 "Commands (sent to the running warrend; each is logged by it):\n"
                 "  users              list accounts: name, created, locked, games, live game\n"
                 "  games              list live games: player, game, depth, turn, idle, watchers\n"
                 "  lock NAME          lock an account: it cannot log in; its live game is saved\n"
                 "  unlock NAME        unlock it again\n"
                 "  passwd NAME        set a new password, read from the terminal or stdin\n"
                 "  announce TEXT      show TEXT on every menu for 5 minutes, games 8 s\n"
                 "                     (\"announce\" with no text takes it down)\n"
                 "  health             quick check, sizes, unfinished games, journal rows,\n"
                 "                     storage (ok, or failing, stalled or lost since when and\n"
                 "                     why), the database cap, broken games\n"
                 "  check-db           the full integrity check of the database (slow on a big\n"
                 "                     one; the games go on meanwhile)\n"
                 "  db-max-size SIZE   cap the database now (bytes, or with K, M, G; 0 lifts\n"
                 "                     the cap) until warrend restarts: `db-max-size` in the\n"
                 "                     config sets it at start\n"
                 "  kick NAME          close the account's connections (not locked; its game\n"
                 "                     waits for its player as after any disconnection)\n"
                 "  ban ADDR[/PREFIX] [DURATION]\n"
                 "                     refuse connections from an address or network (IPv4 or\n"
                 "                     IPv6) on every door, for DURATION (90s, 30m, 12h, 7d,\n"
                 "                     2w) or until lifted; its open telnet connections close\n"
                 "  unban ADDR[/PREFIX] lift a ban\n"
                 "  bans               list bans and chat mutes in force\n"
                 "  end NAME           end the account's live game as abandoned (its record,\n"
                 "                     journal and page are kept)\n"
                 "  delete NAME --yes  delete the account and all its games from every page\n"
                 "  rename OLD NEW     rename an account (its games follow; it logs in again)\n"
                 "  mute NAME [DURATION]\n"
                 "                     keep the account out of spectator chat\n"
                 "  unmute NAME        let it chat again\n"
                 "  drain [--message TEXT] [--deadline SECONDS]\n"
                 "                     take this node out of service for an upgrade: /health\n"
                 "                     answers 503, no new game starts, players are told TEXT;\n"
                 "                     once none is in a game (within SECONDS, default 30)\n"
                 "                     every game is saved and warrend stops cleanly (exit 0)\n"
                 "  drain --status     whether a drain is under way, and how far\n"
                 "Command on the databases themselves (warrend stopped):\n"
                 "  migrate-db [--replace] FROM TO\n"
                 "                     copy a database (a SQLite file or a postgresql:// URL)\n"
                 "                     into another, each table's rows counted and checksummed\n"
                 "                     on both sides; a target holding accounts or games is\n"
                 "                     refused unless --replace (its rows deleted first)\n"
                 "The control socket is --control PATH, else the config file's\n"
                 "`control` setting, else the database path with \".ctl\" added\n"
                 "(default ./var/warren.db.ctl). It has mode 0600: run as warrend's user.\n");
}

/* Reads one line: from the terminal without echo, else from stdin. */
static int read_password(char *pw, size_t n)
{
    struct termios old, quiet;
    bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        fprintf(stderr, "New password: ");
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char *ok = fgets(pw, (int)n, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fprintf(stderr, "\n");
    }
    if (!ok)
        return -1;
    pw[strcspn(pw, "\r\n")] = '\0';
    return 0;
}

#define DRAIN_DEFAULT_S "30"  /* seconds a drain may take when --deadline is not given */
#define DRAIN_MAX_S     86400 /* the daemon's longest deadline (CTL_DRAIN_MAX_S) */

/* --deadline's value: whole seconds from 1 to DRAIN_MAX_S, said in the
 * tool's own words (the control line's usage names no option). */
static bool drain_secs_ok(const char *secs)
{
    size_t n = strlen(secs);
    if (n > 0 && n <= 5 && strspn(secs, "0123456789") == n) {
        long v = strtol(secs, NULL, 10);
        if (v >= 1 && v <= DRAIN_MAX_S)
            return true;
    }
    fprintf(stderr,
            "warren-admin: drain: --deadline takes whole seconds, from 1 to %d (not \"%s\")\n",
            DRAIN_MAX_S, secs);
    return false;
}

/* drain's options into "drain SECONDS [TEXT]" or "drain-status". */
static int build_drain(int argc, char **argv, int i, char *line, size_t n)
{
    const char *msg = "", *secs = NULL;
    bool status = false;
    for (int a = i + 1; a < argc; a++) {
        bool has = a + 1 < argc;
        if (!strcmp(argv[a], "--status"))
            status = true;
        else if (!strcmp(argv[a], "--message") && has)
            msg = argv[++a];
        else if (!strcmp(argv[a], "--deadline") && has)
            secs = argv[++a];
        else {
            fprintf(stderr, "warren-admin: usage: drain [--message TEXT] [--deadline SECONDS] "
                            "| drain --status\n");
            return -1;
        }
    }
    if (!status && secs && !drain_secs_ok(secs))
        return -1;
    int len = status ? snprintf(line, n, "drain-status\n")
                     : snprintf(line, n, "drain %s%s%s\n", secs ? secs : DRAIN_DEFAULT_S,
                                msg[0] ? " " : "", msg);
    if (len < 0 || (size_t)len >= n || strchr(line, '\n') != line + len - 1) {
        fprintf(stderr, "warren-admin: drain: message too long or with a line break\n");
        return -1;
    }
    return 0;
}

/* The command line to send, from argv[i..]; -1 with a message on misuse. */
static int build_line(int argc, char **argv, int i, char *line, size_t n)
{
    static const struct {
        const char *name;
        int min, max; /* words after the command; max -1: any (joined with spaces) */
    } CMDS[] = {{"users", 0, 0},       {"games", 0, 0},   {"lock", 1, 1},      {"unlock", 1, 1},
                {"passwd", 1, 1},      {"health", 0, 0},  {"announce", 0, -1}, {"kick", 1, 1},
                {"ban", 1, 2},         {"unban", 1, 1},   {"bans", 0, 0},      {"end", 1, 1},
                {"delete", 2, 2},      {"rename", 2, 2},  {"mute", 1, 2},      {"unmute", 1, 1},
                {"db-max-size", 1, 1}, {"check-db", 0, 0}};
    const char *cmd = argv[i];
    int nargs = argc - i - 1;
    if (!strcmp(cmd, "drain"))
        return build_drain(argc, argv, i, line, n);
    for (size_t k = 0; k < sizeof CMDS / sizeof CMDS[0]; k++) {
        if (strcmp(cmd, CMDS[k].name) != 0)
            continue;
        if (!strcmp(cmd, "delete") && (nargs != 2 || strcmp(argv[i + 2], "--yes") != 0)) {
            fprintf(stderr, "warren-admin: delete removes the account and all its games: "
                            "confirm with delete NAME --yes\n");
            return -1;
        }
        if (nargs < CMDS[k].min || (CMDS[k].max >= 0 && nargs > CMDS[k].max)) {
            fprintf(stderr, "warren-admin: wrong arguments for %s (see warren-admin --help)\n",
                    cmd);
            return -1;
        }
        size_t len = (size_t)snprintf(line, n, "%s", cmd);
        for (int a = i + 1; a < argc && len < n; a++)
            len += (size_t)snprintf(line + len, n - len, " %s", argv[a]);
        if (strcmp(cmd, "passwd") == 0 && len < n) {
            char pw[256];
            if (read_password(pw, sizeof pw) < 0) {
                fprintf(stderr, "warren-admin: no password given\n");
                return -1;
            }
            len += (size_t)snprintf(line + len, n - len, " %s", pw);
            memset(pw, 0, sizeof pw);
        }
        if (len + 2 >= n || strchr(line, '\n')) {
            fprintf(stderr, "warren-admin: command too long\n");
            return -1;
        }
        memcpy(line + len, "\n", 2);
        return 0;
    }
    fprintf(stderr, "warren-admin: unknown command: %s\n", cmd);
    usage(stderr);
    return -1;
}

/* Sends line, copies the answer to stdout (the error line to stderr).
 * Returns the exit status: 0 ok, 1 error or no daemon. */
static int talk(const char *path, const char *line)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "warren-admin: socket path too long: %s\n", path);
        return 1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        fprintf(
            stderr,
            "warren-admin: cannot connect to %s: %s (is warrend running, and are you its user?)\n",
            path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t w = write(fd, line + off, len - off);
        if (w <= 0) {
            fprintf(stderr, "warren-admin: write: %s\n", strerror(errno));
            close(fd);
            return 1;
        }
        off += (size_t)w;
    }
    FILE *in = fdopen(fd, "r");
    char buf[4096];
    int ret = 1;
    bool ended = false;
    while (in && fgets(buf, sizeof buf, in)) {
        if (strcmp(buf, "ok\n") == 0) {
            ret = 0, ended = true;
        } else if (strncmp(buf, "error: ", 7) == 0) {
            fprintf(stderr, "warren-admin: %s", buf + 7);
            ended = true;
        } else
            fputs(buf, stdout);
    }
    if (!ended)
        fprintf(stderr, "warren-admin: the daemon closed the connection without an answer\n");
    if (in)
        fclose(in);
    else
        close(fd);
    return ret;
}

int main(int argc, char **argv)
{
    config_t cfg;
    config_defaults(&cfg);
    char err[512], line[LINE_MAX_ + 2], path[300];
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("warren-admin %s\n", VERSION);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "warren-admin: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--config")) {
            if (config_load_file(&cfg, argv[++i], err, sizeof err)) {
                fprintf(stderr, "warren-admin: %s\n", err);
                return 2;
            }
        } else if (!strcmp(a, "--db")) {
            snprintf(cfg.db, sizeof cfg.db, "%s", argv[++i]);
            db_hide_secret(argv[i]); /* out of ps */
        } else if (!strcmp(a, "--control"))
            snprintf(cfg.control, sizeof cfg.control, "%s", argv[++i]);
        else {
            fprintf(stderr, "warren-admin: unknown option: %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[i], "migrate-db") == 0)
        return admin_migrate_db(argc, argv, i);
    if (build_line(argc, argv, i, line, sizeof line))
        return 2;
    if (config_control_path(&cfg, path, sizeof path)) {
        fprintf(stderr, "warren-admin: control socket path too long\n");
        return 2;
    }
    int ret = talk(path, line);
    memset(line, 0, sizeof line);
    return ret;
}
