/* cmdline — word splitting and %-substitution for hosted games' commands. */
#include "cmdline.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                               \
    do {                                        \
        if (errlen)                             \
            snprintf(err, errlen, __VA_ARGS__); \
        return -1;                              \
    } while (0)

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > CMDLINE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return 0;
    return 1;
}

int cmdline_game_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > CMDLINE_GAME_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]) || s[i] == '-')
            return 0;
    return 1;
}

int cmdline_path_ok(const char *s)
{
    if (s[0] != '/' || strlen(s) >= CMDLINE_VALUE_MAX)
        return 0;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F)
            return 0;
    for (const char *p = s; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
    }
    return 1;
}

/* The substitutions: letter, what it is (for messages), where its value
 * is, how it is checked. */
static const struct {
    char c;
    const char *what;
    size_t off;
    int (*ok)(const char *s);
} VARS[] = {
    {'u', "game name", offsetof(cmdline_vars_t, game), cmdline_game_name_ok},
    {'n', "name", offsetof(cmdline_vars_t, name), name_ok},
    {'d', "directory", offsetof(cmdline_vars_t, dir), cmdline_path_ok},
    {'r', "rc file", offsetof(cmdline_vars_t, rc), cmdline_path_ok},
};
#define NVARS (sizeof VARS / sizeof VARS[0])

/* The value of %c (a letter of VARS, else NULL with *known false),
 * checked; NULL with err when it is missing or bad. */
static const char *var_value(char c, const cmdline_vars_t *v, bool *known, char *err, size_t errlen)
{
    size_t i = 0;
    while (i < NVARS && VARS[i].c != c)
        i++;
    if (!(*known = i < NVARS))
        return NULL;
    const char *val = *(const char *const *)((const char *)v + VARS[i].off);
    if (!val || !VARS[i].ok(val)) {
        if (errlen)
            snprintf(err, errlen, val ? "%%%c: unsafe %s" : "%%%c: no %s here", c, VARS[i].what);
        return NULL;
    }
    return val;
}

int cmdline_expand(const char *s, const cmdline_vars_t *v, char *out, size_t outlen, char *err,
                   size_t errlen)
{
    static const cmdline_vars_t none = {NULL, NULL, NULL, NULL};
    if (!v)
        v = &none;
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        const char *piece = p;
        size_t len = 1;
        if (*p == '%') {
            char c = p[1];
            bool known = true;
            if (!c)
                FAIL("a lone %% at the end (write %%%% for a percent sign)");
            if (c != '%') {
                piece = var_value(c, v, &known, err, errlen);
                if (!known)
                    FAIL("unknown substitution \"%%%c\" (use %%u, %%n, %%d, %%r or %%%%)", c);
                if (!piece)
                    return -1;
                len = strlen(piece);
            }
            p++;
        }
        if (n + len >= outlen || n + len >= CMDLINE_VALUE_MAX)
            FAIL("value too long");
        memcpy(out + n, piece, len);
        n += len;
    }
    if (!outlen)
        FAIL("value too long");
    out[n] = 0;
    return (int)n;
}

/* Reads one word at *pp into w (unquoted, maybe empty: ""); *pp moves past
 * it. Returns 1 for a word, 0 at the end of the command, or -1 with err. */
static int next_word(const char **pp, char *w, size_t wlen, char *err, size_t errlen)
{
    const char *p = *pp;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p) {
        *pp = p;
        return 0;
    }
    size_t n = 0;
    char quote = 0;
    for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
        char c = *p;
        if (quote == '\'' && c == '\'') {
            quote = 0;
            continue;
        }
        if (!quote && (c == '\'' || c == '"')) {
            quote = c;
            continue;
        }
        if (quote == '"' && c == '"') {
            quote = 0;
            continue;
        }
        if (c == '\\' && quote != '\'' && (!quote || p[1] == '"' || p[1] == '\\')) {
            if (!p[1])
                FAIL("a backslash at the end");
            c = *++p;
        }
        if (n + 1 >= wlen)
            FAIL("word too long");
        w[n++] = c;
    }
    if (quote)
        FAIL("unterminated %c quote", quote);
    w[n] = 0;
    *pp = p;
    return 1;
}

void cmdline_free(char **list)
{
    if (!list)
        return;
    for (char **p = list; *p; p++)
        free(*p);
    free(list);
}

int cmdline_argv(const char *cmd, const cmdline_vars_t *v, char ***argv, char *err, size_t errlen)
{
    char **list = calloc(CMDLINE_ARGS_MAX + 1, sizeof *list);
    char *raw = malloc(CMDLINE_VALUE_MAX), *out = malloc(CMDLINE_VALUE_MAX);
    int argc = 0, ret = -1;
    if (!list || !raw || !out) {
        if (errlen)
            snprintf(err, errlen, "out of memory");
        goto done;
    }
    const char *p = cmd;
    for (;;) {
        int n = next_word(&p, raw, CMDLINE_VALUE_MAX, err, errlen);
        if (n < 0)
            goto done;
        if (n == 0)
            break;
        if (argc == CMDLINE_ARGS_MAX) {
            if (errlen)
                snprintf(err, errlen, "more than %d words", CMDLINE_ARGS_MAX);
            goto done;
        }
        if (cmdline_expand(raw, v, out, CMDLINE_VALUE_MAX, err, errlen) < 0)
            goto done;
        if (out[0] == '-' && raw[0] != '-') {
            if (errlen)
                snprintf(err, errlen, "word %d: a value would start an option", argc + 1);
            goto done;
        }
        if (!(list[argc++] = strdup(out))) {
            if (errlen)
                snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    if (argc == 0) {
        if (errlen)
            snprintf(err, errlen, "empty command");
        goto done;
    }
    *argv = list;
    list = NULL;
    ret = argc;
done:
    cmdline_free(list);
    free(raw);
    free(out);
    return ret;
}

int cmdline_env_name_ok(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!name_char(s[i]) || s[i] == '-')
            return 0;
    return 1;
}
