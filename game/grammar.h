/* grammar — the one message formatter: templates plus nouns -> English.
 *
 * A template is text with tags in angle brackets. Tags name a noun by its
 * role (case-insensitive: "actor", "victim", "obj", anything the caller
 * passes). A tag's first letter in upper case capitalises what it prints;
 * anything printed at the start of the message or after ". ", "! ", "? "
 * is capitalised too.
 *
 *   <Role>            the noun: "you", "the kobold", "Brandobis",
 *                     "6 loaves of bread", "something" (unperceived)
 *   <the:Role>        forced definite:   "the kobold", "the 6 arrows"
 *   <a:Role>          forced indefinite: "a kobold", "an orc", "6 arrows"
 *   <name:Role>       no article:        "kobold", "6 arrows"
 *   <poss:Role>       possessive noun:   "your", "the kobold's", "Brandobis's"
 *   <he:Role>         subject pronoun:   you/he/she/it/they
 *   <him:Role>        object pronoun:    you/him/her/it/them
 *   <his:Role>        possessive:        your/his/her/its/their
 *   <himself:Role>    reflexive:         yourself/himself/herself/itself/themselves
 *   <s:Role>          verb ending:       "s"  unless Role is you or plural ("hit<s:Actor>")
 *   <es:Role>         verb ending:       "es" unless you or plural ("miss<es:Actor>")
 *   <is:Role> <has:Role> <was:Role> <does:Role>   is/are, has/have, was/were, does/do
 *   <v:Role:sing/plural>  any verb:      "<v:Actor:flies/fly>"
 *   <<                a literal '<'
 *
 * Nouns: the player is "you" (second person, plural verb agreement). A
 * proper name has no article; a unique noun is always "the". count > 1
 * prints the count and the plural ("6 loaves of bread"); the plural is
 * the noun's own (irregulars come from content) or the regular English one
 * made from the name (the head word before " of " is the one pluralised).
 * "a"/"an" follow the sound of the next word (an orc, a unicorn, an hour);
 * a mass noun takes "some" instead ("some leather armour").
 * A noun tag right after <his:X> or <poss:X> (only spaces between) drops
 * its article: "<his:Victim> <obj>" gives "her loaf of bread".
 *
 * Perception: a noun without GRAM_PERCEIVED (the player always counts as
 * perceived) reads "something" (pronouns "it", possessive "its"). When
 * the template names at least one noun and none of them is perceived, the
 * message is not shown: gram_format returns 0 and writes "".
 *
 * Output goes to a caller buffer: bounded, always NUL-terminated, cut on a
 * UTF-8 character boundary when too long. No allocation, no globals. */
#ifndef WARREN_GRAMMAR_H
#define WARREN_GRAMMAR_H
#include <stddef.h>
#include <stdint.h>

typedef enum { GRAM_IT = 0, GRAM_HE, GRAM_SHE, GRAM_THEY } gram_gender_t;

enum {
    GRAM_PERCEIVED = 1u << 0,  /* the player can see/sense it */
    GRAM_PLAYER = 1u << 1,     /* the player: "you" */
    GRAM_PROPER = 1u << 2,     /* a proper name: no article ("Brandobis") */
    GRAM_UNIQUE = 1u << 3,     /* one of a kind: always "the" ("the Heartstone") */
    GRAM_INDEFINITE = 1u << 4, /* <Role> prints "a kobold" instead of "the kobold" */
    GRAM_MASS = 1u << 5        /* a mass noun: "some leather armour" where others take "a" */
};

typedef struct {
    const char *name;   /* singular name: "kobold", "loaf of bread"; borrowed */
    const char *plural; /* NULL: made from name; borrowed */
    int count;          /* <= 1: one; > 1: that many */
    uint8_t gender;     /* gram_gender_t */
    uint8_t flags;      /* GRAM_* */
} gram_noun_t;

typedef struct {
    const char *role; /* "actor", "victim", "obj"...; borrowed */
    gram_noun_t noun;
} gram_arg_t;

/* Formats tmpl with args into out (cap bytes, cap >= 1).
 * Returns the length written (> 0), 0 when the message is not shown (or
 * empty), or -1 on a bad template (unknown role or tag, unclosed '<') —
 * then out holds "". Truncation is not an error: the return is then the
 * truncated length. */
int gram_format(char *out, size_t cap, const char *tmpl, const gram_arg_t *args, int nargs);

/* gram_format for a phrase that goes inside a sentence ("Cast at the
 * giant rat?", an item's name in a list): its start is not capitalised;
 * a capital tag, and text after ". ", still are. */
int gram_phrase(char *out, size_t cap, const char *tmpl, const gram_arg_t *args, int nargs);

/* English plural of name into out: the usual rules (s, es, ies) plus a
 * small built-in table of common irregulars (loaf, wolf, knife, man,
 * tooth...); the head word before " of " is the one pluralised. Returns
 * the length written. */
int gram_plural(char *out, size_t cap, const char *name);

/* The nouns as one phrase in the indefinite, joined as English joins a
 * list: "a giant newt, 2 jackals and a kobold" (perception as in
 * gram_format: one not perceived is "something"). It fits in cap bytes:
 * when they do not all fit, as many as do come first and the phrase ends
 * "and others" (more: there are others besides these n). Returns the
 * length written, 0 when not even "others" fits (out ""), -1 on no out. */
int gram_list(char *out, size_t cap, const gram_noun_t *nouns, int n, int more);

/* "a" or "an" for the word starting at word. */
const char *gram_article(const char *word);

#endif
