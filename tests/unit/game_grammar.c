/* Unit tests: game/grammar — a table of templates, nouns and the expected text. */
#include <check.h>
#include <string.h>

#include "grammar.h"

#define SEEN GRAM_PERCEIVED

/* nouns used by the table */
static const gram_noun_t you = {"Brandobis", NULL, 1, GRAM_SHE, GRAM_PLAYER | SEEN};
static const gram_noun_t kobold = {"kobold", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t kobold_unseen = {"kobold", NULL, 1, GRAM_IT, 0};
static const gram_noun_t orc = {"orc", NULL, 1, GRAM_HE, SEEN};
static const gram_noun_t brandobis = {"Brandobis", NULL, 1, GRAM_SHE, GRAM_PROPER | SEEN};
static const gram_noun_t grip = {"Grip the Jackal", NULL, 1, GRAM_HE, GRAM_PROPER | SEEN};
static const gram_noun_t bread6 = {"loaf of bread", NULL, 6, GRAM_IT, SEEN};
static const gram_noun_t bread1 = {"loaf of bread", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t arrows = {"arrow", NULL, 12, GRAM_IT, SEEN};
static const gram_noun_t rats = {"giant rat", NULL, 3, GRAM_IT, SEEN};
static const gram_noun_t wolves = {"wolf", NULL, 2, GRAM_IT, SEEN};
static const gram_noun_t mice = {"field mouse", "field mice", 4, GRAM_IT, SEEN};
static const gram_noun_t heartstone = {"Heartstone", NULL, 1, GRAM_IT, GRAM_UNIQUE | SEEN};
static const gram_noun_t amulet = {"amulet", NULL, 1, GRAM_IT, SEEN | GRAM_INDEFINITE};
static const gram_noun_t unicorn = {"unicorn", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t hour = {"hourglass", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t priestess = {"priestess", NULL, 1, GRAM_SHE, SEEN};
static const gram_noun_t priestesses = {"priestess", NULL, 2, GRAM_SHE, SEEN};
static const gram_noun_t stranger = {"stranger", NULL, 1, GRAM_THEY, SEEN};
static const gram_noun_t fly = {"fly", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t flies = {"fly", NULL, 5, GRAM_IT, SEEN};
static const gram_noun_t box = {"box", NULL, 2, GRAM_IT, SEEN};
static const gram_noun_t torch = {"torch", NULL, 3, GRAM_IT, SEEN};
static const gram_noun_t potion = {"fizzing violet potion", NULL, 1, GRAM_IT, SEEN};
static const gram_noun_t elves = {"dark elf", NULL, 2, GRAM_HE, SEEN};

typedef struct {
    const char *tmpl;
    const gram_noun_t *actor, *victim, *obj;
    const char *want;
} case_t;

static const case_t cases[] = {
    /* you and others, verb agreement */
    {"<Actor> hit<s:Actor> <victim>.", &you, &kobold, NULL, "You hit the kobold."},
    {"<Actor> hit<s:Actor> <victim>.", &kobold, &you, NULL, "The kobold hits you."},
    {"<Actor> miss<es:Actor> <victim>.", &orc, &you, NULL, "The orc misses you."},
    {"<Actor> miss<es:Actor> <victim>.", &you, &orc, NULL, "You miss the orc."},
    {"<Actor> <is:Actor> hungry.", &you, NULL, NULL, "You are hungry."},
    {"<Actor> <is:Actor> hungry.", &orc, NULL, NULL, "The orc is hungry."},
    {"<Actor> <has:Actor> no arrows.", &you, NULL, NULL, "You have no arrows."},
    {"<Actor> <was:Actor> hit.", &rats, NULL, NULL, "3 giant rats were hit."},
    {"<Actor> <does:Actor> not move.", &kobold, NULL, NULL, "The kobold does not move."},
    {"<Actor> <v:Actor:flies/fly> at <victim>.", &fly, &you, NULL, "The fly flies at you."},
    {"<Actor> <v:Actor:flies/fly> at <victim>.", &flies, &you, NULL, "5 flies fly at you."},
    /* proper names and possessives */
    {"<Victim> drops <his:Victim> <obj>.", NULL, &brandobis, &bread6,
     "Brandobis drops her 6 loaves of bread."},
    {"<Victim> drops <his:Victim> <obj>.", NULL, &you, &bread6,
     "You drops your 6 loaves of bread."},
    {"<Victim> drop<s:Victim> <his:Victim> <obj>.", NULL, &you, &bread1,
     "You drop your loaf of bread."},
    {"<Victim> drop<s:Victim> <his:Victim> <obj>.", NULL, &orc, &bread1,
     "The orc drops his loaf of bread."},
    {"<Actor> kill<s:Actor> <victim>!", &grip, &kobold, NULL, "Grip the Jackal kills the kobold!"},
    {"<Poss:Actor> arrow hits <victim>.", &orc, &you, NULL, "The orc's arrow hits you."},
    {"<Poss:Actor> arrow hits <victim>.", &you, &orc, NULL, "Your arrow hits the orc."},
    {"<Poss:Actor> blood boils.", &brandobis, NULL, NULL, "Brandobis's blood boils."},
    {"<Actor> wield<s:Actor> <poss:Victim> <obj>.", &you, &orc, &amulet,
     "You wield the orc's amulet."},
    {"<Actor> eat<s:Actor> <his:Actor>  <the:obj>.", &orc, NULL, &bread1,
     "The orc eats his  loaf of bread."},
    {"<Actor> take<s:Actor> <his:Actor>, <obj>.", &orc, NULL, &bread1,
     "The orc takes his, the loaf of bread."},
    {"<Poss:Actor> eyes glow.", &rats, NULL, NULL, "3 giant rats' eyes glow."},
    /* pronouns */
    {"<Actor> hurt<s:Actor> <himself:Actor>.", &you, NULL, NULL, "You hurt yourself."},
    {"<Actor> hurt<s:Actor> <himself:Actor>.", &priestess, NULL, NULL,
     "The priestess hurts herself."},
    {"<Actor> hurt<s:Actor> <himself:Actor>.", &wolves, NULL, NULL, "2 wolves hurt themselves."},
    {"<Actor> look<s:Actor> at <victim>. <He:Victim> snarls.", &you, &orc, NULL,
     "You look at the orc. He snarls."},
    {"<Actor> call<s:Actor> <him:Victim>.", &kobold, &stranger, NULL, "The kobold calls them."},
    {"<Actor> wave<s:Actor>.", &stranger, NULL, NULL, "The stranger wave."},
    {"<Actor> <is:Actor> tired. <he:Actor> rest<s:Actor>.", &priestesses, NULL, NULL,
     "2 priestesses are tired. They rest."},
    /* articles and counts */
    {"You see <a:obj>.", NULL, NULL, &unicorn, "You see a unicorn."},
    {"You see <a:obj>.", NULL, NULL, &orc, "You see an orc."},
    {"You see <a:obj>.", NULL, NULL, &hour, "You see an hourglass."},
    {"You see <a:obj>.", NULL, NULL, &potion, "You see a fizzing violet potion."},
    {"You see <obj>.", NULL, NULL, &amulet, "You see an amulet."},
    {"You pick up <the:obj>.", NULL, NULL, &amulet, "You pick up the amulet."},
    {"You see <a:obj>.", NULL, NULL, &arrows, "You see 12 arrows."},
    {"You pick up <the:obj>.", NULL, NULL, &arrows, "You pick up the 12 arrows."},
    {"You see <obj>.", NULL, NULL, &mice, "You see 4 field mice."},
    {"You see <obj>.", NULL, NULL, &box, "You see 2 boxes."},
    {"You see <obj>.", NULL, NULL, &torch, "You see 3 torches."},
    {"<Obj> attack.", NULL, NULL, &elves, "2 dark elves attack."},
    {"You hold <a:obj> aloft!", NULL, NULL, &heartstone, "You hold the Heartstone aloft!"},
    {"A <name:obj> lies here.", NULL, NULL, &kobold, "A kobold lies here."},
    /* perception */
    {"<Actor> hit<s:Actor> <victim>.", &kobold_unseen, &you, NULL, "Something hits you."},
    {"<Actor> hit<s:Actor> <victim>.", &you, &kobold_unseen, NULL, "You hit something."},
    {"<Actor> hit<s:Actor> <victim>.", &kobold_unseen, &kobold_unseen, NULL, ""},
    {"<Actor> pick<s:Actor> up <his:Actor> <obj>.", &kobold_unseen, NULL, &bread1,
     "Something picks up its loaf of bread."},
    {"<Actor> dies.", &kobold_unseen, NULL, NULL, ""},
    {"You hear a distant roar.", NULL, NULL, NULL, "You hear a distant roar."},
    /* capitalisation and literal '<' */
    {"Oops! <actor> trip<s:actor>.", &kobold, NULL, NULL, "Oops! The kobold trips."},
    {"<<<actor>>", &kobold, NULL, NULL, "<the kobold>"},
    {"\"<Actor>\" says <he:Actor>.", &grip, NULL, NULL, "\"Grip the Jackal\" says he."},
};

static int run_case(const case_t *c, char *out, size_t cap)
{
    gram_arg_t args[3];
    int n = 0;
    if (c->actor)
        args[n++] = (gram_arg_t){"actor", *c->actor};
    if (c->victim)
        args[n++] = (gram_arg_t){"victim", *c->victim};
    if (c->obj)
        args[n++] = (gram_arg_t){"obj", *c->obj};
    return gram_format(out, cap, c->tmpl, args, n);
}

START_TEST(table_of_cases)
{
    const case_t *c = &cases[_i];
    char out[256];
    int n = run_case(c, out, sizeof out);
    ck_assert_msg(strcmp(out, c->want) == 0, "case %d: \"%s\" gave \"%s\" want \"%s\"", _i, c->tmpl,
                  out, c->want);
    ck_assert_int_eq(n, (int)strlen(c->want));
}
END_TEST

START_TEST(table_is_big_enough)
{
    ck_assert_int_ge((int)(sizeof cases / sizeof cases[0]), 40);
}
END_TEST

START_TEST(bad_templates)
{
    char out[64];
    gram_arg_t a = {"actor", kobold};
    const char *bad[] = {"<victim> runs.", "<Actor",        "<>",        "<zap:Actor>",
                         "<v:Actor:runs>", "<his:Actor:x>", "<s:nobody>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(out, "junk");
        ck_assert_int_eq(gram_format(out, sizeof out, bad[i], &a, 1), -1);
        ck_assert_str_eq(out, "");
    }
    ck_assert_int_eq(gram_format(out, sizeof out, NULL, &a, 1), -1);
    ck_assert_int_eq(gram_format(out, 0, "x", &a, 1), -1);
}
END_TEST

START_TEST(truncation_is_bounded_and_utf8_safe)
{
    char out[8];
    gram_arg_t a = {"actor", kobold};
    memset(out, 'x', sizeof out);
    int n = gram_format(out, sizeof out, "<Actor> hits.", &a, 1);
    ck_assert_int_eq(n, 7);
    ck_assert_str_eq(out, "The kob");
    /* "é" is two bytes: a cut in its middle drops it whole */
    char small[7];
    n = gram_format(small, sizeof small, "caf\xc3\xa9s \xc3\xa9t\xc3\xa9", &a, 1);
    ck_assert_str_eq(small, "caf\xc3\xa9s");
    ck_assert_int_eq(n, 6);
    n = gram_format(small, 5, "caf\xc3\xa9", &a, 1);
    ck_assert_str_eq(small, "caf");
    n = gram_format(small, 4, "\xe2\x9c\x93\xe2\x9c\x93", &a, 1);
    ck_assert_str_eq(small, "\xe2\x9c\x93");
    ck_assert_int_eq(gram_format(small, 1, "<Actor>", &a, 1), 0);
    ck_assert_str_eq(small, "");
}
END_TEST

START_TEST(plurals_and_articles)
{
    char out[64];
    const char *pairs[][2] = {
        {"kobold", "kobolds"},
        {"loaf of bread", "loaves of bread"},
        {"pair of boots", "pairs of boots"},
        {"potion of healing", "potions of healing"},
        {"ruby", "rubies"},
        {"key", "keys"},
        {"kobold shaman", "kobold shamans"},
        {"wolf", "wolves"},
        {"glass", "glasses"},
        {"dwarf", "dwarves"},
        {"brush", "brushes"},
        {"sheep", "sheep"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        gram_plural(out, sizeof out, pairs[i][0]);
        ck_assert_str_eq(out, pairs[i][1]);
    }
    ck_assert_str_eq(gram_article("orc"), "an");
    ck_assert_str_eq(gram_article("kobold"), "a");
    ck_assert_str_eq(gram_article("unicorn"), "a");
    ck_assert_str_eq(gram_article("umbrella"), "an");
    ck_assert_str_eq(gram_article("honest man"), "an");
    ck_assert_str_eq(gram_article("European"), "a");
    ck_assert_str_eq(gram_article("Elf"), "an");
}
END_TEST

/* Random templates built from tag pieces: never overflow, always terminated,
 * and the return value is the length of what was written. */
START_TEST(random_templates_stay_bounded)
{
    static const char *const pieces[] = {
        "<Actor>",
        "<victim>",
        "<obj>",
        "<his:Actor>",
        "<s:obj>",
        "<v:victim:is/are>",
        "<a:obj>",
        "<poss:Victim>",
        "<<",
        ">",
        "<",
        ":",
        " ",
        ". ",
        "hit",
        "\xc3\xa9",
        "\xe2\x9c\x93",
        "<the:",
        "<nobody>",
        "<himself:obj>",
        "<Is:Actor>",
        "!",
        "<>",
        "<v:actor:x>",
    };
    gram_arg_t args[3] = {{"actor", kobold}, {"victim", you}, {"obj", bread6}};
    uint32_t state = 12345;
    for (int k = 0; k < 6000; k++) {
        char tmpl[256] = "", out[64];
        int parts = 1 + (int)(k % 9);
        for (int i = 0; i < parts; i++) {
            state = state * 1103515245u + 12345u;
            strcat(tmpl, pieces[(state >> 16) % (sizeof pieces / sizeof pieces[0])]);
        }
        size_t cap = 1 + (state >> 8) % sizeof out;
        memset(out, 'Z', sizeof out);
        int n = gram_format(out, cap, tmpl, args, 3);
        ck_assert_int_ge(n, -1);
        ck_assert_int_lt(n, (int)cap);
        ck_assert_int_eq((int)strlen(out), n < 0 ? 0 : n);
        for (size_t i = cap; i < sizeof out; i++)
            ck_assert_int_eq(out[i], 'Z');
        /* a cut never leaves half a UTF-8 character at the end */
        if (n > 0) {
            int i = n - 1, cont = 0;
            while (i >= 0 && ((unsigned char)out[i] & 0xC0) == 0x80)
                i--, cont++;
            unsigned char lead = i >= 0 ? (unsigned char)out[i] : 0;
            int want = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
            ck_assert_int_eq(cont, want);
        }
    }
}
END_TEST

/* A phrase inside a sentence is not capitalised at its start: the aim
 * line's "Cast at the giant rat?", never "The giant rat"; a proper name
 * keeps its own capitals and takes no article ("Skarg the Kobold King",
 * never "the Skarg the Kobold King"). */
START_TEST(phrases_keep_the_case_of_what_they_name)
{
    static const gram_noun_t rat = {"giant rat", NULL, 1, GRAM_IT, SEEN};
    static const gram_noun_t skarg = {"Skarg the Kobold King", NULL, 1, GRAM_HE,
                                      GRAM_PROPER | GRAM_UNIQUE | SEEN};
    static const gram_noun_t gnash = {"Old Mother Gnash", NULL, 1, GRAM_SHE,
                                      GRAM_PROPER | GRAM_UNIQUE | SEEN};
    static const struct {
        const gram_noun_t *n;
        const char *tmpl, *want;
        int phrase;
    } CASES[] = {
        {&rat, "<the:actor>", "the giant rat", 1},
        {&rat, "<a:actor>", "a giant rat", 1},
        {&rat, "<the:actor>", "The giant rat", 0},
        {&skarg, "<the:actor>", "Skarg the Kobold King", 1},
        {&skarg, "The bolt strikes <actor>.", "The bolt strikes Skarg the Kobold King.", 0},
        {&gnash, "<Actor> <is:Actor> terrified!", "Old Mother Gnash is terrified!", 0},
        {&gnash, "<a:actor>", "Old Mother Gnash", 1},
        {&heartstone, "<a:actor>", "the Heartstone", 1},
        {&rat, "at <the:actor>. <the:actor> flees", "at the giant rat. The giant rat flees", 1},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        gram_arg_t a = {"actor", *CASES[i].n};
        char out[96];
        int n = CASES[i].phrase ? gram_phrase(out, sizeof out, CASES[i].tmpl, &a, 1)
                                : gram_format(out, sizeof out, CASES[i].tmpl, &a, 1);
        ck_assert_msg(!strcmp(out, CASES[i].want), "case %zu gave \"%s\"", i, out);
        ck_assert_int_eq(n, (int)strlen(CASES[i].want));
    }
}
END_TEST

/* A list joins its nouns as English does and, when they do not fit,
 * keeps as many as do and ends "and others"; never past its buffer. */
START_TEST(lists_join_and_stay_bounded)
{
    static const gram_noun_t NOUNS[] = {
        {"giant newt", NULL, 1, GRAM_IT, SEEN},
        {"jackal", NULL, 2, GRAM_IT, SEEN},
        {"orc", NULL, 1, GRAM_IT, SEEN},
        {"Old Mother Gnash", NULL, 1, GRAM_SHE, GRAM_PROPER | GRAM_UNIQUE | SEEN}};
    static const struct {
        int n, more;
        size_t cap;
        const char *want;
    } CASES[] = {
        {1, 0, 64, "a giant newt"},
        {2, 0, 64, "a giant newt and 2 jackals"},
        {4, 0, 64, "a giant newt, 2 jackals, an orc and Old Mother Gnash"},
        {2, 1, 64, "a giant newt, 2 jackals and others"},
        {4, 0, 40, "a giant newt, 2 jackals and others"},
        {4, 0, 20, "others"},
        {4, 0, 4, ""},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char out[64];
        int n = gram_list(out, CASES[i].cap, NOUNS, CASES[i].n, CASES[i].more);
        ck_assert_msg(!strcmp(out, CASES[i].want), "case %zu gave \"%s\"", i, out);
        ck_assert_int_eq(n, (int)strlen(CASES[i].want));
        ck_assert_uint_lt(strlen(out), CASES[i].cap);
    }
}
END_TEST

Suite *suite_game_grammar(void)
{
    Suite *s = suite_create("game_grammar");
    TCase *tc = tcase_create("grammar");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, table_of_cases, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, table_is_big_enough);
    tcase_add_test(tc, bad_templates);
    tcase_add_test(tc, truncation_is_bounded_and_utf8_safe);
    tcase_add_test(tc, plurals_and_articles);
    tcase_add_test(tc, random_templates_stay_bounded);
    tcase_add_test(tc, phrases_keep_the_case_of_what_they_name);
    tcase_add_test(tc, lists_join_and_stay_bounded);
    suite_add_tcase(s, tc);
    return s;
}
