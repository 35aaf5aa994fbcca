/* Unit tests: a player's hosted files as a bundle (server/hosted/
 * hostfiles.c: paths, caps, bad bytes refused) and copied out of and into
 * a real directory (server/hosted/playerfs.c) with links, FIFOs, huge
 * files and bad names planted as a hostile game would. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hosted/hostfiles.h"
#include "hosted/playerfs.h"
#include "hosted/spawner.h"
#include "hosted/spawnmsg.h"
#include <sys/socket.h>

static char err[200];

START_TEST(paths_a_bundle_may_hold)
{
    const char *good[] = {"a", "save/1000bob.gz", "playground/bob-0.1", "x+y_z.-", "a/b/c/d/e/f"};
    const char *bad[] = {"",    "/a",  "a/",   "a//b",          ".",          "..", "a/../b",
                         "./a", "a b", "a\nb", "a/b/c/d/e/f/g", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(hostfiles_path_ok(good[i], strlen(good[i])), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!hostfiles_path_ok(bad[i], strlen(bad[i])), "%s", bad[i]);
    char longname[HOSTFILES_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    ck_assert(!hostfiles_path_ok(longname, strlen(longname)));
    ck_assert(hostfiles_path_ok(longname, HOSTFILES_NAME_MAX));
    ck_assert(!hostfiles_path_ok("a\0b", 3));
}
END_TEST

START_TEST(bundles_round_trip)
{
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    char big[10000];
    memset(big, 7, sizeof big);
    ck_assert_int_eq(hostfiles_add(&b, "save/1000bob.gz", "SAVE", 4, err, sizeof err), 0);
    ck_assert_int_eq(hostfiles_add(&b, "empty", "", 0, err, sizeof err), 0);
    ck_assert_int_eq(hostfiles_add(&b, "big", big, sizeof big, err, sizeof err), 0);
    ck_assert_int_eq(hostfiles_add(&b, "../x", "x", 1, err, sizeof err), -1);
    hostfiles_reader_t r;
    hostfiles_file_t f;
    uint32_t n;
    ck_assert_int_eq(hostfiles_open(&r, b.p, b.len, b.len, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(hostfiles_next(&r, &f, err, sizeof err), 1);
    ck_assert_str_eq(f.path, "save/1000bob.gz");
    ck_assert(f.len == 4 && !memcmp(f.data, "SAVE", 4));
    ck_assert_int_eq(hostfiles_next(&r, &f, err, sizeof err), 1);
    ck_assert(!strcmp(f.path, "empty") && f.len == 0);
    ck_assert_int_eq(hostfiles_next(&r, &f, err, sizeof err), 1);
    ck_assert(f.len == sizeof big && !memcmp(f.data, big, sizeof big));
    ck_assert_int_eq(hostfiles_next(&r, &f, err, sizeof err), 0);
    /* a reader's cap below the bundle refuses it */
    ck_assert_int_eq(hostfiles_open(&r, b.p, b.len, b.len - 1, &n, err, sizeof err), -1);
    hostfiles_buf_free(&b);
}
END_TEST

