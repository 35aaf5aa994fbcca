/* warren: the terminal client. Connects to a warrend (its Unix socket by
 * default, or HOST:PORT) and plays in the user's own terminal. With --ssh
 * it is the login command of the ssh account and passes the ssh client's
 * address on to the daemon. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "term.h"

#ifndef WARREN_VERSION
#define WARREN_VERSION "0.1.0"
#endif

static void main_usage(FILE *f)
{
    fprintf(f,
            "usage: warren [--ssh] [--socket PATH | ADDRESS]\n"
            "Play Warren in this terminal, connected to a warrend.\n"
            "\n"
            "  ADDRESS        HOST:PORT or HOST (port " TARGET_DEFAULT_PORT
            ") for the daemon's telnet\n"
            "                 gateway, or a path to its Unix socket\n"
            "  --socket PATH  the daemon's Unix socket. Default: $WARREN_SOCKET, else\n"
            "                 the first of " TARGET_LOCAL_SOCKET " and " TARGET_SYSTEM_SOCKET "\n"
            "                 that exists, else " TARGET_LOCAL_TCP "\n"
            "  --ssh          login command for the ssh account: passes the address\n"
            "                 from $SSH_CONNECTION to the daemon (NEW-ENVIRON REMOTE_ADDR)\n"
            "  --help         show this help\n"
            "  --version      show the version\n"
            "\n"
            "The terminal is put back as it was when warren ends, whatever the reason.\n");
}

/* The first field of SSH_CONNECTION, if it is a valid IPv4/IPv6 address. */
static const char *main_ssh_addr(char *buf, size_t len)
{
    const char *conn = getenv("SSH_CONNECTION");
    unsigned char tmp[16];
    size_t n;
    if (!conn)
        return NULL;
    n = strcspn(conn, " ");
    if (n == 0 || n >= len)
        return NULL;
    memcpy(buf, conn, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET, buf, tmp) != 1 && inet_pton(AF_INET6, buf, tmp) != 1)
        return NULL;
    return buf;
}

typedef struct main_args_t {
    const char *target;
    int ssh;
} main_args_t;

/* Returns -1 to exit with status 0 (help, version), 1 on a usage error. */
static int main_parse(int argc, char **argv, main_args_t *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            main_usage(stdout);
            return -1;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("warren %s\n", WARREN_VERSION);
            return -1;
        }
        if (strcmp(arg, "--ssh") == 0) {
            a->ssh = 1;
        } else if (strcmp(arg, "--socket") == 0 && i + 1 < argc) {
            a->target = argv[++i];
        } else if (strncmp(arg, "--socket=", 9) == 0) {
            a->target = arg + 9;
        } else if (arg[0] != '-' && !a->target) {
            a->target = arg;
        } else {
            fprintf(stderr, "warren: unexpected argument: %s\n", arg);
            main_usage(stderr);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    main_args_t args = {0};
    client_opts_t opts;
    char err[256], addr[64];
    uv_loop_t loop;
    client_t *c;
    int ret = main_parse(argc, argv, &args), code;

    if (ret)
        return ret < 0 ? 0 : 2;
    memset(&opts, 0, sizeof opts);
    if (target_parse(&opts.target, args.target, err, sizeof err) < 0) {
        fprintf(stderr, "warren: %s\n", err);
        return 2;
    }
    opts.ssh = args.ssh;
    opts.ttype = getenv("TERM") && *getenv("TERM") ? getenv("TERM") : "UNKNOWN";
    opts.remote_addr = args.ssh ? main_ssh_addr(addr, sizeof addr) : NULL;

    if (uv_loop_init(&loop) < 0) {
        fprintf(stderr, "warren: cannot start the event loop\n");
        return 1;
    }
    c = client_new(&loop, &opts);
    if (!c) {
        fprintf(stderr, "warren: out of memory\n");
        return 1;
    }
    client_start(c);
    uv_run(&loop, UV_RUN_DEFAULT);
    term_restore();
    if (isatty(STDOUT_FILENO))
        fputs("\033[0m\033[?25h\r\n", stdout); /* the game may leave colours or a hidden cursor */
    if (client_message(c)[0])
        fprintf(stderr, "%s\n", client_message(c));
    code = client_exit_code(c);
    client_free(c);
    uv_loop_close(&loop);
    return code;
}
