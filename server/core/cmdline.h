/* cmdline — a hosted game's command line and paths from its config text,
 * with the player's values put in. No shell is ever involved.
 *
 * Words: spaces and tabs separate words. '...' keeps spaces, quotes and
 * backslashes inside as they are; "..." keeps spaces, and a backslash in
 * it escapes only " and \; outside quotes a backslash keeps the next
 * character as it is. Quotes may join: a"b c"'d' is the one word "ab cd".
 * An unterminated quote or a trailing backslash is an error.
 *
 * Substitution, after a word is unquoted (so a value never splits a word
 * or adds one), in quotes too: %u the account's game name, %n the
 * account's name, %d the player's directory for the game, %r the player's
 * rc file, %% a percent sign. Any other % sequence is an error, as is a
 * variable the caller did not give (NULL).
 *
 * %u is the player's identity for a game: unique per account for ever,
 * kept across renames, never given to another account (db/schema.sql:
 * game_names), and made only of what NetHack and Crawl keep whole. %n is
 * only what the account is called now: it changes on a rename, passes to
 * whoever registers it after a delete, and NetHack cuts it at a '-'. A
 * game must never key saves or files on %n.
 *
 * Values are checked, whatever the account rules already promise: a game
 * name is 1..CMDLINE_GAME_NAME_MAX bytes of [A-Za-z0-9_], a name
 * 1..CMDLINE_NAME_MAX bytes of [A-Za-z0-9_-]; %d and %r must be absolute
 * paths without control characters or "." / ".." components. In an argv,
 * a word that a value makes start with '-' is an error (the word "%n"
 * would turn the name "-D" into an option).
 *
 * Errors are returned as -1 with a message in err (errlen bytes; err may
 * be NULL when errlen is 0). */
#ifndef WARREN_CMDLINE_H
#define WARREN_CMDLINE_H
#include <stddef.h>

#define CMDLINE_NAME_MAX      32
#define CMDLINE_GAME_NAME_MAX 31
#define CMDLINE_ARGS_MAX      64   /* words in a command */
#define CMDLINE_VALUE_MAX     4096 /* bytes in one expanded word or value */

typedef struct {
    const char *name; /* %n, or NULL */
    const char *dir;  /* %d, or NULL */
    const char *rc;   /* %r, or NULL */
    const char *game; /* %u, or NULL */
} cmdline_vars_t;

/* Expands s into out (outlen bytes, NUL-terminated). Returns the length,
 * or -1 with err. */
int cmdline_expand(const char *s, const cmdline_vars_t *v, char *out, size_t outlen, char *err,
                   size_t errlen);

/* Splits cmd into words and expands each: a NULL-terminated argv, freed
 * with cmdline_free. At least one word; none longer than
 * CMDLINE_VALUE_MAX. Returns the number of words, or -1 with err (*argv
 * untouched). */
int cmdline_argv(const char *cmd, const cmdline_vars_t *v, char ***argv, char *err, size_t errlen);
void cmdline_free(char **list); /* a NULL-terminated list of strings; NULL is fine */

/* Whether s is a path %d and %r may hold: absolute, shorter than
 * CMDLINE_VALUE_MAX, no control characters, no "." or ".." component. */
int cmdline_path_ok(const char *s);
/* Whether s is a game name %u may hold: 1..CMDLINE_GAME_NAME_MAX bytes of
 * [A-Za-z0-9_]. */
int cmdline_game_name_ok(const char *s);
/* Whether s is a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*). */
int cmdline_env_name_ok(const char *s, size_t len);

#endif