START_TEST(a_bundle_keeps_to_its_caps)
{
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 100), 0);
    char data[100] = {0};
    ck_assert_int_eq(hostfiles_add(&b, "a", data, 80, err, sizeof err), 0);
    size_t len = b.len;
    ck_assert_int_eq(hostfiles_add(&b, "b", data, 20, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than 100 bytes"));
    ck_assert_uint_eq(b.len, len); /* unchanged */
    ck_assert_uint_eq(b.count, 1);
    hostfiles_buf_free(&b);
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    for (int i = 0; i < HOSTFILES_FILES_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        ck_assert_int_eq(hostfiles_add(&b, name, "", 0, err, sizeof err), 0);
    }
    ck_assert_int_eq(hostfiles_add(&b, "one-more", "", 0, err, sizeof err), -1);
    hostfiles_buf_free(&b);
}
END_TEST

/* A good bundle's bytes, then each damaged in turn: every one refused. */
START_TEST(bad_bundles_are_refused_with_a_reason)
{
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(hostfiles_add(&b, "save/x", "abc", 3, err, sizeof err), 0);
    uint32_t n;
    ck_assert_int_eq(hostfiles_check(b.p, b.len, 4096, &n, err, sizeof err), 0);
    uint8_t bad[256];
    size_t len = b.len;
    /* every cut short */
    for (size_t cut = 0; cut < len; cut++)
        ck_assert_int_eq(hostfiles_check(b.p, cut, 4096, &n, err, sizeof err), -1);
    /* bytes trailing */
    memcpy(bad, b.p, len);
    bad[len] = 0;
    ck_assert_int_eq(hostfiles_check(bad, len + 1, 4096, &n, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "after the last"));
    /* magic, count, a path of "..", a size past the end */
    const struct {
        size_t at;
        uint8_t v;
    } flips[] = {{0, 'X'}, {4, 2}, {7, 1}, {10, '.'}, {11, ' '}, {10, '/'}, {16, 9}, {19, 1}};
    for (size_t i = 0; i < sizeof flips / sizeof *flips; i++) {
        memcpy(bad, b.p, len);
        bad[flips[i].at] = flips[i].v;
        if (flips[i].at == 10)
            bad[11] = '.', bad[12] = '/'; /* "../x" */
        ck_assert_msg(hostfiles_check(bad, len, 4096, &n, err, sizeof err) == -1, "flip %zu", i);
    }
    hostfiles_buf_free(&b);
}
END_TEST

/* ---- a real directory -------------------------------------------------------------- */

static void put(int dirfd, const char *path, const char *text)
{
    int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static char *get(int dirfd, const char *path, char *out, size_t cap)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    out[n < 0 ? 0 : n] = 0;
    return out;
}

static int made_dir(char *dir)
{
    snprintf(dir, 64, "/tmp/hostfiles-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    return fd;
}

static void gone(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const playerfs_user_t SELF = {0};
static char note[160];
static int skipped;

/* fd's files collected into b (playerfs_files_collect, as this test's
 * user): its answer; what it did not copy in skipped and note, why it
 * refused in err. */
static int collect(int fd, uint64_t quiet_ms, hostfiles_buf_t *b)
{
    return playerfs_files_collect(fd, &SELF, quiet_ms, b, &skipped, note, sizeof note, err,
                                  sizeof err);
}

START_TEST(files_copy_out_and_in_without_links)
{
    char a[64], bdir[64], secret[64], buf[64];
    int fa = made_dir(a), fb = made_dir(bdir), fs = made_dir(secret);
    put(fs, "secret", "SECRET");
    ck_assert_int_eq(mkdirat(fa, "playground", 0700), 0);
    ck_assert_int_eq(mkdirat(fa, "playground/save", 0700), 0);
    put(fa, "playground/save/1000bob.gz", "the save");
    put(fa, "nethackrc", "OPTIONS=color\n");
    char target[128];
    snprintf(target, sizeof target, "%s/secret", secret);
    ck_assert_int_eq(symlinkat(target, fa, "playground/steal"), 0);
    ck_assert_int_eq(symlinkat(secret, fa, "linkdir"), 0);
    ck_assert_int_eq(mkfifoat(fa, "fifo", 0600), 0);
    put(fa, "bad name", "x");
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    ck_assert_int_eq(collect(fa, 0, &b), 0);
    ck_assert_uint_eq(b.count, 2); /* the save and the rc file alone */
    ck_assert_int_eq(skipped, 4);
    ck_assert_ptr_nonnull(strstr(note, "not copied"));
    ck_assert_ptr_null(memmem(b.p, b.len, "SECRET", 6));
    /* into another directory that holds an old save, a stray file and a
     * link planted where the save goes */
    ck_assert_int_eq(mkdirat(fb, "playground", 0700), 0);
    ck_assert_int_eq(mkdirat(fb, "playground/save", 0700), 0);
    put(fb, "playground/stale.0", "old level");
    ck_assert_int_eq(symlinkat(target, fb, "playground/save/1000bob.gz"), 0);
    ck_assert_int_eq(playerfs_files_unpack(fb, &SELF, b.p, b.len, b.len, err, sizeof err), 0);
    ck_assert_str_eq(get(fb, "playground/save/1000bob.gz", buf, sizeof buf), "the save");
    ck_assert_str_eq(get(fb, "nethackrc", buf, sizeof buf), "OPTIONS=color\n");
    ck_assert_ptr_null(get(fb, "playground/stale.0", buf, sizeof buf));
    ck_assert_str_eq(get(fs, "secret", buf, sizeof buf), "SECRET"); /* the link's target kept */
    struct stat st;
    ck_assert_int_eq(fstatat(fb, "playground/save/1000bob.gz", &st, AT_SYMLINK_NOFOLLOW), 0);
    ck_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
    hostfiles_buf_free(&b);
    close(fa), close(fb), close(fs);
    gone(a), gone(bdir), gone(secret);
}
END_TEST

START_TEST(files_over_the_cap_are_refused_whole)
{
    char a[64];
    int fa = made_dir(a);
    put(fa, "small", "x");
    int fd = openat(fa, "huge", O_WRONLY | O_CREAT, 0600);
    ck_assert_int_eq(ftruncate(fd, 1 << 30), 0); /* 1 GB, sparse: never read */
    close(fd);
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(collect(fa, 0, &b), PLAYERFS_OVER);
    ck_assert_ptr_nonnull(strstr(err, "larger than 4096 bytes"));
    hostfiles_buf_free(&b);
    close(fa);
    gone(a);
}
END_TEST

/* Entries named n-NNNNN below fd: empty files, or directories. */
static void many(int fd, int n, bool dirs)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s-%05d", dirs ? "d" : "f", i);
        if (dirs)
            ck_assert_int_eq(mkdirat(fd, name, 0700), 0);
        else
            close(openat(fd, name, O_WRONLY | O_CREAT, 0600));
    }
}

/* A new directory (its path in dir) on a tmpfs of its own, where this
 * test's process may mount one (in a mount namespace of its own: the
 * disk may take seconds for thousands of entries). */
static int made_fast_dir(char *dir)
{
    close(made_dir(dir));
    if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
        mount("many", dir, "tmpfs", 0, "mode=0700");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    return fd;
}

START_TEST(a_directory_of_too_many_entries_is_over_and_not_walked_whole)
{
    char a[64];
    int fa = made_fast_dir(a);
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    /* more files than a bundle holds */
    many(fa, HOSTFILES_FILES_MAX + 1, false);
    ck_assert_int_eq(collect(fa, 0, &b), PLAYERFS_OVER);
    ck_assert_ptr_nonnull(strstr(err, "the files are more than 512"));
    for (int i = 0; i <= HOSTFILES_FILES_MAX; i++) {
        char name[32];
        snprintf(name, sizeof name, "f-%05d", i);
        ck_assert_int_eq(unlinkat(fa, name, 0), 0);
    }
    /* no file at all, but more entries than a walk looks at: empty
     * directories, which no file cap counts */
    many(fa, HOSTFILES_WALK_MAX + 1, true);
    hostfiles_buf_free(&b);
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    ck_assert_int_eq(collect(fa, 0, &b), PLAYERFS_OVER);
    ck_assert_str_eq(err, "more than 4096 files and directories to look through");
    /* one fewer is walked whole */
    ck_assert_int_eq(unlinkat(fa, "d-00000", AT_REMOVEDIR), 0);
    hostfiles_buf_free(&b);
    ck_assert_int_eq(hostfiles_buf_init(&b, 1 << 20), 0);
    ck_assert_int_eq(collect(fa, 0, &b), 0);
    ck_assert_uint_eq(b.count, 0);
    hostfiles_buf_free(&b);
    close(fa);
    umount2(a, MNT_DETACH);
    gone(a);
}
END_TEST

START_TEST(only_files_still_for_a_while_are_collected)
{
    char a[64];
    int fa = made_dir(a);
    ck_assert_int_eq(mkdirat(fa, "save", 0700), 0);
    put(fa, "save/state", "half");
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(collect(fa, 300, &b), PLAYERFS_BUSY);
    ck_assert_msg(strstr(err, "changed within 300 ms of the read"), "%s", err);
    ck_assert_uint_eq(b.count, 0); /* nothing read */
    usleep(400 * 1000);
    ck_assert_int_eq(collect(fa, 300, &b), 0);
    ck_assert_uint_eq(b.count, 1);
    /* a file removed: its directory changed */
    hostfiles_buf_free(&b);
    put(fa, "save/old", "x");
    usleep(400 * 1000);
    ck_assert_int_eq(unlinkat(fa, "save/old", 0), 0);
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(collect(fa, 300, &b), PLAYERFS_BUSY);
    ck_assert_msg(strstr(err, "save changed within"), "%s", err);
    /* without quiet_ms (the program ended): read at once */
    ck_assert_int_eq(collect(fa, 0, &b), 0);
    ck_assert_uint_eq(b.count, 1);
    hostfiles_buf_free(&b);
    close(fa);
    gone(a);
}
END_TEST

START_TEST(a_name_not_copied_is_said_without_its_control_bytes)
{
    char a[64];
    int fa = made_dir(a);
    put(fa, "x\n2026-01-01T00:00:00.000Z ERROR forged\x1b[2J", "x");
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(collect(fa, 0, &b), 0);
    ck_assert_int_eq(skipped, 1);
    ck_assert_str_eq(note, "x?2026-01-01T00:00:00.000Z ERROR forged?[2J: a name not allowed: "
                           "not copied");
    /* the note goes to warrend as it is */
    spawnmsg_t m = {.type = SPAWNMSG_FILES, .seq = 1, .text = note, .len = strlen(note)};
    uint8_t buf[SPAWNMSG_MAX];
    ck_assert_uint_gt(spawnmsg_build(&m, buf, sizeof buf), 0);
    hostfiles_buf_free(&b);
    close(fa);
    gone(a);
}
END_TEST

START_TEST(a_bad_bundle_touches_nothing)
{
    char a[64], buf[64];
    int fa = made_dir(a);
    put(fa, "keep", "kept");
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(hostfiles_add(&b, "new", "n", 1, err, sizeof err), 0);
    b.p[b.len - 3] = '/'; /* damaged: "new" becomes "ne/" */
    ck_assert_int_eq(playerfs_files_unpack(fa, &SELF, b.p, b.len, 4096, err, sizeof err), -1);
    ck_assert_str_eq(get(fa, "keep", buf, sizeof buf), "kept");
    hostfiles_buf_free(&b);
    close(fa);
    gone(a);
}
END_TEST

/* ---- the spawner's messages for them ------------------------------------------------- */

/* m sent on a with fd (-1: none), received on b: 1, or -1 (refused). */
static int over_pair(const spawnmsg_t *m, int fd, spawnmsg_t *got, int *gotfd)
{
    static uint8_t buf[SPAWNMSG_MAX];
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    ck_assert_int_eq(spawnmsg_send(sv[0], m, fd), 0);
    int r = spawnmsg_recv(sv[1], buf, 0, got, gotfd, err, sizeof err);
    close(sv[0]), close(sv[1]);
    return r;
}

START_TEST(files_messages_carry_a_descriptor_where_they_must)
{
    spawnmsg_t got;
    int fd, mfd = memfd_create("t", MFD_CLOEXEC);
    ck_assert_int_ge(mfd, 0);
    spawnmsg_t w = {.type = SPAWNMSG_FILES_WRITE, .seq = 3, .game = "nethack", .dir = "bob"};
    ck_assert_int_eq(over_pair(&w, mfd, &got, &fd), 1);
    ck_assert(got.type == SPAWNMSG_FILES_WRITE && !strcmp(got.dir, "bob") && fd >= 0);
    close(fd);
    ck_assert_int_eq(over_pair(&w, -1, &got, &fd), -1); /* a write without its bundle */
    spawnmsg_t r = {.type = SPAWNMSG_FILES_READ, .seq = 4, .game = "nethack", .dir = "bob"};
    ck_assert_int_eq(over_pair(&r, mfd, &got, &fd), -1); /* a read with one */
    ck_assert_int_eq(fd, -1);
    spawnmsg_t a = {.type = SPAWNMSG_FILES, .seq = 4, .text = "steal: a link", .len = 13};
    ck_assert_int_eq(over_pair(&a, mfd, &got, &fd), 1);
    ck_assert(got.len == 13 && !memcmp(got.text, "steal: a link", 13) && fd >= 0);
    close(fd);
    spawnmsg_t bad = {.type = SPAWNMSG_FILES_READ, .game = "nethack", .dir = "../x"};
    uint8_t buf[SPAWNMSG_MAX];
    ck_assert_uint_eq(spawnmsg_build(&bad, buf, sizeof buf), 0);
    /* a FILES note names a player's file and goes to warrend's log: no
     * control byte (a newline would start a line of the program's own);
     * empty when everything was copied */
    uint8_t raw[SPAWNMSG_MAX];
    spawnmsg_t nl = {.type = SPAWNMSG_FILES, .seq = 4, .text = "a\nERROR forged", .len = 14};
    ck_assert_uint_eq(spawnmsg_build(&nl, raw, sizeof raw), 0);
    spawnmsg_t esc = {.type = SPAWNMSG_FILES, .seq = 4, .text = "a\x1b[2J", .len = 5};
    ck_assert_uint_eq(spawnmsg_build(&esc, raw, sizeof raw), 0);
    spawnmsg_t none = {.type = SPAWNMSG_FILES, .seq = 4, .text = "", .len = 0};
    ck_assert_int_eq(over_pair(&none, mfd, &got, &fd), 1);
    ck_assert(got.len == 0 && fd >= 0);
    close(fd);
    close(mfd);
}
END_TEST

/* ---- a bundle in a memfd: sealed, or never mapped --------------------------------------- */

/* A memfd holding a bundle of one file (its bytes in *len). */
static int bundle_memfd(size_t *len)
{
    hostfiles_buf_t b;
    ck_assert_int_eq(hostfiles_buf_init(&b, 4096), 0);
    ck_assert_int_eq(hostfiles_add(&b, "save/bob", "xyz", 3, err, sizeof err), 0);
    int fd = hostfiles_memfd();
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b.p, b.len), (ssize_t)b.len);
    *len = b.len;
    hostfiles_buf_free(&b);
    return fd;
}

