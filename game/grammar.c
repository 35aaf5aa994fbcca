/* grammar — templates plus nouns -> English (see grammar.h for the syntax).
 *
 * One pass over the template: literal text is copied, each tag is parsed
 * into an operation and a role, rendered into a small buffer, then
 * appended with capitalisation decided by the tag's case and by whether a
 * sentence is starting. Whether anything named was perceived is tracked
 * on the way and decides at the end if the message is shown at all. */
#include "grammar.h"

#include <stdio.h>
#include <string.h>

#define TAG_MAX  96
#define WORD_MAX 256

typedef enum {
    OP_NOUN,
    OP_THE,
    OP_A,
    OP_NAME,
    OP_POSS,
    OP_HE,
    OP_HIM,
    OP_HIS,
    OP_HIMSELF,
    OP_S,
    OP_ES,
    OP_IS,
    OP_HAS,
    OP_WAS,
    OP_DOES,
    OP_V,
} op_t;

static const struct {
    const char *name;
    op_t op;
} op_names[] = {
    {"the", OP_THE},         {"a", OP_A},     {"an", OP_A},      {"name", OP_NAME},
    {"poss", OP_POSS},       {"he", OP_HE},   {"him", OP_HIM},   {"his", OP_HIS},
    {"himself", OP_HIMSELF}, {"s", OP_S},     {"es", OP_ES},     {"is", OP_IS},
    {"has", OP_HAS},         {"was", OP_WAS}, {"does", OP_DOES}, {"v", OP_V},
};

/* person index: you, he, she, it, they */
enum { P_YOU, P_HE, P_SHE, P_IT, P_THEY };

static const char *const pronouns[5][4] = {
    {"you", "you", "your", "yourself"},      {"he", "him", "his", "himself"},
    {"she", "her", "her", "herself"},        {"it", "it", "its", "itself"},
    {"they", "them", "their", "themselves"},
};

/* singular / plural verb forms for the agreement tags */
static const char *const verb_forms[][2] = {
    [OP_S] = {"s", ""},         [OP_ES] = {"es", ""},       [OP_IS] = {"is", "are"},
    [OP_HAS] = {"has", "have"}, [OP_WAS] = {"was", "were"}, [OP_DOES] = {"does", "do"},
};

static const char *const irregular[][2] = {
    {"loaf", "loaves"},     {"knife", "knives"},   {"wolf", "wolves"},   {"elf", "elves"},
    {"dwarf", "dwarves"},   {"staff", "staves"},   {"thief", "thieves"}, {"leaf", "leaves"},
    {"half", "halves"},     {"life", "lives"},     {"man", "men"},       {"woman", "women"},
    {"foot", "feet"},       {"tooth", "teeth"},    {"mouse", "mice"},    {"louse", "lice"},
    {"goose", "geese"},     {"child", "children"}, {"ox", "oxen"},       {"sheep", "sheep"},
    {"fish", "fish"},       {"deer", "deer"},      {"fungus", "fungi"},  {"cyclops", "cyclopes"},
    {"vortex", "vortices"}, {"larva", "larvae"},   {"die", "dice"},
};

/* words that start with a vowel letter but a consonant sound, and back */
static const char *const a_before[] = {"uni", "use", "usu", "ure", "uti",
                                       "eu",  "ewe", "one", "once"};
static const char *const an_before[] = {"hour", "honest", "honor", "honour", "heir"};

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static char upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

static int prefix_ci(const char *s, const char *p)
{
    for (; *p; s++, p++)
        if (lower(*s) != *p)
            return 0;
    return 1;
}

static int eq_ci(const char *a, size_t alen, const char *b)
{
    size_t i = 0;
    for (; i < alen && b[i]; i++)
        if (lower(a[i]) != lower(b[i]))
            return 0;
    return i == alen && b[i] == 0;
}

const char *gram_article(const char *word)
{
    if (!word)
        return "a";
    for (size_t i = 0; i < sizeof a_before / sizeof a_before[0]; i++)
        if (prefix_ci(word, a_before[i]))
            return "a";
    for (size_t i = 0; i < sizeof an_before / sizeof an_before[0]; i++)
        if (prefix_ci(word, an_before[i]))
            return "an";
    return strchr("aeiou", lower(word[0])) && word[0] ? "an" : "a";
}

