/* Unit tests: server/hosted's text side — command lines (cmdline), [game]
 * sections (gamecfg) and xlogfile rows (xlog). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "cmdline.h"
#include "gamecfg.h"
#include "hosted/xlog.h"
#include <time.h>

/* ---- cmdline --------------------------------------------------------------------- */

static const cmdline_vars_t VARS = {"bob-val", "/var/games/warren/nethack/bob_val", NULL,
                                    "bob_val"};

static int argv_of(const char *cmd, const cmdline_vars_t *v, char ***argv, char *err)
{
    return cmdline_argv(cmd, v, argv, err, 128);
}

START_TEST(cmdline_splits_and_substitutes)
{
    char **a, err[128];
    ck_assert_int_eq(argv_of("/usr/games/nethack -u %u", &VARS, &a, err), 3);
    ck_assert_str_eq(a[0], "/usr/games/nethack");
    ck_assert_str_eq(a[1], "-u");
    ck_assert_str_eq(a[2], "bob_val"); /* the game name, whole */
    ck_assert_ptr_null(a[3]);
    cmdline_free(a);
    ck_assert_int_eq(
        argv_of("/bin/x  'a b'\t\"c \\\"d\\\" \\\\e \\n\" f\\ g \"\" -o%n 100%%", &VARS, &a, err),
        7);
    ck_assert_str_eq(a[1], "a b");
    ck_assert_str_eq(a[2], "c \"d\" \\e \\n");
    ck_assert_str_eq(a[3], "f g");
    ck_assert_str_eq(a[4], "");
    ck_assert_str_eq(a[5], "-obob-val"); /* %n: the account's name, for show */
    ck_assert_str_eq(a[6], "100%");
    cmdline_free(a);
    /* a value never splits a word, whatever it holds */
    cmdline_vars_t v = {"bob", "/tmp/a b/'c\"", NULL, NULL};
    ck_assert_int_eq(argv_of("/bin/x --dir=%d/save", &v, &a, err), 2);
    ck_assert_str_eq(a[1], "--dir=/tmp/a b/'c\"/save");
    cmdline_free(a);
}
END_TEST

START_TEST(cmdline_rejects_bad_commands_and_values)
{
    char **a = NULL, err[128];
    const char *bad[] = {
        "",          "   ",         "/bin/x 'open", "/bin/x \"open", "/bin/x end\\",
        "/bin/x %q", "/bin/x 100%", "/bin/x %r"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_msg(argv_of(bad[i], &VARS, &a, err) == -1, "accepted: %s", bad[i]);
        ck_assert_msg(err[0], "no message for: %s", bad[i]);
    }
    ck_assert_ptr_null(a);
    argv_of("/bin/x %r", &VARS, &a, err);
    ck_assert_str_eq(err, "%r: no rc file here");
    char many[400] = "/bin/x";
    for (int i = 0; i < CMDLINE_ARGS_MAX; i++)
        strcat(many, " a");
    ck_assert_int_eq(argv_of(many, &VARS, &a, err), -1);
    /* names and paths that could escape a word or a directory */
    const char *names[] = {"",    "a b",   "../x", "a/b",
                           "x\n", "ab;rm", "é",    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cmdline_vars_t v = {names[i], "/d", "/d/rc", names[i]};
        ck_assert_msg(argv_of("/bin/x %n", &v, &a, err) == -1, "name accepted: %s", names[i]);
        ck_assert_msg(argv_of("/bin/x %u", &v, &a, err) == -1, "game name accepted: %s", names[i]);
    }
    /* a game name is what NetHack and Crawl keep whole: no '-' (NetHack
     * cuts there), at most 31 bytes (NetHack keeps 31) */
    const char *games[] = {"carol-x", "-x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        cmdline_vars_t v = {"carol", "/d", NULL, games[i]};
        ck_assert_msg(argv_of("/bin/x -u %u", &v, &a, err) == -1, "game name accepted: %s",
                      games[i]);
        ck_assert_str_eq(err, "%u: unsafe game name");
    }
    ck_assert(cmdline_game_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") &&
              cmdline_game_name_ok("B_2"));
    cmdline_vars_t anon = {"bob", "/d", NULL, NULL};
    ck_assert_int_eq(argv_of("/bin/x %u", &anon, &a, err), -1);
    ck_assert_str_eq(err, "%u: no game name here");
    const char *dirs[] = {"rel/dir", "/a/../b", "/a/./b", "/a/..", "/a\x1b[2J", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        cmdline_vars_t v = {"bob", dirs[i], NULL, NULL};
        ck_assert_msg(argv_of("/bin/x %d", &v, &a, err) == -1, "dir accepted: %s", dirs[i]);
    }
    /* a name like "-D" may not become an option of its own */
    cmdline_vars_t dash = {"-D", "/d", NULL, NULL};
    ck_assert_int_eq(argv_of("/bin/x %n", &dash, &a, err), -1);
    ck_assert_int_eq(argv_of("/bin/x -u%n", &dash, &a, err), 2);
    ck_assert_str_eq(a[1], "-u-D");
    cmdline_free(a);
    char out[8];
    ck_assert_int_eq(cmdline_expand("%d", &VARS, out, sizeof out, err, sizeof err), -1);
    ck_assert_int_eq(cmdline_expand("a%%b", NULL, out, sizeof out, err, sizeof err), 3);
    ck_assert_str_eq(out, "a%b");
    ck_assert(cmdline_env_name_ok("NETHACKOPTIONS", 14));
    ck_assert(!cmdline_env_name_ok("1X", 2) && !cmdline_env_name_ok("A-B", 3) &&
              !cmdline_env_name_ok("", 0));
}
END_TEST