START_TEST(an_unsealed_memfd_is_never_mapped)
{
    size_t len, got = 0;
    int fd = bundle_memfd(&len);
    /* anyone holding it could shrink it under the map: refused, said why */
    ck_assert_ptr_null(hostfiles_map(fd, &got, err, sizeof err));
    ck_assert_str_eq(err, "the files came in a memfd not sealed: not read");
    ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0); /* one seal is not enough */
    ck_assert_ptr_null(hostfiles_map(fd, &got, err, sizeof err));
    ck_assert_int_eq(hostfiles_seal(fd), 0);
    uint8_t *p = hostfiles_map(fd, &got, err, sizeof err);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(got, len);
    uint32_t count;
    ck_assert_int_eq(hostfiles_check(p, got, 4096, &count, err, sizeof err), 0);
    ck_assert_uint_eq(count, 1);
    /* sealed: it neither shrinks, grows nor changes, nor are its seals undone */
    ck_assert_int_eq(ftruncate(fd, 1), -1);
    ck_assert_int_eq(ftruncate(fd, (off_t)len * 2), -1);
    ck_assert_int_eq(pwrite(fd, "Q", 1, 0), -1);
    ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, 0), -1);
    munmap(p, got);
    close(fd);
    int plain = memfd_create("t", MFD_CLOEXEC); /* not sealable at all */
    ck_assert_int_eq(write(plain, "WHF1\0\0\0\0", 8), 8);
    ck_assert_ptr_null(hostfiles_map(plain, &got, err, sizeof err));
    close(plain);
}
END_TEST

