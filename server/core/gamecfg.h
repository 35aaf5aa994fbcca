/* gamecfg — the hosted games of warren.conf: one [game ID] section each.
 *
 *     [game nethack]
 *     name       = NetHack 3.6.6
 *     command    = /usr/games/nethack -u %u
 *     env        = NETHACKOPTIONS=@%r        (may repeat)
 *     rcfile     = %d/nethackrc
 *     rc-default = /etc/warren/nethackrc
 *     xlogfile   = /var/games/nethack/xlogfile
 *
 * Keys (each at most once, but env):
 *   name        shown in menus (default: the id)
 *   command     required: program (an absolute path) and arguments, split
 *               and substituted as cmdline.h says (%u the account's game
 *               name: its identity, what saves must be keyed on; %n the
 *               account's name now, for show only; %d the player's
 *               directory for this game; %r the rc file)
 *   env         NAME=VALUE added to the program's environment (VALUE is
 *               substituted); the environment is TERM, HOME (= %d) and
 *               PATH (/usr/local/bin:/usr/bin:/bin) and these, nothing
 *               inherited; an env line may replace one of the three
 *   rcfile      the player's rc file, %r in command and env: a file
 *               directly in the player's directory, "%d/NAME" (NAME of
 *               A-Z a-z 0-9 . _ -), so it is always opened relative to
 *               that directory (spawner.h)
 *   rc-default  copied to rcfile on first play (needs rcfile)
 *   xlogfile    where the game appends a row per finished game (xlog.h):
 *               an absolute path (one file for all players, which every
 *               game can write), or "%d/PATH" (names of A-Z a-z 0-9 . _ -
 *               separated by /, no . or ..), each player's own below the
 *               player's directory, read by the spawner as the game's
 *               user without following a link (playerfs.h): a row there
 *               can only be about that player's account
 *   playground  a directory of the game's own (NetHack's playground, -d)
 *               that each player sees as theirs alone: the player's
 *               directory's playground/ (with save/ in it) is mounted over
 *               it in the game's box (spawnexec.c), so no player sees
 *               another's saves, level or lock files; needs network =
 *               none and a path outside games-dir (which the box hides)
 *   playground-shared  names of files (or directories) directly in the
 *               playground that every player's game shares, read-only:
 *               each bound from the real playground over the player's
 *               (the game's data): at most GAMECFG_NAMES names of
 *               A-Z a-z 0-9 . _ -, separated by blanks; needs playground
 *   playground-shared-rw  the same, but writable by every player's game:
 *               one game may rewrite or lock what all others read (a
 *               shared top ten), so only when the operator wants that
 *   playground-files  names of files each player has of their own in
 *               their playground, made empty (0600, the game's user's)
 *               before each start when missing (NetHack's record,
 *               logfile and perm: it opens them, makes none); a name is
 *               in one of the three lists at most
 *   recover     a program (an absolute path) and arguments, substituted
 *               as command's, run in the game's box before each start
 *               once for each lock file ("NAME.0", a level 0) left in the
 *               playground, the file's name added as the last argument
 *               (NetHack's recover: a game cut off by a crash or a kill
 *               becomes a save again; spawnexec.c); needs playground
 *   user        system account the program runs as when warrend runs as
 *               root (absent: the daemon's games-user); never root
 *   term        TERM for the program (default xterm-256color)
 *   cpu, memory, files, processes, file-size: limits (seconds, MB,
 *               descriptors, processes, MB); 0 or absent: unchanged
 *   disk, disk-files  what the player's directory may hold in all: MB of
 *               blocks in use (st_blocks: a sparse file counts what it
 *               uses) and entries (files, directories, links...), below
 *               it; over either, a start is refused and a running game
 *               hung up, its player told (spawner.h). Absent:
 *               GAMECFG_DISK_MB and GAMECFG_DISK_FILES; 0: no cap
 *   copy-max    MB of the player's files (hostfiles.h) copied to a shared
 *               database (PostgreSQL), so another node can restore the
 *               game; over it nothing is copied and the player is told.
 *               Absent: GAMECFG_COPY_MB; 0: never copied
 *   copy-rate   KB a second of those copies a player's game may write to
 *               the database: after a copy of B bytes the game's next
 *               waits max(2 s, B / copy-rate) (hostcopy.h); the copy at
 *               its end is never held back. Absent: GAMECFG_COPY_KBS;
 *               0: no budget (a copy every 2 s at most)
 *   idle        seconds without input before the game is hung up (0: never;
 *               absent: -1, the daemon's game-idle)
 *   hangup-timeout  seconds from SIGHUP to SIGKILL (default 10)
 *   start-timeout   seconds a start may take until the program's exec
 *               (its box made: mounts that hang on a dead file system),
 *               1 to GAMECFG_START_MAX (default GAMECFG_START_S): past
 *               them the spawner kills it and the player is told
 *   keys        Warren's own keys in the game (leave, chat): "prefix ^C"
 *               for a control key, ^A to ^_ but ^H ^I ^J ^M ^[ (default
 *               prefix ^\): that key then x, e, w or t; twice, the key
 *               itself goes to the program; every other key is the
 *               program's, Ctrl-X and Ctrl-T too. "direct": Ctrl-X, -E,
 *               -W and -T are Warren's, as in Warren's own game
 *   network     "none" (default): the program has no network, not even
 *               127.0.0.1 (a user and a network namespace of its own,
 *               spawnexec.c); "host": the machine's network
 *   min-size    WxH: the smallest terminal the program gets (default
 *               80x24, at least that, at most GAMECFG_SIZE_MAX_W x
 *               GAMECFG_SIZE_MAX_H): a player's terminal below it is
 *               asked to grow and the program keeps min-size meanwhile
 *   phone-size  WxH: the terminal a browser's phone layout gives it, the
 *               font fitted to its width (default min-size; at least
 *               min-size, at most the same caps), e.g. 80x34 for Crawl,
 *               which lays out more rows when it has them
 *   status      a PCRE2 pattern matched against the program's screen for
 *               the depth and turn the lists show (statuspat.h), e.g.
 *               Dlvl:(?<depth>\d+).*T:(?<turn>\d+)  (no " #" in it: that
 *               starts a comment)
 * LINES and COLUMNS are not set: ncurses prefers them to the pty's size,
 * and the game would not follow a resize.
 *
 * A section is checked with the longest player values (a game name of
 * CMDLINE_GAME_NAME_MAX bytes, a name of CMDLINE_NAME_MAX, a directory of
 * GAMECFG_DIR_MAX), so a game that parses can be launched for every
 * player.
 *
 * Lines follow config.h: '#' starts a comment line, " #" a trailing one,
 * spaces around '=' and at the ends are ignored.
 *
 * Ownership: a gamecfg_list_t owns its games (gamecfg_list_free);
 * gamecfg_launch_t owns its argv and envp (gamecfg_launch_free). */