/* ---- gamecfg --------------------------------------------------------------------- */

static const char SAMPLE[] = "# hosted games\n"
                             "[game nethack]\n"
                             "name = NetHack 3.6.6\n"
                             "command = /usr/games/nethack -u %u   # the Debian wrapper\n"
                             "env = NETHACKOPTIONS=@%r\n"
                             "env = PATH=/usr/games:/usr/bin\n"
                             "rcfile = %d/nethackrc\n"
                             "rc-default = /etc/warren/nethackrc\n"
                             "xlogfile = /var/games/nethack/xlogfile\n"
                             "playground = /var/games/nethack\n"
                             "playground-shared =  nhdat  symbols\n"
                             "playground-shared-rw = record logfile\n"
                             "playground-files = perm  xlog\n"
                             "memory = 512\n"
                             "cpu = 3600\n"
                             "idle = 1800\n"
                             "\n"
                             "[game  crawl ]\n"
                             "command = /usr/games/crawl -name %n -dir %d\n"
                             "user = games\n"
                             "hangup-timeout = 3\n"
                             "start-timeout = 2\n"
                             "keys = prefix ^a\n"
                             "[game cat]\n"
                             "command = /bin/cat\n"
                             "network = host\n"
                             "keys = direct # Ctrl-X, -E, -W, -T\n";

static int parse(gamecfg_list_t *l, const char *text, char *err)
{
    return gamecfg_parse(l, text, strlen(text), 1, err, 256);
}

/* A section [game d] with line as its third line is refused: "line 3: "
 * and why. */
static void line3_refused(const char *line, const char *why)
{
    gamecfg_list_t o = {NULL, 0};
    char text[256], want[256], err[256] = "";
    snprintf(text, sizeof text, "[game d]\ncommand = /bin/x\n%s\n", line);
    snprintf(want, sizeof want, "line 3: %s", why);
    ck_assert_int_eq(parse(&o, text, err), -1);
    ck_assert_str_eq(err, want);
    gamecfg_list_free(&o);
}

