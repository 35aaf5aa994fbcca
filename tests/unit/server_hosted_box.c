/* Unit tests: what keeps hosted programs in their box — the spawner's
 * messages (server/hosted/spawnmsg.c) and the players' directories and rc
 * files (server/hosted/playerfs.c), with real links, FIFOs and files
 * planted as an escaped game would, and (as root) the games' user's file
 * rights. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hosted/boxfilter.h"
#include "hosted/diskheld.h"
#include "hosted/diskreq.h"
#include "hosted/playerfs.h"
#include "hosted/spawnd.h"
#include "hosted/spawner.h"
#include "hosted/spawnmsg.h"

/* ---- messages ---------------------------------------------------------------------- */

static size_t build(const spawnmsg_t *m, uint8_t *buf)
{
    size_t n = spawnmsg_build(m, buf, SPAWNMSG_MAX);
    ck_assert_uint_gt(n, SPAWNMSG_HEADER - 1);
    return n;
}

START_TEST(messages_round_trip)
{
    uint8_t buf[SPAWNMSG_MAX];
    char err[160];
    const char *rc = "OPTIONS=color\n\tx\n";
    spawnmsg_t in[] = {
        {.type = SPAWNMSG_SPAWN,
         .seq = 7,
         .game = "nethack",
         .name = "Bob-9",
         .dir = "bob_9",
         .w = 80,
         .h = 24},
        {.type = SPAWNMSG_RC_SAVE,
         .seq = 8,
         .game = "crawl",
         .dir = "x",
         .deadline_ms = 0x123456789abcull,
         .text = rc,
         .len = strlen(rc)},
        {.type = SPAWNMSG_EXIT, .pid = 99, .status = -1},
        {.type = SPAWNMSG_DONE, .seq = 9},
        {.type = SPAWNMSG_XLOG_READ, .seq = 10, .game = "nethack", .dir = "bob_9"},
        {.type = SPAWNMSG_STOPPED, .pid = 42, .text = "They take 9.0 MB", .len = 16},
        {.type = SPAWNMSG_NOTE,
         .game = "nethack",
         .dir = "bob_9",
         .status = 256,
         .text = "recover on 1000bob.0 exited with status 1",
         .len = 41},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        size_t n = build(&in[i], buf);
        spawnmsg_t out;
        ck_assert_msg(spawnmsg_parse(buf, n, &out, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(out.type, in[i].type);
        ck_assert_uint_eq(out.seq, in[i].seq);
        ck_assert_str_eq(out.game, in[i].game);
        ck_assert_str_eq(out.name, in[i].name);
        ck_assert_str_eq(out.dir, in[i].dir);
        ck_assert(out.w == in[i].w && out.h == in[i].h && out.pid == in[i].pid);
        ck_assert_int_eq(out.status, in[i].status);
        ck_assert(out.deadline_ms == in[i].deadline_ms);
        ck_assert_uint_eq(out.len, in[i].len);
        ck_assert(!in[i].len || memcmp(out.text, in[i].text, in[i].len) == 0);
    }
}
END_TEST

START_TEST(bad_messages_are_refused_with_a_reason)
{
    uint8_t buf[SPAWNMSG_MAX];
    char err[160];
    spawnmsg_t m = {.type = SPAWNMSG_SPAWN,
                    .seq = 1,
                    .game = "nethack",
                    .name = "bob",
                    .dir = "bob",
                    .w = 80,
                    .h = 24};
    size_t n = build(&m, buf);
    spawnmsg_t out;
    ck_assert_int_eq(spawnmsg_parse(buf, n - 1, &out, err, sizeof err), -1);
    ck_assert_str_eq(err, "length 23, but 22 bytes follow");
    ck_assert_int_eq(spawnmsg_parse(buf, 5, &out, err, sizeof err), -1);
    ck_assert_str_eq(err, "short header (5 bytes)");
    buf[0] = 9; /* another version */
    ck_assert_int_eq(spawnmsg_parse(buf, n, &out, err, sizeof err), -1);
    ck_assert_str_eq(err, "version 9, expected 1");
    buf[0] = SPAWNMSG_VERSION;
    buf[2] = 99;
    ck_assert_int_eq(spawnmsg_parse(buf, n, &out, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown type 99");
    buf[2] = SPAWNMSG_SPAWN;
    /* a note is for the log: printable, never empty */
    spawnmsg_t note = {
        .type = SPAWNMSG_NOTE, .game = "nethack", .dir = "bob", .text = "a\x1b[2J", .len = 5};
    ck_assert_uint_eq(spawnmsg_build(&note, buf, sizeof buf), 0);
    note.len = 0;
    ck_assert_uint_eq(spawnmsg_build(&note, buf, sizeof buf), 0);
    n = build(&m, buf);
    /* fields out of their rules: each is refused, by the builder too */
    static const struct {
        const char *name, *dir;
        int w;
        const char *err;
    } bad[] = {
        {"../x", "bob", 80, "spawn: bad name"}, {"bob", "..", 80, "spawn: bad dir"},
        {"bob", "a/b", 80, "spawn: bad dir"},   {"bob", "", 80, "spawn: bad dir"},
        {"b b", "bob", 80, "spawn: bad name"},  {"bob", "bob", 1, "spawn: bad w"},
        {"bob", "bob", 513, "spawn: bad w"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        spawnmsg_t b = m;
        snprintf(b.name, sizeof b.name, "%s", bad[i].name);
        snprintf(b.dir, sizeof b.dir, "%s", bad[i].dir);
        b.w = bad[i].w;
        ck_assert_uint_eq(spawnmsg_build(&b, buf, sizeof buf), 0);
        /* the same bytes written by hand: the parser refuses them */
        uint8_t raw[128];
        size_t at = SPAWNMSG_HEADER;
        const char *strs[] = {"nethack", bad[i].name, bad[i].dir};
        for (int s = 0; s < 3; s++) {
            uint16_t len = (uint16_t)strlen(strs[s]);
            memcpy(raw + at, &len, 2);
            memcpy(raw + at + 2, strs[s], len);
            at += 2 + len;
        }
        uint16_t w = (uint16_t)bad[i].w, h = 24, v = SPAWNMSG_VERSION, t = SPAWNMSG_SPAWN;
        memcpy(raw + at, &w, 2);
        memcpy(raw + at + 2, &h, 2);
        at += 4;
        uint32_t seq = 1, body = (uint32_t)(at - SPAWNMSG_HEADER);
        memcpy(raw, &v, 2);
        memcpy(raw + 2, &t, 2);
        memcpy(raw + 4, &seq, 4);
        memcpy(raw + 8, &body, 4);
        ck_assert_int_eq(spawnmsg_parse(raw, at, &out, err, sizeof err), -1);
        ck_assert_str_eq(err, bad[i].err);
    }
    spawnmsg_t f = {.type = SPAWNMSG_FAILED, .text = "a\033[2Jb", .len = 6};
    ck_assert_uint_eq(spawnmsg_build(&f, buf, sizeof buf), 0); /* no control characters */
    spawnmsg_t t = {.type = SPAWNMSG_RC_SAVE, .game = "g", .dir = "d", .text = "a\0b", .len = 3};
    ck_assert_uint_eq(spawnmsg_build(&t, buf, sizeof buf), 0); /* no NUL */
    spawnmsg_t k = {.type = SPAWNMSG_KILL, .pid = 0};
    ck_assert_uint_eq(spawnmsg_build(&k, buf, sizeof buf), 0);
}
END_TEST

/* ---- players' directories ------------------------------------------------------------ */

typedef struct {
    char root[64], games[96], secret[96], elsewhere[96];
    playerfs_t fs;
    playerfs_user_t u;
} fsbox_t;

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static void read_file(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    ck_assert_int_ge(n, 0);
    out[n] = 0;
}

/* A root (0711) with a secret only its owner may read, a directory
 * elsewhere, and games-dir; the player's user is the games' user (root)
 * or this process. */
static void fsbox_open(fsbox_t *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->root, sizeof b->root, "/tmp/warren-fs-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(b->root));
    ck_assert_int_eq(chmod(b->root, 0711), 0);
    snprintf(b->secret, sizeof b->secret, "%.63s/secret", b->root);
    write_file(b->secret, "SECRET\n", 0600);
    snprintf(b->elsewhere, sizeof b->elsewhere, "%.63s/elsewhere", b->root);
    ck_assert_int_eq(mkdir(b->elsewhere, 0755), 0);
    snprintf(b->games, sizeof b->games, "%.63s/games", b->root);
    char err[300];
    ck_assert_msg(playerfs_open(&b->fs, b->games, getuid(), getgid(), err, sizeof err) == 0, "%s",
                  err);
    b->u = (playerfs_user_t){getuid(), getgid(), false};
    if (geteuid() == 0) {
        spawner_user_t g;
        ck_assert_msg(spawner_user_lookup("warren-games", &g) == 0, "%s", g.why);
        b->u = (playerfs_user_t){g.uid, g.gid, true};
    }
}

static void fsbox_close(fsbox_t *b)
{
    playerfs_close(&b->fs);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->root);
    ck_assert_int_eq(system(cmd), 0);
}

static int player_dir(fsbox_t *b, const char *dir, char *err, size_t n)
{
    char path[512];
    return playerfs_dir(&b->fs, "nethack", dir, &b->u, path, sizeof path, err, n);
}

static void assert_owner_mode(const char *path, uid_t uid, mode_t mode)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(st.st_uid == uid && (st.st_mode & 07777) == mode, "%s: uid %u mode %o", path,
                  (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

START_TEST(directories_get_their_owners_and_modes)
{
    fsbox_t b;
    fsbox_open(&b);
    char err[300], path[512];
    /* an older layout: the game's directory 0750, the player's root's */
    snprintf(path, sizeof path, "%s/nethack", b.games);
    ck_assert_int_eq(mkdir(path, 0750), 0);
    snprintf(path, sizeof path, "%s/nethack/old", b.games);
    ck_assert_int_eq(mkdir(path, 0750), 0);
    int fd = player_dir(&b, "old", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    close(fd);
    assert_owner_mode(b.games, getuid(), 0711);
    snprintf(path, sizeof path, "%s/nethack", b.games);
    assert_owner_mode(path, getuid(), 0711);
    snprintf(path, sizeof path, "%s/nethack/old", b.games);
    assert_owner_mode(path, b.u.uid, 0700);
    fd = player_dir(&b, "new", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    /* the rc default becomes the player's, written as the player's user */
    char def[128], text[64];
    snprintf(def, sizeof def, "%.63s/default", b.root);
    write_file(def, "OPTIONS=color\n", 0644);
    size_t len;
    ck_assert_int_eq(
        playerfs_rc_load(fd, "rc", def, &b.u, text, sizeof text, &len, err, sizeof err), 0);
    ck_assert(len == 14 && !memcmp(text, "OPTIONS=color\n", 14));
    snprintf(path, sizeof path, "%s/nethack/new/rc", b.games);
    assert_owner_mode(path, b.u.uid, 0600);
    ck_assert_int_eq(playerfs_reachable(b.games, &b.u, err, sizeof err), 0);
    close(fd);
    fsbox_close(&b);
}
END_TEST

START_TEST(planted_links_lead_nowhere)
{
    fsbox_t b;
    fsbox_open(&b);
    char err[300], path[512], text[PLAYERFS_RC_MAX], victim[128];
    size_t len;
    int fd = player_dir(&b, "p", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    /* the rc file a link to the secret: not read, not changed, not chowned */
    snprintf(path, sizeof path, "%s/nethack/p/rc", b.games);
    ck_assert_int_eq(symlink(b.secret, path), 0);
    ck_assert_int_eq(
        playerfs_rc_load(fd, "rc", NULL, &b.u, text, sizeof text, &len, err, sizeof err), -1);
    ck_assert_str_eq(err, "your rc file is a link: not read");
    /* rc.new a link to another path: saving writes neither it nor the secret */
    snprintf(victim, sizeof victim, "%.63s/victim", b.root);
    snprintf(path, sizeof path, "%s/nethack/p/rc.new", b.games);
    ck_assert_int_eq(symlink(victim, path), 0);
    ck_assert_msg(playerfs_rc_save(fd, "rc", &b.u, "OPTIONS=time\n", 13, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(access(victim, F_OK), -1);
    read_file(b.secret, text, sizeof text);
    ck_assert_str_eq(text, "SECRET\n");
    assert_owner_mode(b.secret, getuid(), 0600);
    snprintf(path, sizeof path, "%s/nethack/p/rc", b.games); /* the link replaced by a file */
    read_file(path, text, sizeof text);
    ck_assert_str_eq(text, "OPTIONS=time\n");
    assert_owner_mode(path, b.u.uid, 0600);
    close(fd);
    /* the player's directory itself a link elsewhere: refused, nothing chowned */
    snprintf(path, sizeof path, "%s/nethack/q", b.games);
    ck_assert_int_eq(symlink(b.elsewhere, path), 0);
    ck_assert_int_eq(player_dir(&b, "q", err, sizeof err), -1);
    ck_assert_str_eq(err, "your directory for this game is a link or not a directory: not used");
    assert_owner_mode(b.elsewhere, getuid(), 0755);
    fsbox_close(&b);
}
END_TEST

START_TEST(fifos_and_huge_files_are_refused_at_once)
{
    fsbox_t b;
    fsbox_open(&b);
    char err[300], path[512], text[PLAYERFS_RC_MAX];
    size_t len;
    int fd = player_dir(&b, "p", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    snprintf(path, sizeof path, "%s/nethack/p/rc", b.games);
    ck_assert_int_eq(mkfifo(path, 0666), 0); /* no writer: a blocking open would wait forever */
    ck_assert_int_eq(
        playerfs_rc_load(fd, "rc", NULL, &b.u, text, sizeof text, &len, err, sizeof err), -1);
    ck_assert_str_eq(err, "your rc file is not a regular file: not read");
    ck_assert_int_eq(unlink(path), 0);
    int big = open(path, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_ge(big, 0);
    ck_assert_int_eq(ftruncate(big, 1 << 30), 0); /* a gigabyte, sparse */
    close(big);
    ck_assert_int_eq(
        playerfs_rc_load(fd, "rc", NULL, &b.u, text, sizeof text, &len, err, sizeof err), -1);
    ck_assert_str_eq(err, "your rc file is larger than 8192 bytes: not read");
    close(fd);
    fsbox_close(&b);
}
END_TEST

/* As root, the work inside a player's directory has the games' user's
 * rights: a hard link to a root-only file (when the kernel lets one be
 * made) cannot be read through it either. */
START_TEST(the_games_user_rights_bound_the_work)
{
    if (geteuid() != 0)
        return; /* without root there is no other user's rights to take */
    fsbox_t b;
    fsbox_open(&b);
    char err[300], path[512], text[PLAYERFS_RC_MAX];
    size_t len;
    int fd = player_dir(&b, "p", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    snprintf(path, sizeof path, "%s/nethack/p/rc", b.games);
    ck_assert_int_eq(link(b.secret, path), 0); /* root may; the user could not */
    ck_assert_int_eq(
        playerfs_rc_load(fd, "rc", NULL, &b.u, text, sizeof text, &len, err, sizeof err), -1);
    ck_assert_str_eq(err, "your rc file cannot be opened: Permission denied");
    close(fd);
    /* a root-only directory above games-dir: the user cannot reach it */
    ck_assert_int_eq(chmod(b.root, 0700), 0);
    ck_assert_int_eq(playerfs_reachable(b.games, &b.u, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cannot reach") && strstr(err, "Permission denied"), "%s", err);
    fsbox_close(&b);
}
END_TEST

/* What a player's directory holds, at path below the box's games-dir. */
static diskuse_t usage_of(fsbox_t *b, const char *dir, uint64_t stop_bytes, uint64_t stop_entries)
{
    char err[300];
    diskuse_t use;
    ck_assert_msg(playerfs_usage(&b->fs, "nethack", dir, &b->u, stop_bytes, stop_entries, NULL,
                                 NULL, &use, err, sizeof err) == 0,
                  "%s", err);
    return use;
}

START_TEST(disk_use_counts_blocks_and_entries_never_through_a_link)
{
    fsbox_t b;
    fsbox_open(&b);
    char err[300], path[600];
    ck_assert_uint_eq(usage_of(&b, "none", 0, 0).entries, 0); /* no directory yet: nothing */
    int fd = player_dir(&b, "du", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    close(fd);
    snprintf(path, sizeof path, "%s/nethack/du", b.games);
    char p[700];
    snprintf(p, sizeof p, "%s/sparse", path); /* 100 MB long, nothing written */
    int f = open(p, O_WRONLY | O_CREAT, 0600);
    ck_assert_int_eq(ftruncate(f, 100 << 20), 0);
    close(f);
    snprintf(p, sizeof p, "%s/written", path); /* 1 MB written */
    static char mb[1 << 20];
    memset(mb, 'x', sizeof mb);
    f = open(p, O_WRONLY | O_CREAT, 0600);
    ck_assert_int_eq(write(f, mb, sizeof mb), (ssize_t)sizeof mb);
    ck_assert_int_eq(fsync(f), 0);
    close(f);
    snprintf(p, sizeof p, "%s/sub", path);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/sub/f%d", path, i);
        write_file(p, "x", 0600);
    }
    snprintf(p, sizeof p, "%s/root", path); /* a link to the whole box: one entry */
    ck_assert_int_eq(symlink(b.root, p), 0);
    diskuse_t u = usage_of(&b, "du", 0, 0);
    ck_assert_uint_eq(u.entries, 7); /* sparse, written, sub, its 3, the link */
    ck_assert_msg(u.bytes >= (1u << 20) && u.bytes < (2u << 20), "%llu",
                  (unsigned long long)u.bytes);
    ck_assert(!u.cut && !u.deep);
    ck_assert(diskuse_over(&u, 1 << 20, 0) && !diskuse_over(&u, 2 << 20, 7) &&
              diskuse_over(&u, 0, 6));
    /* bounded: it stops past a stop value, and says so */
    u = usage_of(&b, "du", 0, 2);
    ck_assert(u.cut && u.entries == 3);
    char say[160];
    diskuse_say(&u, 0, 2, say, sizeof say);
    ck_assert_str_eq(say, "They are at least 3 files and directories, over the 2 allowed");
    /* nested deeper than any game needs: over, whatever it holds */
    size_t at = strlen(path);
    snprintf(p, sizeof p, "%s", path);
    for (int i = 0; i <= DISKUSE_DEPTH_MAX && at + 2 < sizeof p; i++, at += 2) {
        memcpy(p + at, "/d", 3);
        ck_assert_int_eq(mkdir(p, 0755), 0);
    }
    u = usage_of(&b, "du", 0, 0);
    ck_assert(u.deep && diskuse_over(&u, 64 << 20, 2000));
    fsbox_close(&b);
}
END_TEST

/* With no cap of entries (disk-files = 0), a tree of more files than any
 * game keeps is not walked to its end: the walk stops past its ceiling
 * (100000 entries) and the tree counts as over, whatever the caps. */
START_TEST(disk_use_walk_is_bounded_without_caps)
{
    enum { MADE = 100000 + 50 }; /* past DISKUSE_ENTRIES_MAX */
    /* made on a tmpfs in a mount namespace of this test's process where
     * it may (the disk takes many seconds for 100000 files) */
    bool ns = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
    fsbox_t b;
    fsbox_open(&b);
    char err[300], name[32];
    int fd = player_dir(&b, "many", err, sizeof err);
    ck_assert_msg(fd >= 0, "%s", err);
    close(fd);
    char path[160];
    snprintf(path, sizeof path, "%s/nethack/many", b.games);
    if (ns) {
        char opts[80];
        snprintf(opts, sizeof opts, "mode=0700,uid=%u,gid=%u", (unsigned)b.u.uid,
                 (unsigned)b.u.gid);
        ck_assert_int_eq(mount("many", path, "tmpfs", 0, opts), 0);
    }
    fd = open(path, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    for (int i = 0; i < MADE; i++) {
        snprintf(name, sizeof name, "f%06d", i);
        ck_assert_int_eq(mknodat(fd, name, S_IFREG | 0600, 0), 0);
    }
    close(fd);
    for (int capped = 0; capped < 2; capped++) { /* no cap; a cap of bytes alone */
        uint64_t stop_bytes = capped ? 128u << 20 : 0;
        diskuse_t u = usage_of(&b, "many", stop_bytes, 0);
        ck_assert_msg(u.entries > 0 && u.entries <= 100001, "%llu", (unsigned long long)u.entries);
        ck_assert(u.cut && diskuse_over(&u, 0, 0) && diskuse_over(&u, 64u << 20, 0));
        char say[160];
        diskuse_say(&u, stop_bytes / 2, 0, say, sizeof say);
        ck_assert_str_eq(say, "They are more than 100000 files and directories, more than any game "
                              "keeps");
    }
    umount2(path, MNT_DETACH); /* its files with it; none when made on the disk */
    fsbox_close(&b);
}
END_TEST

/* The filter, loaded in a child: the calls it refuses fail with EPERM
 * (clone3 with ENOSYS), others still work, nothing is killed. */
START_TEST(the_box_filter_refuses_with_an_errno)
{
    static boxfilter_t f; /* 8 KB: not on the test's stack */
    char err[200];
    ck_assert_msg(boxfilter_make(&f, err, sizeof err) == 0, "%s", err);
    ck_assert(f.len > 10 && f.len < BOXFILTER_MAX);
    pid_t pid = fork();
    if (pid == 0) {
        if (boxfilter_load(&f) < 0)
            _exit(10);
        static const long REFUSED[] = {SYS_memfd_create, SYS_userfaultfd, SYS_io_uring_setup,
                                       SYS_bpf,          SYS_unshare,     SYS_setns,
                                       SYS_mount,        SYS_keyctl,      SYS_perf_event_open};
        for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++)
            if (syscall(REFUSED[i], 0, 0, 0, 0, 0) != -1 || errno != EPERM)
                _exit(20 + (int)i);
        if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
            _exit(40);
        if (syscall(SYS_personality, 0xffffffffUL) < 0 || personality(ADDR_NO_RANDOMIZE) != -1)
            _exit(41);
#ifdef __x86_64__
        if (syscall(0x40000000 | SYS_getpid) != -1 || errno != EPERM) /* x32 */
            _exit(42);
#endif
        if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || getpid() <= 0 || write(1, "", 0) != 0)
            _exit(43);
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
    boxfilter_t empty = {.len = 0}; /* nothing to load: refused, never loaded half */
    ck_assert(boxfilter_load(&empty) == -1 && errno == EINVAL);
}
END_TEST

/* A start without the spawner's compiled filter (its compile failed, or
 * none given) is refused before anything is opened or forked. */
START_TEST(a_start_without_a_compiled_filter_is_refused)
{
    static char *const argv[] = {"/bin/true", NULL}, *const envp[] = {NULL};
    static const boxfilter_t empty = {.len = 0};
    spawner_user_t u = {.ok = true, .sw = geteuid() == 0, .uid = 65534, .gid = 65534};
    gamecfg_limits_t limits = {0};
    const boxfilter_t *filters[] = {NULL, &empty};
    for (size_t i = 0; i < 2; i++) {
        spawnexec_t x = {.argv = argv,
                         .envp = envp,
                         .dirfd = -1,
                         .prep_fd = -1,
                         .w = 80,
                         .h = 24,
                         .limits = &limits,
                         .user = &u,
                         .network = true,
                         .userns = -1,
                         .netns = -1,
                         .filter = filters[i]};
        int master = -1, report = -1;
        char err[200] = "";
        ck_assert_int_eq(spawnexec_start(&x, &master, &report, err, sizeof err), -1);
        ck_assert_str_eq(err, "system call filter: not built");
        ck_assert(master == -1 && report == -1);
    }
}
END_TEST

/* n bytes written into fd, on the disk. */
static void write_out(int fd, size_t n)
{
    static char block[64 * 1024];
    memset(block, 'x', sizeof block);
    for (size_t done = 0; done < n; done += sizeof block)
        ck_assert_int_eq(write(fd, block, sizeof block), sizeof block);
    ck_assert_int_eq(fsync(fd), 0);
}

/* A process and its child hold, between them, a file made with
 * O_TMPFILE (twice: dup), a removed one and a named one: the two with no
 * name count, each once, the named one not (the walk's). */
START_TEST(files_held_open_with_no_name_are_counted_once)
{
    char dir[] = "/tmp/warren-held-XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {ready[1]}; /* not the test runner's own files */
        spawnexec_close_all_but(keep, 1);
        setpgid(0, 0);
        int tmp = open(dir, O_TMPFILE | O_RDWR, 0600);
        snprintf(path, sizeof path, "%s/gone", dir);
        int gone = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        snprintf(path, sizeof path, "%s/named", dir);
        int named = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (tmp < 0 || gone < 0 || named < 0 || dup(tmp) < 0)
            _exit(1);
        write_out(tmp, 1 << 20);
        write_out(gone, 64 * 1024);
        write_out(named, 1 << 20);
        snprintf(path, sizeof path, "%s/gone", dir);
        unlink(path);
        if (fork() == 0) { /* the child holds the same files too */
            if (write(ready[1], "r", 1) != 1)
                _exit(1);
            pause();
        }
        pause();
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    diskheld_t h;
    struct stat tmp;
    ck_assert_int_eq(stat(dir, &tmp), 0);
    ck_assert_int_eq(diskheld_measure(pid, false, NULL, 0, tmp.st_dev, &h), 0);
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ck_assert(!h.unseen);
    ck_assert_int_eq(h.files, 2);
    ck_assert_uint_ge(h.bytes, (1 << 20) + 64 * 1024);
    ck_assert_uint_lt(h.bytes, 2 << 20); /* not the named one, not twice */
    ck_assert_int_eq(diskheld_measure(pid, false, NULL, 0, tmp.st_dev, &h), -1); /* gone */
    ck_assert(h.bytes == 0 && h.files == 0 && !h.unseen);
    snprintf(path, sizeof path, "%s/named", dir);
    unlink(path);
    rmdir(dir);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* A process that holds a removed file by a shared mapping alone (its
 * descriptor closed), written through it, and a shared anonymous
 * mapping (a removed file of the kernel's, memory): in a child the
 * caller forks, which measures it with CAP_CHECKPOINT_RESTORE (the file
 * counted, the memory not), then without it (unseen: the link cannot
 * be followed), then as if the games' file system were another (the
 * file not counted, nothing unseen). 0 when all held. */
static int measure_mapped(pid_t pid, dev_t dev)
{
    diskheld_t h;
    if (diskheld_measure(pid, false, NULL, 0, dev, &h) < 0 || h.unseen || h.files != 1 ||
        h.bytes < (1 << 20) || h.bytes >= (2 << 20))
        return 1;
    cap_value_t v[] = {CAP_CHECKPOINT_RESTORE, CAP_SYS_ADMIN};
    cap_t c = cap_get_proc();
    if (!c || cap_set_flag(c, CAP_EFFECTIVE, 2, v, CAP_CLEAR) < 0 || cap_set_proc(c) < 0)
        return 2;
    cap_free(c);
    if (diskheld_measure(pid, false, NULL, 0, dev, &h) < 0 || !h.unseen)
        return 3;
    if (diskheld_measure(pid, false, NULL, 0, dev + 1, &h) < 0 || h.unseen || h.files != 0)
        return 4;
    return 0;
}

START_TEST(files_held_by_a_mapping_alone_are_counted)
{
    char dir[] = "/tmp/warren-mapped-XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/gone", dir);
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {ready[1]};
        spawnexec_close_all_but(keep, 1);
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        char *m = fd < 0 || ftruncate(fd, 1 << 20) < 0
                      ? MAP_FAILED
                      : mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        char *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || anon == MAP_FAILED || close(fd) < 0 || unlink(path) < 0)
            _exit(1);
        memset(m, 'x', 1 << 20);
        memset(anon, 'x', 1 << 20);
        if (msync(m, 1 << 20, MS_SYNC) < 0 || write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    struct stat tmp;
    ck_assert_int_eq(stat(dir, &tmp), 0);
    pid_t measurer = fork();
    if (measurer == 0)
        _exit(measure_mapped(pid, tmp.st_dev));
    int status = -1;
    ck_assert_int_eq(waitpid(measurer, &status, 0), measurer);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ck_assert_int_eq(status, 0);
    rmdir(dir);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* ---- the disk measurer's requests -------------------------------------------------- */

/* Two games' users: the first switched to (root's spawner), the second not. */
static const spawner_user_t REQ_USERS[2] = {{.ok = true, .sw = true, .uid = 1234, .gid = 2345},
                                            {.ok = true}};

static diskreq_t good_request(void)
{
    diskreq_t q;
    diskreq_make(&q, 7, 3, DISKREQ_ORPHANS, 0, 4321, &REQ_USERS[0], "Player_1-x");
    q.watched[0] = 99;
    q.nwatched = 1;
    return q;
}

/* q refused, with err saying why (the text expected in it). */
static void refused(const void *q, size_t n, const char *why)
{
    diskreq_t out;
    char err[120] = "";
    ck_assert_int_eq(diskreq_parse(q, n, REQ_USERS, 2, &out, err, sizeof err), -1);
    ck_assert_msg(strstr(err, why), "%s: not %s", err, why);
}

START_TEST(disk_requests_round_trip)
{
    diskreq_t q = good_request(), out;
    char err[120] = "";
    ck_assert_int_eq(diskreq_parse(&q, sizeof q, REQ_USERS, 2, &out, err, sizeof err), 0);
    ck_assert_mem_eq(&q, &out, sizeof q);
    ck_assert_str_eq(out.dir, "Player_1-x");
    ck_assert_int_eq(out.pid, 4321);
    diskreq_make(&q, 1, 0, 0, 1, 2, &REQ_USERS[1], "a"); /* not switched: ids 0 */
    ck_assert_int_eq(diskreq_parse(&q, sizeof q, REQ_USERS, 2, &out, err, sizeof err), 0);
}
END_TEST

START_TEST(bad_disk_requests_are_refused_with_a_reason)
{
    diskreq_t q = good_request();
    unsigned char big[sizeof q + 1] = {0};
    memcpy(big, &q, sizeof q);
    refused(&q, sizeof q - 1, "not 592");
    refused(big, sizeof big, "of 593 bytes");
    refused(&q, 0, "of 0 bytes");
    static const struct {
        size_t at, size;
        int64_t value;
        const char *why;
    } BAD[] = {
        {offsetof(diskreq_t, flags), 4, 2, "unknown flags"},
        {offsetof(diskreq_t, game), 4, 2, "no such game"},
        {offsetof(diskreq_t, game), 4, -1, "no such game"},
        {offsetof(diskreq_t, pid), 4, 1, "not a program's pid"},
        {offsetof(diskreq_t, pid), 4, -5, "not a program's pid"},
        {offsetof(diskreq_t, uid), 4, 0, "not the game's user"},
        {offsetof(diskreq_t, gid), 4, 0, "not the game's user"},
        {offsetof(diskreq_t, sw), 4, 0, "not the game's user"},
        {offsetof(diskreq_t, sw), 4, 3, "not the game's user"},
        {offsetof(diskreq_t, dir), 1, 0, "not a directory name"},
        {offsetof(diskreq_t, dir), 1, '.', "not a directory name"},
        {offsetof(diskreq_t, dir) + 3, 1, '/', "not a directory name"},
        {offsetof(diskreq_t, dir) + 12, 1, 'x', "not a directory name"}, /* after its NUL */
        {offsetof(diskreq_t, nwatched), 4, 65, "too many directories watched"},
        {offsetof(diskreq_t, nwatched), 4, -1, "too many directories watched"},
        {offsetof(diskreq_t, nwatched), 4, 0, "bytes past the fields"}, /* watched[0] set */
        {offsetof(diskreq_t, watched) + 8, 8, 5, "bytes past the fields"},
        {offsetof(diskreq_t, zero) + 10, 1, 1, "bytes past the fields"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        diskreq_t b = good_request();
        memcpy((char *)&b + BAD[i].at, &BAD[i].value, BAD[i].size); /* little-endian */
        refused(&b, sizeof b, BAD[i].why);
    }
    diskreq_t full = good_request(); /* a name filling its field has no NUL */
    memset(full.dir, 'a', sizeof full.dir);
    refused(&full, sizeof full, "not a directory name");
}
END_TEST

Suite *suite_server_hosted_box(void)
{
    Suite *s = suite_create("server.hosted_box");
    TCase *t = tcase_create("core");
    tcase_add_test(t, messages_round_trip);
    tcase_add_test(t, bad_messages_are_refused_with_a_reason);
    tcase_add_test(t, directories_get_their_owners_and_modes);
    tcase_add_test(t, planted_links_lead_nowhere);
    tcase_add_test(t, fifos_and_huge_files_are_refused_at_once);
    tcase_add_test(t, the_games_user_rights_bound_the_work);
    tcase_add_test(t, disk_use_counts_blocks_and_entries_never_through_a_link);
    tcase_add_test(t, disk_use_walk_is_bounded_without_caps);
    tcase_add_test(t, the_box_filter_refuses_with_an_errno);
    tcase_add_test(t, a_start_without_a_compiled_filter_is_refused);
    tcase_add_test(t, files_held_open_with_no_name_are_counted_once);
    tcase_add_test(t, files_held_by_a_mapping_alone_are_counted);
    tcase_add_test(t, disk_requests_round_trip);
    tcase_add_test(t, bad_disk_requests_are_refused_with_a_reason);
    suite_add_tcase(s, t);
    return s;
}