#ifndef WARREN_GAMECFG_H
#define WARREN_GAMECFG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAMECFG_ID_MAX         31 /* [a-z0-9_-] */
#define GAMECFG_GAMES          64
#define GAMECFG_ENV_MAX        16
#define GAMECFG_LINE_MAX       1023
#define GAMECFG_TEXT           512   /* bytes in a value, NUL included */
#define GAMECFG_DIR_MAX        200   /* bytes in a player's directory (%d) */
#define GAMECFG_HANGUP_S       10    /* default hangup-timeout, seconds */
#define GAMECFG_NAMES          16    /* names in each playground list */
#define GAMECFG_NAME_MAX       64    /* bytes in one of them */
#define GAMECFG_DISK_FILES_MAX 50000 /* disk-files at most: half the walk's ceiling */
#define GAMECFG_COPY_MB        8     /* default copy-max: MB of a player's files copied */
#define GAMECFG_COPY_MB_MAX    64    /* copy-max at most */
#define GAMECFG_COPY_KBS       64    /* default copy-rate: KB a second a game's copies write */
#define GAMECFG_COPY_KBS_MAX   65536 /* copy-rate at most (64 MB a second) */
#define GAMECFG_DISK_MB        64    /* default disk: MB in a player's directory */
#define GAMECFG_DISK_FILES     2000  /* default disk-files: entries in it */
/* bytes of a player's rc file as the editors (the menu's, /options/ID)
 * read and write it whole */
#define GAMECFG_RC_MAX         8192
#define GAMECFG_RC_LINES       1000 /* lines in it ("\r\n" or "\n" ends one) */
#define GAMECFG_RC_LINE_MAX    200  /* bytes in one line, its end not counted */
/* min-size and phone-size: at least 80x24 (what terminal games lay out
 * for), at most these */
#define GAMECFG_SIZE_MIN_W     80
#define GAMECFG_SIZE_MIN_H     24
#define GAMECFG_SIZE_MAX_W     250
#define GAMECFG_SIZE_MAX_H     100
/* ^\: Warren's keys in a hosted game follow it. Not ^], which telnet
 * clients keep as their escape key. */
#define GAMECFG_PREFIX         0x1C

/* start-timeout's default and most, seconds: below warrend's wait for the
 * spawner's answer (spawner.h), so the player hears why */
#define GAMECFG_START_S   8
#define GAMECFG_START_MAX 9