START_TEST(gamecfg_parses_sections)
{
    gamecfg_list_t l = {NULL, 0};
    char err[256] = "";
    ck_assert_msg(parse(&l, SAMPLE, err) == 0, "%s", err);
    ck_assert_int_eq(l.n, 3);
    const gamecfg_t *n = gamecfg_find(&l, "nethack"), *c = gamecfg_find(&l, "crawl");
    ck_assert(n && c && !gamecfg_find(&l, "angband"));
    ck_assert_str_eq(n->name, "NetHack 3.6.6");
    ck_assert_str_eq(n->command, "/usr/games/nethack -u %u");
    ck_assert_int_eq(n->nenv, 2);
    ck_assert_str_eq(n->env[0], "NETHACKOPTIONS=@%r");
    ck_assert_str_eq(n->rcfile, "%d/nethackrc");
    ck_assert_str_eq(n->rc_default, "/etc/warren/nethackrc");
    ck_assert_str_eq(n->xlogfile, "/var/games/nethack/xlogfile");
    ck_assert_ptr_null(gamecfg_xlog_own(n)); /* one file for all */
    ck_assert_ptr_null(gamecfg_xlog_own(c)); /* none */
    ck_assert_str_eq(n->playground, "/var/games/nethack");
    ck_assert_str_eq(n->playground_shared, "nhdat symbols");
    ck_assert_str_eq(n->playground_shared_rw, "record logfile");
    ck_assert_str_eq(n->playground_files, "perm xlog");
    ck_assert_str_eq(c->playground_shared_rw, "");
    ck_assert_str_eq(c->playground_files, "");
    ck_assert_str_eq(c->playground, "");
    ck_assert_str_eq(c->playground_shared, "");
    ck_assert_uint_eq(n->limits.memory_bytes, 512ull << 20);
    ck_assert_uint_eq(n->limits.cpu_seconds, 3600);
    ck_assert_uint_eq(n->limits.files, 0);
    ck_assert_uint_eq(n->disk_bytes, 64ull << 20); /* not given: the caps are on */
    ck_assert_uint_eq(n->disk_files, 2000);
    ck_assert_int_eq(n->idle_seconds, 1800);
    ck_assert_int_eq(n->hangup_seconds, 10); /* the default */
    ck_assert_str_eq(n->term, "xterm-256color");
    ck_assert_int_eq(n->line, 2);
    ck_assert_str_eq(c->name, "crawl"); /* no name: the id */
    ck_assert_str_eq(c->user, "games");
    ck_assert_int_eq(c->hangup_seconds, 3);
    ck_assert_int_eq(c->start_seconds, 2);
    ck_assert_int_eq(n->start_seconds, 8);  /* the default: below warrend's wait */
    ck_assert_int_eq(c->idle_seconds, -1);  /* not given: the daemon's game-idle */
    ck_assert_uint_eq(n->key_prefix, 0x1C); /* not given: ^\ */
    ck_assert_uint_eq(c->key_prefix, 0x01); /* ^a is ^A */
    ck_assert_uint_eq(gamecfg_find(&l, "cat")->key_prefix, 0);  /* direct */
    ck_assert(!n->network && gamecfg_find(&l, "cat")->network); /* none unless host */
    /* each player's own xlogfile, below the player's directory */
    gamecfg_list_t o = {NULL, 0};
    ck_assert_msg(
        parse(&o, "[game own]\ncommand = /bin/x\nxlogfile = %d/playground/xlog-file.1\n", err) == 0,
        "%s", err);
    ck_assert_str_eq(gamecfg_xlog_own(&o.games[0]), "playground/xlog-file.1");
    gamecfg_list_free(&o);
    /* the disk caps: MB and entries; 0 turns one off */
    ck_assert_msg(parse(&o, "[game d]\ncommand = /bin/x\ndisk = 8\ndisk-files = 0\n", err) == 0,
                  "%s", err);
    ck_assert(o.games[0].disk_bytes == 8ull << 20 && o.games[0].disk_files == 0);
    gamecfg_list_free(&o);
    line3_refused("disk-files = -1", "disk-files: expected a number from 0 to 50000, got \"-1\"");
    /* above half the walk's ceiling the ceiling would stop a game first */
    line3_refused("disk-files = 50001",
                  "disk-files: expected a number from 0 to 50000, got \"50001\"");
    /* copy-rate: KB a second, 64 by default, 0 no budget */
    ck_assert_msg(parse(&o,
                        "[game d]\ncommand = /bin/x\n[game e]\ncommand = /bin/x\n"
                        "copy-rate = 0\n[game f]\ncommand = /bin/x\ncopy-rate = 65536\n",
                        err) == 0,
                  "%s", err);
    ck_assert(o.games[0].copy_rate == 64u << 10 && o.games[1].copy_rate == 0 &&
              o.games[2].copy_rate == 64ull << 20);
    gamecfg_list_free(&o);
    line3_refused("copy-rate = 65537",
                  "copy-rate: expected a number from 0 to 65536, got \"65537\"");
    line3_refused("copy-rate = -1", "copy-rate: expected a number from 0 to 65536, got \"-1\"");
    /* a second text adds to the list; ids stay unique across it */
    ck_assert_int_eq(parse(&l, "[game crawl]\ncommand = /bin/true\n", err), -1);
    ck_assert_str_eq(err, "line 1: [game crawl] given twice");
    ck_assert_int_eq(l.n, 3);
    gamecfg_list_free(&l);
    ck_assert_int_eq(l.n, 0);
}
END_TEST

