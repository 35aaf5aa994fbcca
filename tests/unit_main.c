/* The unit runner: every suite from tests/unit (listed at build time).
 * `unit -j N` runs the suites in N processes at once, each taking the next
 * suite (the longest ones first) when it has finished one (a test's time
 * is mostly its forked child's leak check, one core each); its last line
 * sums them all up.
 * With CK_RUN_SUITE set, one process runs the one suite. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SUITE(name) Suite *name(void);
#include "suites.inc"
#undef SUITE

typedef Suite *(*suite_fn)(void);
typedef struct {
    const char *name;
    suite_fn fn;
} suite_entry_t;
static const suite_entry_t SUITES[] = {
#define SUITE(name) {#name, name},
#include "suites.inc"
#undef SUITE
};
enum { NSUITES = sizeof SUITES / sizeof SUITES[0], MAX_JOBS = 64 };

/* The longest suites (make unit's wall time, slowest first): with -j they
 * are taken first, so the last to finish is a short one, not one of these
 * started while the other processes have nothing left. The rest follow in
 * their own order; a name no longer there is passed over. */
static const char *const LONGEST[] = {
    "suite_protocol_keys",     "suite_server_hosted_vt", "suite_game_view",
    "suite_db_store",          "suite_server_accounts",  "suite_game_play",
    "suite_server_hosted_pty", "suite_game_grammar",
};
enum { NLONGEST = sizeof LONGEST / sizeof LONGEST[0] };

/* ORDER[k]: the suite taken k-th, the longest ones first. */
static int ORDER[NSUITES];

static bool is_longest(const char *name)
{
    for (int j = 0; j < NLONGEST; j++)
        if (strcmp(LONGEST[j], name) == 0)
            return true;
    return false;
}

static void order_suites(void)
{
    int k = 0;
    for (int j = 0; j < NLONGEST; j++)
        for (int i = 0; i < NSUITES; i++)
            if (strcmp(SUITES[i].name, LONGEST[j]) == 0)
                ORDER[k++] = i;
    for (int i = 0; i < NSUITES; i++)
        if (!is_longest(SUITES[i].name))
            ORDER[k++] = i;
}

/* A passing ck_assert records its place (Check's _mark_point: a message
 * written and flushed to the parent, which reads them all after the test),
 * so a crash or a timeout can say "after this point". An assertion in a
 * loop would write the same place again for every pass, a write each: the
 * unit is linked with --wrap=_mark_point, and a place is passed on only
 * when it differs from the last one passed on, which the parent holds
 * already. Each forked test starts with none; unforked, every one goes.
 * (The test's start, which Check sends itself, is not seen here: a test
 * whose first assertion repeats its checked fixture's last place keeps its
 * start as the place.) Failing assertions go as before. */
void __real__mark_point(const char *file, int line);
void __wrap__mark_point(const char *file, int line);
static struct {
    const char *file;
    int line;
    int unforked; /* 0 not known yet, 1 CK_FORK=no, -1 forked */
} last_mark;

void __wrap__mark_point(const char *file, int line)
{
    if (!last_mark.unforked) {
        const char *f = getenv("CK_FORK");
        last_mark.unforked = f && strcmp(f, "no") == 0 ? 1 : -1;
    }
    if (last_mark.unforked < 0 && file == last_mark.file && line == last_mark.line)
        return;
    last_mark.file = file;
    last_mark.line = line;
    __real__mark_point(file, line);
}

/* What the processes share: the next suite to take and the sums. */
typedef struct {
    int next, run, failed;
} shared_t;

static int run_all(void)
{
    SRunner *sr = srunner_create(NULL);
    for (int i = 0; i < NSUITES; i++)
        srunner_add_suite(sr, SUITES[i].fn());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* One process: suites one at a time until none is left. */
static void worker(shared_t *sh)
{
    for (int k; (k = __atomic_fetch_add(&sh->next, 1, __ATOMIC_SEQ_CST)) < NSUITES;) {
        SRunner *sr = srunner_create(SUITES[ORDER[k]].fn());
        srunner_run_all(sr, CK_NORMAL);
        __atomic_fetch_add(&sh->run, srunner_ntests_run(sr), __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&sh->failed, srunner_ntests_failed(sr), __ATOMIC_SEQ_CST);
        srunner_free(sr);
        fflush(stdout);
    }
}

static int run_jobs(int jobs)
{
    shared_t *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return EXIT_FAILURE;
    }
    fflush(stdout);
    int started = 0, lost = 0;
    for (; started < jobs; started++) {
        pid_t p = fork();
        if (p < 0)
            break; /* fewer processes: the ones started take every suite */
        if (p == 0) {
            worker(sh);
            _exit(0);
        }
    }
    if (started == 0)
        worker(sh);
    for (int st; wait(&st) > 0;)
        lost += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    printf("all suites in %d processes: Checks: %d, Failures and errors: %d%s\n",
           started ? started : 1, sh->run, sh->failed, lost ? ", a process died" : "");
    int ok = sh->failed == 0 && !lost && sh->next >= NSUITES;
    munmap(sh, sizeof *sh);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    int jobs = 1;
    if (argc == 3 && strcmp(argv[1], "-j") == 0)
        jobs = atoi(argv[2]);
    if (argc != 1 && (argc != 3 || jobs < 1 || jobs > MAX_JOBS)) {
        fprintf(stderr, "usage: %s [-j N]  (N processes, 1 to %d)\n", argv[0], MAX_JOBS);
        return EXIT_FAILURE;
    }
    if (jobs == 1 || getenv("CK_RUN_SUITE"))
        return run_all();
    order_suites();
    return run_jobs(jobs);
}