/* Resource limits for the program (soft = hard); 0 leaves one unchanged.
 * processes (RLIMIT_NPROC) counts all processes of the real uid, so it is
 * meaningful with a user switch; root ignores it. */
typedef struct {
    uint64_t cpu_seconds;  /* RLIMIT_CPU */
    uint64_t memory_bytes; /* RLIMIT_AS */
    uint64_t files;        /* RLIMIT_NOFILE */
    uint64_t processes;    /* RLIMIT_NPROC */
    uint64_t file_bytes;   /* RLIMIT_FSIZE */
} gamecfg_limits_t;

typedef struct {
    char id[GAMECFG_ID_MAX + 1];
    char name[64];
    char command[GAMECFG_TEXT];
    char env[GAMECFG_ENV_MAX][GAMECFG_TEXT];
    int nenv;
    char rcfile[GAMECFG_TEXT];     /* "" = none */
    char rc_default[GAMECFG_TEXT]; /* "" = none */
    char xlogfile[GAMECFG_TEXT];   /* "" = none */
    char playground[GAMECFG_TEXT]; /* "" = none */
    /* names in playground, one space between them; "" = none */
    char playground_shared[GAMECFG_TEXT];    /* bound read-only */
    char playground_shared_rw[GAMECFG_TEXT]; /* bound writable */
    char playground_files[GAMECFG_TEXT];     /* each player's own, made */
    char recover[GAMECFG_TEXT];              /* "" = none */
    char user[33];                           /* "" = the daemon's games-user */
    char term[32];
    gamecfg_limits_t limits;
    uint64_t disk_bytes; /* disk: bytes in the player's directory; 0: no cap */
    uint64_t disk_files; /* disk-files: entries in it; 0: no cap */
    uint64_t copy_bytes; /* copy-max: the player's files copied to a shared database; 0: none */
    uint64_t copy_rate;  /* copy-rate: bytes a second those copies write; 0: no budget */
    int idle_seconds;    /* -1: not given */
    int hangup_seconds;
    int start_seconds;         /* start-timeout */
    uint32_t key_prefix;       /* keys = prefix ^C: that control code; 0: direct */
    bool network;              /* network = host; false (none): cut off */
    int min_size[2];           /* min-size: columns, rows */
    int phone_size[2];         /* phone-size: columns, rows */
    char status[GAMECFG_TEXT]; /* a status pattern (statuspat.h); "" = none */
    int line;                  /* where the section starts, for messages */
} gamecfg_t;

typedef struct {
    gamecfg_t *games;
    int n;
} gamecfg_list_t;

/* Parses game sections from text (len bytes, no NUL needed); first_line is
 * the file's line number of text's first line. Only blank lines and
 * comments may come before the first section. Appends the games to list
 * (ids unique across the list). Returns 0, or -1 with "line N: message"
 * in err; then list holds the games of the sections completed before. */
int gamecfg_parse(gamecfg_list_t *list, const char *text, size_t len, int first_line, char *err,
                  size_t errlen);
void gamecfg_list_free(gamecfg_list_t *list); /* leaves an empty list */
const gamecfg_t *gamecfg_find(const gamecfg_list_t *list, const char *id);

/* The NAME of g's "rcfile = %d/NAME", or NULL when g has none. */
const char *gamecfg_rc_name(const gamecfg_t *g);
/* Whether text (len bytes, a player's) is an rc file both editors can
 * show: at most GAMECFG_RC_MAX bytes, GAMECFG_RC_LINES lines of
 * GAMECFG_RC_LINE_MAX bytes, no NUL. 0, or -1 with err saying why. */
int gamecfg_rc_check(const char *text, size_t len, char *err, size_t errlen);

/* The PATH of g's "xlogfile = %d/PATH" (each player's own), or NULL
 * when g has none or one file for all. */
const char *gamecfg_xlog_own(const gamecfg_t *g);

/* What the spawner execs to start a game for one player. */
typedef struct {
    char **argv, **envp; /* NULL-terminated; owned */
    char **recover;      /* recover's argv (a lock file's name to add), or NULL; owned */
    char *rcfile;        /* the player's rc file, or NULL; owned */
} gamecfg_launch_t;

/* Builds the launch of game g for the account with name name (%n) and
 * game name game (%u), with directory dir (an absolute path the caller
 * created, at most GAMECFG_DIR_MAX bytes). Returns 0, or -1 with err
 * (nothing to free then). */
int gamecfg_launch(const gamecfg_t *g, const char *name, const char *game, const char *dir,
                   gamecfg_launch_t *out, char *err, size_t errlen);
void gamecfg_launch_free(gamecfg_launch_t *l);

#endif