/* Plural of one word (len bytes at w) appended to out at *n. */
static void plural_word(char *out, size_t cap, size_t *n, const char *w, size_t len)
{
    for (size_t i = 0; i < sizeof irregular / sizeof irregular[0]; i++)
        if (eq_ci(w, len, irregular[i][0])) {
            *n += (size_t)snprintf(out + *n, cap - *n, "%s", irregular[i][1]);
            return;
        }
    char last = len ? lower(w[len - 1]) : 0, prev = len > 1 ? lower(w[len - 2]) : 0;
    if (last == 'y' && prev && !strchr("aeiou", prev)) {
        *n += (size_t)snprintf(out + *n, cap - *n, "%.*sies", (int)(len - 1), w);
    } else if (last == 's' || last == 'x' || last == 'z' ||
               ((last == 'h') && (prev == 'c' || prev == 's'))) {
        *n += (size_t)snprintf(out + *n, cap - *n, "%.*ses", (int)len, w);
    } else {
        *n += (size_t)snprintf(out + *n, cap - *n, "%.*ss", (int)len, w);
    }
}

int gram_plural(char *out, size_t cap, const char *name)
{
    if (!out || cap == 0)
        return 0;
    out[0] = 0;
    if (!name)
        return 0;
    /* the head is the part before " of ": "loaf of bread", "pair of boots" */
    const char *of = strstr(name, " of ");
    size_t head = of ? (size_t)(of - name) : strlen(name);
    size_t start = head;
    while (start > 0 && name[start - 1] != ' ')
        start--;
    size_t n = (size_t)snprintf(out, cap, "%.*s", (int)start, name);
    if (n < cap)
        plural_word(out, cap, &n, name + start, head - start);
    if (n < cap)
        n += (size_t)snprintf(out + n, cap - n, "%s", name + head);
    if (n >= cap)
        n = cap - 1;
    return (int)n;
}

/* ---- nouns ---------------------------------------------------------------------- */

static int perceived(const gram_noun_t *n)
{
    return (n->flags & (GRAM_PERCEIVED | GRAM_PLAYER)) != 0;
}

static int person(const gram_noun_t *n)
{
    if (n->flags & GRAM_PLAYER)
        return P_YOU;
    if (!perceived(n))
        return P_IT;
    if (n->count > 1)
        return P_THEY;
    static const int by_gender[] = {
        [GRAM_IT] = P_IT, [GRAM_HE] = P_HE, [GRAM_SHE] = P_SHE, [GRAM_THEY] = P_THEY};
    return n->gender <= GRAM_THEY ? by_gender[n->gender] : P_IT;
}

static int plural_verb(const gram_noun_t *n)
{
    int p = person(n);
    return p == P_YOU || p == P_THEY;
}

/* The noun phrase for op (OP_NOUN, OP_THE, OP_A, OP_NAME) into buf. */
static void noun_phrase(const gram_noun_t *n, op_t op, char *buf, size_t cap)
{
    const char *name = n->name ? n->name : "thing";
    if (n->flags & GRAM_PLAYER) {
        snprintf(buf, cap, "you");
    } else if (!perceived(n)) {
        snprintf(buf, cap, "something");
    } else if (n->count > 1) {
        char pl[WORD_MAX - 20]; /* room for "the " and the count */
        if (n->plural)
            snprintf(pl, sizeof pl, "%s", n->plural);
        else
            gram_plural(pl, sizeof pl, name);
        snprintf(buf, cap, "%s%d %s", op == OP_THE ? "the " : "", n->count, pl);
    } else if ((n->flags & GRAM_PROPER) || op == OP_NAME) {
        snprintf(buf, cap, "%s", name);
    } else if (op == OP_THE || (n->flags & GRAM_UNIQUE) ||
               (op == OP_NOUN && !(n->flags & GRAM_INDEFINITE))) {
        snprintf(buf, cap, "the %s", name);
    } else {
        snprintf(buf, cap, "%s %s", (n->flags & GRAM_MASS) ? "some" : gram_article(name), name);
    }
}