START_TEST(gamecfg_reports_the_line)
{
    static const struct {
        const char *text, *err;
    } cases[] = {
        {"name = x\n", "line 1: a setting outside a [game ID] section"},
        {"[game a]\ncommand = /bin/x\nfoo = 1\n", "line 3: unknown key \"foo\""},
        {"[game a]\ncommand = /bin/x\ncommand = /bin/y\n", "line 3: command given twice"},
        {"[game A]\n", "line 1: game id \"A\": 1 to 31 of a-z, 0-9, _ and -"},
        {"[server]\n", "line 1: unknown section [server] (expected [game ID])"},
        {"[game a\n", "line 1: expected [game ID], got \"[game a\""},
        {"\n[game a]\nname = A\n\n[game b]\ncommand = /bin/b\n", "line 2: [game a]: no command"},
        {"[game a]\ncommand = x -u %n\n", "line 1: [game a]: command: the program must be an "
                                          "absolute path"},
        {"[game a]\ncommand = /bin/x %r\n", "line 1: [game a]: command: %r: no rc file here"},
        {"[game a]\ncommand = /bin/x %q\n",
         "line 1: [game a]: command: unknown substitution \"%q\" (use %u, %n, %d, %r or %%)"},
        {"[game a]\ncommand = /bin/x\nrcfile = %d/%n.rc\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME "
         "(NAME of A-Z a-z 0-9 . _ -), got \"%d/%n.rc\""},
        {"[game a]\ncommand = /bin/x\nenv = 1A=b\n", "line 3: env: expected NAME=VALUE, got "
                                                     "\"1A=b\""},
        {"[game a]\ncommand = /bin/x\nenv = A=1\nenv = A=2\n", "line 4: env: A given twice"},
        {"[game a]\ncommand = /bin/x\nrc-default = /etc/rc\n",
         "line 1: [game a]: rc-default needs rcfile"},
        {"[game a]\ncommand = /bin/x\nplayground = /var/x\nnetwork = host\n",
         "line 1: [game a]: playground needs network = none (the box it is mounted in)"},
        {"[game a]\ncommand = /bin/x\nplayground = pg\n", "line 3: playground: bad value \"pg\""},
        {"[game a]\ncommand = /bin/x\nrecover = /bin/r -d /var/x\n",
         "line 1: [game a]: recover needs playground (where it looks)"},
        {"[game a]\ncommand = /bin/x\nplayground = /var/x\nrecover = r -d /var/x\n",
         "line 1: [game a]: recover: the program must be an absolute path"},
        {"[game a]\ncommand = /bin/x\nplayground = /var/x\nrecover = /bin/r %q\n",
         "line 1: [game a]: recover: unknown substitution \"%q\" (use %u, %n, %d, %r or %%)"},
        {"[game a]\ncommand = /bin/x\nplayground-shared = record\n",
         "line 1: [game a]: playground-shared needs playground"},
        {"[game a]\ncommand = /bin/x\nstart-timeout = 10\n",
         "line 3: start-timeout: expected a number from 1 to 9, got \"10\""},
        {"[game a]\ncommand = /bin/x\nplayground-shared-rw = record\n",
         "line 1: [game a]: playground-shared-rw needs playground"},
        {"[game a]\ncommand = /bin/x\nplayground-files = record\n",
         "line 1: [game a]: playground-files needs playground"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = nhdat record\n"
         "playground-shared-rw = record\n",
         "line 1: [game a]: record is in both playground-shared and playground-shared-rw"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-files = perm record\n"
         "playground-shared-rw = logfile record\n",
         "line 1: [game a]: record is in both playground-shared-rw and playground-files"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = nhdat record:rw\n",
         "line 4: playground-shared: \"record:rw\" is not a file name (A-Z a-z 0-9 . _ -, no /); "
         "a name shared writable goes in playground-shared-rw"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-files = save\n",
         "line 4: playground-files: \"save\" is each player's own directory, the box makes it"},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/playground/xl\nplayground = /x\n"
         "playground-shared-rw = record xl\n",
         "line 1: [game a]: xlogfile is each player's own, so playground-shared-rw may not name "
         "xl"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = record save/a\n",
         "line 4: playground-shared: \"save/a\" is not a file name (A-Z a-z 0-9 . _ -, no /)"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = record save\n",
         "line 4: playground-shared: \"save\" is each player's own directory, the box makes it"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = record ..\n",
         "line 4: playground-shared: \"..\" is not a file name (A-Z a-z 0-9 . _ -, no /)"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = a b c d e f g h i j k l "
         "m n o p q\n",
         "line 4: playground-shared: more than 16 names"},
        {"[game a]\ncommand = /bin/x\nplayground = /x\nplayground-shared = \"a\"\n",
         "line 4: playground-shared: \"\"a\"\" is not a file name (A-Z a-z 0-9 . _ -, no /)"},
        {"[game a]\ncommand = /bin/x\nrcfile = nethackrc\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME (NAME "
         "of A-Z a-z 0-9 . _ -), got \"nethackrc\""},
        {"[game a]\ncommand = /bin/x\nrcfile = %d/sub/rc\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME (NAME "
         "of A-Z a-z 0-9 . _ -), got \"%d/sub/rc\""},
        {"[game a]\ncommand = /bin/x\nrcfile = /etc/%n.rc\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME (NAME "
         "of A-Z a-z 0-9 . _ -), got \"/etc/%n.rc\""},
        {"[game a]\ncommand = /bin/x\nrcfile = %d/..\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME (NAME "
         "of A-Z a-z 0-9 . _ -), got \"%d/..\""},
        {"[game a]\ncommand = /bin/x\nrcfile = %d\n",
         "line 3: rcfile: must name a file directly in the player's directory, as %d/NAME (NAME "
         "of A-Z a-z 0-9 . _ -), got \"%d\""},
        {"[game a]\ncommand = /bin/x\nuser = root\n",
         "line 3: user: hosted games never run as root"},
#define XLOG_BAD                                                                         \
    "line 3: xlogfile: must be an absolute path or %d/PATH (names of A-Z a-z 0-9 . _ - " \
    "separated by /, no . or ..), got "
        {"[game a]\ncommand = /bin/x\nxlogfile = var/x\n", XLOG_BAD "\"var/x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/../x\n", XLOG_BAD "\"%d/../x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/a//x\n", XLOG_BAD "\"%d/a//x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/a/\n", XLOG_BAD "\"%d/a/\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/\n", XLOG_BAD "\"%d/\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d//etc/x\n", XLOG_BAD "\"%d//etc/x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/a/./x\n", XLOG_BAD "\"%d/a/./x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %n/x\n", XLOG_BAD "\"%n/x\""},
        {"[game a]\ncommand = /bin/x\nxlogfile = %d/playground/xlogfile\nplayground = /p\n"
         "playground-shared = record xlogfile\n",
         "line 1: [game a]: xlogfile is each player's own, so playground-shared may not name "
         "xlogfile"},
        {"[game a]\ncommand = /bin/x\ncpu = -1\n",
         "line 3: cpu: expected a number from 0 to 1000000, got \"-1\""},
        {"[game a]\ncommand = /bin/x\nuser = Root!\n", "line 3: user: bad value \"Root!\""},
        {"[game a]\ncommand = /bin/x\nname =\n", "line 3: name: empty value"},
        {"[game a]\ncommand = /bin/x\nname = a\x1b[2Jb\n", "line 3: name: control characters"},
        {"[game a]\ncommand\n", "line 2: expected \"key = value\""},
        {"[game a]\ncommand = /bin/x\nnetwork = yes\n",
         "line 3: network: expected \"none\" or \"host\", got \"yes\""},
        {"[game a]\ncommand = /bin/x\nkeys = ^]\n",
         "line 3: keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"^]\""},
        {"[game a]\ncommand = /bin/x\nkeys = prefix ]\n",
         "line 3: keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"prefix ]\""},
        {"[game a]\ncommand = /bin/x\nkeys = prefix ^]]\n",
         "line 3: keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"prefix ^]]\""},
        {"[game a]\ncommand = /bin/x\nkeys = prefix ^@\n",
         "line 3: keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"prefix ^@\""},
        {"[game a]\ncommand = /bin/x\nkeys = prefixes ^A\n",
         "line 3: keys: expected \"prefix ^C\" (^A to ^_) or \"direct\", got \"prefixes ^A\""},
        {"[game a]\ncommand = /bin/x\nkeys = prefix ^M\n",
         "line 3: keys: ^M is a key every game needs (Backspace, Tab, Enter, Esc)"},
        {"[game a]\ncommand = /bin/x\nkeys = prefix ^[\n",
         "line 3: keys: ^[ is a key every game needs (Backspace, Tab, Enter, Esc)"},
        {"[game a]\ncommand = /bin/x\nkeys = direct\nkeys = direct\n", "line 4: keys given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gamecfg_list_t l = {NULL, 0};
        char err[256] = "";
        ck_assert_msg(parse(&l, cases[i].text, err) == -1, "accepted: %s", cases[i].text);
        ck_assert_str_eq(err, cases[i].err);
        gamecfg_list_free(&l);
    }
    /* a text that fails adds no game; line numbers start at first_line */
    gamecfg_list_t l = {NULL, 0};
    char err[256], text[1100] = "[game a]\ncommand = /bin/a\n[game b]\nname = ";
    memset(text + strlen(text), 'x', GAMECFG_LINE_MAX);
    ck_assert_int_eq(gamecfg_parse(&l, text, strlen(text), 40, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 43: line too long");
    ck_assert_int_eq(l.n, 0);
    ck_assert_ptr_null(l.games);
    ck_assert_int_eq(gamecfg_parse(&l, "[game a]\ncom\0mand", 17, 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 2: NUL byte in the line");
    /* after good ones, a failing text leaves the list as it was */
    ck_assert_int_eq(parse(&l, "[game a]\ncommand = /bin/a\n", err), 0);
    ck_assert_int_eq(parse(&l, "[game b]\ncommand = /bin/b\n[game c]\nfoo = 1\n", err), -1);
    ck_assert_int_eq(l.n, 1);
    ck_assert_str_eq(l.games[0].id, "a");
    gamecfg_list_free(&l);
}
END_TEST

static int count(char **list)
{
    int n = 0;
    while (list[n])
        n++;
    return n;
}

/* min-size and phone-size: WxH within 80x24 and 250x100, a phone's not
 * below min-size; defaults 80x24 and min-size; a bad one refused with
 * the section, the key and why. */
START_TEST(gamecfg_reads_sizes)
{
    gamecfg_list_t l = {0};
    char err[256];
    const char *text = "[game nh]\ncommand = /bin/x\n"
                       "[game crawl]\ncommand = /bin/x\nphone-size = 80x34\n"
                       "[game big]\ncommand = /bin/x\nmin-size = 100X30\n";
    ck_assert_int_eq(gamecfg_parse(&l, text, strlen(text), 1, err, sizeof err), 0);
    const gamecfg_t *nh = gamecfg_find(&l, "nh"), *crawl = gamecfg_find(&l, "crawl"),
                    *big = gamecfg_find(&l, "big");
    ck_assert_int_eq(nh->min_size[0], 80);
    ck_assert_int_eq(nh->min_size[1], 24);
    ck_assert_int_eq(nh->phone_size[0], 80);
    ck_assert_int_eq(nh->phone_size[1], 24);
    ck_assert_int_eq(crawl->min_size[1], 24);
    ck_assert_int_eq(crawl->phone_size[0], 80);
    ck_assert_int_eq(crawl->phone_size[1], 34);
    ck_assert_int_eq(big->min_size[0], 100);
    ck_assert_int_eq(big->min_size[1], 30);
    ck_assert_int_eq(big->phone_size[0], 100); /* min-size's */
    ck_assert_int_eq(big->phone_size[1], 30);
    gamecfg_list_free(&l);
    static const struct {
        const char *line, *err;
    } bad[] = {
        {"min-size = 80", "expected columns x rows, as 80x24, got \"80\""},
        {"min-size = 80x", "expected columns x rows, as 80x24, got \"80x\""},
        {"min-size = x24", "expected columns x rows, as 80x24, got \"x24\""},
        {"min-size = 80x24x2", "expected columns x rows, as 80x24, got \"80x24x2\""},
        {"min-size = 80 x 24", "expected columns x rows, as 80x24, got \"80 x 24\""},
        {"min-size = -80x24", "expected columns x rows, as 80x24, got \"-80x24\""},
        {"phone-size = 80x+30", "expected columns x rows, as 80x24, got \"80x+30\""},
        {"min-size = 99999999999999999999x24",
         "expected columns x rows, as 80x24, got \"99999999999999999999x24\""},
        {"min-size = 79x24", "79x24 is outside 80x24 to 250x100"},
        {"phone-size = 80x23", "80x23 is outside 80x24 to 250x100"},
        {"min-size = 251x24", "251x24 is outside 80x24 to 250x100"},
        {"phone-size = 80x101", "80x101 is outside 80x24 to 250x100"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char t[200], want[300];
        snprintf(t, sizeof t, "[game crawl]\ncommand = /bin/x\n%s\n", bad[i].line);
        snprintf(want, sizeof want, "line 3: [game crawl]: %.*s: %s",
                 (int)strcspn(bad[i].line, " "), bad[i].line, bad[i].err);
        ck_assert_int_eq(gamecfg_parse(&l, t, strlen(t), 1, err, sizeof err), -1);
        ck_assert_str_eq(err, want);
        ck_assert_int_eq(l.n, 0);
    }
    text = "[game crawl]\ncommand = /bin/x\nmin-size = 80x30\nphone-size = 80x28\n";
    ck_assert_int_eq(gamecfg_parse(&l, text, strlen(text), 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 1: [game crawl]: phone-size 80x28 is below min-size 80x30");
    text = "[game crawl]\ncommand = /bin/x\nmin-size = 80x30\nmin-size = 80x30\n";
    ck_assert_int_eq(gamecfg_parse(&l, text, strlen(text), 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 4: min-size given twice");
}
END_TEST

START_TEST(gamecfg_launches_with_recover)
{
    gamecfg_list_t l = {NULL, 0};
    char err[256] = "";
    const char *text = "[game nh]\ncommand = /bin/x\nplayground = /var/pg\n"
                       "recover = /usr/lib/r -d /var/pg\n[game b]\ncommand = /bin/y\n";
    ck_assert_msg(gamecfg_parse(&l, text, strlen(text), 1, err, sizeof err) == 0, "%s", err);
    gamecfg_launch_t la;
    ck_assert_int_eq(
        gamecfg_launch(&l.games[0], "bob", "bob", "/srv/g/nh/bob", &la, err, sizeof err), 0);
    ck_assert_int_eq(count(la.recover), 3);
    ck_assert_str_eq(la.recover[0], "/usr/lib/r");
    ck_assert_str_eq(la.recover[2], "/var/pg");
    gamecfg_launch_free(&la);
    ck_assert_int_eq(
        gamecfg_launch(&l.games[1], "bob", "bob", "/srv/g/b/bob", &la, err, sizeof err), 0);
    ck_assert_ptr_null(la.recover); /* none: nothing runs before the program */
    gamecfg_launch_free(&la);
    gamecfg_list_free(&l);
}
END_TEST

START_TEST(gamecfg_builds_a_launch)
{
    gamecfg_list_t l = {NULL, 0};
    char err[256] = "";
    ck_assert_int_eq(parse(&l, SAMPLE, err), 0);
    gamecfg_launch_t la;
    const char *dir = "/srv/warren/games/nethack/bob";
    ck_assert_msg(gamecfg_launch(&l.games[0], "Bob-2", "bob", dir, &la, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_int_eq(count(la.argv), 3);
    ck_assert_str_eq(la.argv[2], "bob"); /* %u, not the name */
    ck_assert_str_eq(la.rcfile, "/srv/warren/games/nethack/bob/nethackrc");
    ck_assert_str_eq(gamecfg_rc_name(&l.games[0]), "nethackrc");
    ck_assert_int_eq(count(la.envp), 4); /* TERM HOME PATH NETHACKOPTIONS */
    ck_assert_str_eq(la.envp[0], "TERM=xterm-256color");
    ck_assert_str_eq(la.envp[1], "HOME=/srv/warren/games/nethack/bob");
    ck_assert_str_eq(la.envp[2], "PATH=/usr/games:/usr/bin"); /* replaced by env */
    ck_assert_str_eq(la.envp[3], "NETHACKOPTIONS=@/srv/warren/games/nethack/bob/nethackrc");
    gamecfg_launch_free(&la);
    ck_assert_int_eq(gamecfg_launch(&l.games[1], "bob", "b_1", dir, &la, err, sizeof err), 0);
    ck_assert_int_eq(count(la.argv), 5);
    ck_assert_str_eq(la.argv[2], "bob"); /* crawl's sample here: %n */
    ck_assert_str_eq(la.argv[4], dir);
    ck_assert_ptr_null(la.rcfile);
    ck_assert_ptr_null(gamecfg_rc_name(&l.games[1]));
    ck_assert_int_eq(count(la.envp), 3);
    ck_assert_str_eq(la.envp[2], "PATH=/usr/local/bin:/usr/bin:/bin");
    gamecfg_launch_free(&la);
    /* bad player values fail even where the command does not use them */
    ck_assert_int_eq(gamecfg_launch(&l.games[0], "b b", "b", dir, &la, err, sizeof err), -1);
    ck_assert_int_eq(gamecfg_launch(&l.games[1], "bob", "b", "rel", &la, err, sizeof err), -1);
    ck_assert_int_eq(gamecfg_launch(&l.games[1], "bob", "", dir, &la, err, sizeof err), -1);
    ck_assert_int_eq(gamecfg_launch(&l.games[1], "bob", NULL, dir, &la, err, sizeof err), -1);
    ck_assert_ptr_null(la.argv);
    gamecfg_launch_free(&la); /* zeroed by the failure: a no-op */
    gamecfg_list_free(&l);
}
END_TEST

/* ---- xlog ------------------------------------------------------------------------ */

START_TEST(xlog_reads_nethack_rows)
{
    const char row36[] = "version=3.6.6\tpoints=1234\tdeathdnum=0\tdeathlev=3\tmaxlvl=4\thp=-2\t"
                         "maxhp=25\tdeaths=1\tdeathdate=20240101\tbirthdate=20231231\tuid=1000\t"
                         "role=Val\trace=Hum\tgender=Fem\talign=Neu\tname=bob\t"
                         "death=killed by a jackal, while praying\tconduct=0x1f80\tturns=2345\t"
                         "achieve=0x0\trealtime=600\tstarttime=1704067200\tendtime=1704067800\t"
                         "gender0=Fem\talign0=Neu\tflags=0x4\tfuture=ignored\n";
    xlog_row_t r;
    char err[128] = "";
    ck_assert_msg(xlog_parse(row36, strlen(row36), &r, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(r.version, "3.6.6");
    ck_assert_str_eq(r.name, "bob");
    ck_assert_str_eq(r.role, "Val");
    ck_assert_str_eq(r.race, "Hum");
    ck_assert_str_eq(r.gender, "Fem");
    ck_assert_str_eq(r.align, "Neu");
    ck_assert_str_eq(r.death, "killed by a jackal, while praying");
    ck_assert_int_eq(r.points, 1234);
    ck_assert_int_eq(r.turns, 2345);
    ck_assert_int_eq(r.deathlev, 3);
    ck_assert_int_eq(r.maxlvl, 4);
    ck_assert_int_eq(r.hp, -2);
    ck_assert_int_eq(r.realtime, 600);
    ck_assert_int_eq(r.starttime, 1704067200);
    ck_assert_int_eq(r.endtime, 1704067800);
    ck_assert_int_eq(r.birthdate, 20231231);
    ck_assert_uint_eq(r.conduct, 0x1f80);
    ck_assert_uint_eq(r.flags, 4);
    /* NetHack 3.4.3: ':' between fields */
    const char row34[] = "version=3.4.3:points=77:deathlev=1:maxlvl=1:name=ann:role=Wiz:"
                         "death=quit:turns=12\r\n";
    ck_assert_int_eq(xlog_parse(row34, strlen(row34), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.name, "ann");
    ck_assert_str_eq(r.death, "quit");
    ck_assert_int_eq(r.turns, 12);
    ck_assert_str_eq(r.race, ""); /* absent: empty */
    /* control bytes never reach a page or a terminal; long text is cut */
    char odd[600] = "name=e\x1b[2Jve\tpoints=1\tdeath=";
    memset(odd + strlen(odd), 'd', 400);
    ck_assert_int_eq(xlog_parse(odd, strlen(odd), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.name, "e?[2Jve");
    ck_assert_uint_eq(strlen(r.death), sizeof r.death - 1);
    /* nor C1 controls (raw or in UTF-8), bytes that are not UTF-8 or
     * bidirectional controls; other characters stay, none cut in two */
    const char c1[] = "name=c1\tpoints=1\tdeath=by \x9b"
                      "31m\xc2\x9b"
                      "2J \xff\xe2\x80\xae"
                      "x \xc3\xa9\xe2\x94\x80\xc3";
    ck_assert_int_eq(xlog_parse(c1, strlen(c1), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.death, "by ?31m?2J ??x \xc3\xa9\xe2\x94\x80?");
    char cut[64] = "name=";
    for (int i = 0; i < 16; i++)
        strcat(cut, "\xc3\xa9"); /* 32 bytes, for a field of 31 */
    strcat(cut, "\tpoints=1\tdeath=x");
    ck_assert_int_eq(xlog_parse(cut, strlen(cut), &r, err, sizeof err), 0);
    ck_assert_uint_eq(strlen(r.name), 30);
}
END_TEST

START_TEST(xlog_reads_crawl_rows)
{
    /* Crawl 0.28's logfile, as it wrote it (a quit, then a death) */
    const char quit[] = "v=0.28.0:vlong=0.28.0:lv=0.1:name=quitter:race=Hill Orc:cls=Fighter:"
                        "char=HOFi:xl=1:sk=Fighting:sklev=3:title=Skirmisher:place=D::1:br=D:"
                        "lvl=1:absdepth=1:hp=19:mhp=19:mmhp=19:start=20261030133531S:dur=7:"
                        "turn=65:aut=650:sc=0:ktyp=quitting:dam=-9999:end=20261030133539S:"
                        "seed=12966460710997271442\n";
    xlog_row_t r;
    char err[128] = "";
    ck_assert_msg(xlog_parse(quit, strlen(quit), &r, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(r.version, "0.28.0");
    ck_assert_str_eq(r.name, "quitter");
    ck_assert_str_eq(r.role, "Fighter");
    ck_assert_str_eq(r.race, "Hill Orc");
    ck_assert_str_eq(r.death, "quit the game");
    ck_assert_int_eq(r.points, 0);
    ck_assert_int_eq(r.turns, 65);
    ck_assert_int_eq(r.realtime, 7);
    ck_assert_int_eq(r.deathlev, 1);
    ck_assert_int_eq(r.maxhp, 19);
    /* local times, the month from 0: 30 November 2026 */
    struct tm tm = {.tm_year = 126,
                    .tm_mon = 10,
                    .tm_mday = 30,
                    .tm_hour = 13,
                    .tm_min = 35,
                    .tm_sec = 39,
                    .tm_isdst = 0};
    ck_assert_int_eq(r.endtime, (int64_t)mktime(&tm));
    ck_assert_int_eq(r.endtime - r.starttime, 8);

    /* "::" is a ':' of a value; a killer; an end of its own words */
    const char slain[] = "name=ann:cls=Fire Elementalist:sc=123:ktyp=mon:killer=Sigmund::"
                         "the mad:turn=1500\n";
    ck_assert_int_eq(xlog_parse(slain, strlen(slain), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.killer, "Sigmund:the mad");
    ck_assert_str_eq(r.death, "killed by Sigmund:the mad");
    ck_assert_str_eq(r.role, "Fire Elementalist");
    ck_assert_int_eq(r.points, 123);
    const char won[] = "name=b:sc=9:ktyp=winning:killer=x";
    ck_assert_int_eq(xlog_parse(won, strlen(won), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.death, "escaped with the Orb");
    const char odd[] = "name=b:sc=9:ktyp=zot";
    ck_assert_int_eq(xlog_parse(odd, strlen(odd), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.death, "died (zot)");
    const char told[] = "name=b:sc=9:ktyp=mon:killer=a rat:tmsg=was bitten to death by a rat";
    ck_assert_int_eq(xlog_parse(told, strlen(told), &r, err, sizeof err), 0);
    ck_assert_str_eq(r.death, "was bitten to death by a rat");
}
END_TEST

START_TEST(xlog_rejects_broken_rows)
{
    static const struct {
        const char *row, *err;
    } cases[] = {
        {"points=1\tdeath=quit", "a row needs name, points and death"},
        {"name=\tpoints=1\tdeath=quit", "a row needs name, points and death"},
        {"name=a\tpoints=12x\tdeath=quit", "points: not a number"},
        {"name=a\tpoints=\tdeath=quit", "points: not a number"},
        {"name=a\tpoints=99999999999999999999\tdeath=quit", "points: not a number"},
        {"name=a\tpoints=1\tdeath=quit\tconduct=-1", "conduct: not a number"},
        {"name=a\tpoints=1\tjunk\tdeath=quit", "field \"junk\" has no '='"},
        {"", "a row needs name, points and death"},
        /* Crawl's */
        {"name=a:sc=1:start=20261030133531S", "a row needs name, points and death"},
        {"name=a:sc=1:ktyp=mon:end=20261030133531", "end: not a number"},
        {"name=a:sc=1:ktyp=mon:end=20261230133531S", "end: not a number"}, /* month 12 */
        {"name=a:sc=1:ktyp=mon:end=2026103013353xS", "end: not a number"},
    };
    xlog_row_t r;
    char err[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(xlog_parse(cases[i].row, strlen(cases[i].row), &r, err, sizeof err), -1);
        ck_assert_str_eq(err, cases[i].err);
    }
    char big[XLOG_LINE_MAX + 2];
    memset(big, 'a', sizeof big);
    ck_assert_int_eq(xlog_parse(big, sizeof big, &r, err, sizeof err), -1);
}
END_TEST

Suite *suite_server_hosted_cfg(void)
{
    Suite *s = suite_create("server.hosted_cfg");
    TCase *t = tcase_create("core");
    tcase_add_test(t, cmdline_splits_and_substitutes);
    tcase_add_test(t, cmdline_rejects_bad_commands_and_values);
    tcase_add_test(t, gamecfg_parses_sections);
    tcase_add_test(t, gamecfg_reports_the_line);
    tcase_add_test(t, gamecfg_reads_sizes);
    tcase_add_test(t, gamecfg_builds_a_launch);
    tcase_add_test(t, gamecfg_launches_with_recover);
    tcase_add_test(t, xlog_reads_nethack_rows);
    tcase_add_test(t, xlog_reads_crawl_rows);
    tcase_add_test(t, xlog_rejects_broken_rows);
    suite_add_tcase(s, t);
    return s;
}