/* A read's answer told by the spawner's codes alone: a file name the
 * hosted program chose ("larger than" in it, or a code itself further
 * on) never makes the set over copy-max nor puts the read off. */
START_TEST(a_read_answer_is_told_by_the_spawners_codes_alone)
{
    static const struct {
        const char *err;
        spawner_read_t kind;
    } CASES[] = {
        {NULL, SPAWNER_READ_OK},
        {SPAWNER_FILES_SAME, SPAWNER_READ_SAME},
        {SPAWNER_FILES_BUSY "save/bob changed within 2000 ms of the read", SPAWNER_READ_BUSY},
        {SPAWNER_FILES_OVER "save/bob: the files are larger than 1024 bytes", SPAWNER_READ_OVER},
        {SPAWNER_FILES_FULL, SPAWNER_READ_FULL},
        {"save/bob is larger than 10 bytes: not read", SPAWNER_READ_FAILED},
        {"x: larger than: not read", SPAWNER_READ_FAILED},
        {"a: " SPAWNER_FILES_OVER "b", SPAWNER_READ_FAILED},
        {SPAWNER_FILES_SAME " and more", SPAWNER_READ_FAILED},
        {"the work on your files failed", SPAWNER_READ_FAILED},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        ck_assert_msg(spawner_read_kind(CASES[i].err) == CASES[i].kind, "%s",
                      CASES[i].err ? CASES[i].err : "(none)");
}
END_TEST

Suite *suite_server_hostfiles(void)
{
    Suite *s = suite_create("server.hostfiles");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60); /* thousands of entries made and walked, on a busy machine */
    tcase_add_test(t, paths_a_bundle_may_hold);
    tcase_add_test(t, bundles_round_trip);
    tcase_add_test(t, a_bundle_keeps_to_its_caps);
    tcase_add_test(t, bad_bundles_are_refused_with_a_reason);
    tcase_add_test(t, files_copy_out_and_in_without_links);
    tcase_add_test(t, files_over_the_cap_are_refused_whole);
    tcase_add_test(t, a_directory_of_too_many_entries_is_over_and_not_walked_whole);
    tcase_add_test(t, only_files_still_for_a_while_are_collected);
    tcase_add_test(t, a_name_not_copied_is_said_without_its_control_bytes);
    tcase_add_test(t, a_bad_bundle_touches_nothing);
    tcase_add_test(t, files_messages_carry_a_descriptor_where_they_must);
    tcase_add_test(t, an_unsealed_memfd_is_never_mapped);
    tcase_add_test(t, a_read_answer_is_told_by_the_spawners_codes_alone);
    suite_add_tcase(s, t);
    return s;
}