static void possessive(const gram_noun_t *n, char *buf, size_t cap)
{
    if (n->flags & GRAM_PLAYER) {
        snprintf(buf, cap, "your");
        return;
    }
    char np[WORD_MAX - 4]; /* room for the ending below */
    noun_phrase(n, OP_NOUN, np, sizeof np);
    size_t len = strlen(np);
    /* "the kobolds'" but "Brandobis's" */
    int bare = n->count > 1 && perceived(n) && len && np[len - 1] == 's';
    snprintf(buf, cap, "%s%s", np, bare ? "'" : "'s");
}

/* ---- output ---------------------------------------------------------------------- */

typedef struct {
    char *out;
    size_t cap, len;
    int truncated;
    int sentence; /* the next word starts a sentence */
} writer_t;

static void emit(writer_t *w, const char *s, size_t n, int capital)
{
    for (size_t i = 0; i < n; i++) {
        if (w->len + 1 >= w->cap) {
            w->truncated = 1;
            return;
        }
        char c = s[i];
        if (capital && i == 0)
            c = upper(c);
        w->out[w->len++] = c;
        if (c == '.' || c == '!' || c == '?')
            w->sentence = 1;
        else if (c != ' ' && c != '"' && c != '\'')
            w->sentence = 0;
    }
}

/* Cuts a partial UTF-8 sequence left at the end by truncation. */
static void utf8_trim(writer_t *w)
{
    size_t i = w->len;
    while (i > 0 && ((unsigned char)w->out[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)w->out[i - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if ((i - 1) + need > w->len)
        w->len = i - 1;
}

/* ---- tags -------------------------------------------------------------------------- */

typedef struct {
    op_t op;
    const gram_noun_t *noun;
    const char *extra; /* OP_V: "sing/plural" */
    size_t extra_len;
    int capital;
} tag_t;

static const gram_noun_t *find_role(const gram_arg_t *args, int nargs, const char *s, size_t len)
{
    for (int i = 0; i < nargs; i++)
        if (args[i].role && eq_ci(s, len, args[i].role))
            return &args[i].noun;
    return NULL;
}

/* Parses the inside of a tag (text of len bytes); 0 or -1. */
static int tag_parse(const char *s, size_t len, const gram_arg_t *args, int nargs, tag_t *t)
{
    const char *c1 = memchr(s, ':', len);
    t->capital = s[0] >= 'A' && s[0] <= 'Z';
    t->extra = NULL;
    t->extra_len = 0;
    if (!c1) {
        t->op = OP_NOUN;
        t->noun = find_role(args, nargs, s, len);
        return t->noun ? 0 : -1;
    }
    size_t oplen = (size_t)(c1 - s);
    size_t i = 0, nops = sizeof op_names / sizeof op_names[0];
    while (i < nops && !eq_ci(s, oplen, op_names[i].name))
        i++;
    if (i == nops)
        return -1;
    t->op = op_names[i].op;
    const char *role = c1 + 1, *end = s + len;
    const char *c2 = memchr(role, ':', (size_t)(end - role));
    if (t->op == OP_V) {
        if (!c2 || !memchr(c2, '/', (size_t)(end - c2)))
            return -1;
        t->extra = c2 + 1;
        t->extra_len = (size_t)(end - c2 - 1);
    } else if (c2) {
        return -1;
    }
    t->noun = find_role(args, nargs, role, (size_t)((c2 ? c2 : end) - role));
    return t->noun ? 0 : -1;
}

/* Renders a parsed tag into buf. */
static void tag_render(const tag_t *t, char *buf, size_t cap)
{
    const gram_noun_t *n = t->noun;
    int pl = plural_verb(n);
    switch (t->op) {
    case OP_NOUN:
    case OP_THE:
    case OP_A:
    case OP_NAME: noun_phrase(n, t->op, buf, cap); break;
    case OP_POSS: possessive(n, buf, cap); break;
    case OP_HE:
    case OP_HIM:
    case OP_HIS:
    case OP_HIMSELF: snprintf(buf, cap, "%s", pronouns[person(n)][t->op - OP_HE]); break;
    case OP_V: {
        const char *slash = memchr(t->extra, '/', t->extra_len);
        size_t a = (size_t)(slash - t->extra);
        if (pl)
            snprintf(buf, cap, "%.*s", (int)(t->extra_len - a - 1), slash + 1);
        else
            snprintf(buf, cap, "%.*s", (int)a, t->extra);
        break;
    }
    default: snprintf(buf, cap, "%s", verb_forms[t->op][pl]); break;
    }
}

static int fail(char *out)
{
    out[0] = 0;
    return -1;
}

/* Both entry points: sentence says whether the text starts a sentence. */
static int format(char *out, size_t cap, const char *tmpl, const gram_arg_t *args, int nargs,
                  int sentence)
{
    if (!out || cap == 0)
        return -1;
    if (!tmpl)
        return fail(out);
    writer_t w = {out, cap, 0, 0, sentence};
    int named = 0, seen = 0, after_det = 0;
    for (const char *p = tmpl; *p;) {
        if (*p != '<') {
            const char *q = p;
            while (*q && *q != '<')
                q++;
            emit(&w, p, (size_t)(q - p), 0);
            /* only spaces since a determiner keep it active */
            after_det = after_det && strspn(p, " ") == (size_t)(q - p);
            p = q;
            continue;
        }
        if (p[1] == '<') {
            emit(&w, "<", 1, 0);
            p += 2;
            continue;
        }
        const char *close = strchr(p + 1, '>');
        tag_t t;
        if (!close || close == p + 1 || close - p > TAG_MAX)
            return fail(out);
        if (tag_parse(p + 1, (size_t)(close - p - 1), args, nargs, &t) < 0)
            return fail(out);
        named = 1;
        seen |= perceived(t.noun);
        char buf[WORD_MAX];
        /* "his loaf", not "his the loaf" */
        if (after_det && t.op <= OP_A)
            t.op = OP_NAME;
        after_det = t.op == OP_HIS || t.op == OP_POSS;
        tag_render(&t, buf, sizeof buf);
        emit(&w, buf, strlen(buf), t.capital || (w.sentence && t.op <= OP_HIMSELF));
        p = close + 1;
    }
    if (named && !seen) {
        out[0] = 0;
        return 0;
    }
    if (w.truncated)
        utf8_trim(&w);
    out[w.len] = 0;
    return (int)w.len;
}

int gram_format(char *out, size_t cap, const char *tmpl, const gram_arg_t *args, int nargs)
{
    return format(out, cap, tmpl, args, nargs, 1);
}

int gram_phrase(char *out, size_t cap, const char *tmpl, const gram_arg_t *args, int nargs)
{
    return format(out, cap, tmpl, args, nargs, 0);
}

/* ---- lists ------------------------------------------------------------------------- */

/* a then b after out's len bytes, as far as cap allows: the length the
 * whole would take. */
static size_t append(char *out, size_t cap, size_t len, const char *a, const char *b)
{
    if (len < cap)
        snprintf(out + len, cap - len, "%s%s", a, b);
    return len + strlen(a) + strlen(b);
}

/* The first k nouns joined ("a, b and c"), "and others" after them when
 * more: the length it takes, written into out as far as cap allows. */
static size_t list_of(char *out, size_t cap, const gram_noun_t *nouns, int k, int more)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < k; i++) {
        char one[WORD_MAX];
        noun_phrase(&nouns[i], OP_A, one, sizeof one);
        len = append(out, cap, len, i == 0 ? "" : i == k - 1 && !more ? " and " : ", ", one);
    }
    return more ? append(out, cap, len, k ? " and " : "", "others") : len;
}

int gram_list(char *out, size_t cap, const gram_noun_t *nouns, int n, int more)
{
    if (!out || cap == 0)
        return -1;
    for (int k = n; k > 0; k--) { /* as many as fit, the rest "others" */
        size_t len = list_of(out, cap, nouns, k, more || k < n);
        if (len < cap)
            return (int)len;
    }
    size_t len = list_of(out, cap, nouns, 0, 1);
    return len < cap ? (int)len : (out[0] = 0, 0);
}
