/* ident — flavours dealt from the seed, and what the player knows. */
#include "ident.h"
#include <stdio.h>
#include "grammar.h"
#include "item.h"
#include "msg.h"
#include "world.h"

static const char *const POTION_LOOKS[] = {
    "fizzing violet", "murky brown",   "bubbling red", "smoky black",    "clear",
    "milky white",    "glowing green", "oily yellow",  "sparkling blue", "thick grey",
    "cloudy pink",    "golden",        "silvery",      "icy cyan",       "fuming orange",
    "viscous purple", "shimmering",    "coppery",      "inky",           "amber",
    "speckled",       "effervescent",  "foaming",      "swirling",       "dark green",
    "pearly",         "tarry"};
static const char *const WAND_LOOKS[] = {"oak",    "ebony", "iron",  "copper",   "bone",   "glass",
                                         "silver", "brass", "ivory", "crystal",  "willow", "yew",
                                         "maple",  "pine",  "steel", "obsidian", "bamboo", "runed"};
static const char *const RING_LOOKS[] = {"ruby",   "jade",     "opal",      "onyx",     "garnet",
                                         "topaz",  "sapphire", "moonstone", "agate",    "emerald",
                                         "pearl",  "coral",    "diamond",   "amethyst", "tiger-eye",
                                         "quartz", "granite",  "bloodstone"};
static const char *const AMULET_LOOKS[] = {"triangular", "oval",      "square",   "star-shaped",
                                           "spherical",  "hexagonal", "crescent", "twisted",
                                           "wooden",     "jewelled",  "spiked",   "knotted"};
static const char *const SYLLABLES[] = {"zel", "go",  "mer", "ab",  "ra",  "ka", "dab", "ra",
                                        "xu",  "fo",  "nim", "tor", "ve",  "la", "ix",  "pru",
                                        "dos", "am",  "bel", "quo", "sni", "ha", "rok", "ul",
                                        "ey",  "tha", "min", "gor", "vi",  "sek"};
#define NELEM(a)     (sizeof(a) / sizeof((a)[0]))
#define SCROLL_LOOKS 64

typedef struct {
    uint8_t cls;
    const char *const *looks;
    unsigned n;
} flavour_set_t;

static const flavour_set_t SETS[] = {
    {IC_POTION, POTION_LOOKS, NELEM(POTION_LOOKS)}, {IC_SCROLL, NULL, SCROLL_LOOKS},
    {IC_WAND, WAND_LOOKS, NELEM(WAND_LOOKS)},       {IC_RING, RING_LOOKS, NELEM(RING_LOOKS)},
    {IC_AMULET, AMULET_LOOKS, NELEM(AMULET_LOOKS)},
};

static const flavour_set_t *set_of(const item_kind_t *k)
{
    if (k->flags & (IKF_NOFLAVOUR | IKF_UNIQUE))
        return NULL;
    for (size_t i = 0; i < NELEM(SETS); i++)
        if (SETS[i].cls == k->cls)
            return &SETS[i];
    return NULL;
}

/* Each class's kinds take distinct looks: a shuffled deck per class, dealt
 * in kind order from a stream of the seed (never the play stream). */
void ident_deal(game_t *g)
{
    rng_t r;
    rng_seed(&r, rng_hash2(g->seed, 0x666c6176u), 5);
    for (size_t s = 0; s < NELEM(SETS); s++) {
        uint8_t deck[SCROLL_LOOKS];
        unsigned n = SETS[s].n;
        for (unsigned i = 0; i < n; i++)
            deck[i] = (uint8_t)i;
        for (unsigned i = n - 1; i > 0; i--) {
            unsigned j = rng_below(&r, i + 1);
            uint8_t t = deck[i];
            deck[i] = deck[j], deck[j] = t;
        }
        unsigned next = 0;
        for (uint16_t k = 0; k < g->c->n_items; k++)
            if (set_of(&g->c->items[k]) == &SETS[s])
                g->items.flavour[k] = deck[next++ % n];
    }
    for (uint16_t k = 0; k < g->c->n_items; k++)
        g->items.known[k] = !set_of(&g->c->items[k]);
}

bool ident_flavoured(const game_t *g, uint16_t kind)
{
    return kind < g->c->n_items && set_of(&g->c->items[kind]) != NULL;
}

bool ident_known(const game_t *g, uint16_t kind)
{
    return kind < g->c->n_items && g->items.known[kind];
}

bool ident_learn(game_t *g, uint16_t kind)
{
    if (kind >= g->c->n_items || g->items.known[kind])
        return false;
    g->items.known[kind] = 1;
    return true;
}

/* "scroll labelled ZELGO MER": two words of syllables, from the seed and the look. */
static void scroll_label(const game_t *g, unsigned look, char *out, size_t n)
{
    rng_t r;
    rng_seed(&r, rng_hash2(g->seed, 0x7363726fu + look), 7);
    size_t len = 0;
    for (int w = 0; w < 2; w++) {
        int syl = 1 + (int)rng_below(&r, 2);
        if (w && len + 1 < n)
            out[len++] = ' ';
        for (int i = 0; i < syl; i++) {
            const char *s = SYLLABLES[rng_below(&r, NELEM(SYLLABLES))];
            for (; *s && len + 1 < n; s++)
                out[len++] = (char)(*s - 32);
        }
    }
    out[len] = 0;
}

void ident_flavour_name(const game_t *g, uint16_t kind, char *name, size_t n, char *plural,
                        size_t pn)
{
    const item_kind_t *k = &g->c->items[kind];
    const flavour_set_t *s = set_of(k);
    unsigned look = g->items.flavour[kind];
    if (!s) {
        snprintf(name, n, "%s", k->name);
        snprintf(plural, pn, "%s", k->plural);
        return;
    }
    if (k->cls == IC_SCROLL) {
        char label[40];
        scroll_label(g, look, label, sizeof label);
        snprintf(name, n, "scroll labelled %s", label);
        snprintf(plural, pn, "scrolls labelled %s", label);
        return;
    }
    static const char *const NOUN[IC_COUNT] = {
        [IC_POTION] = "potion", [IC_WAND] = "wand", [IC_RING] = "ring", [IC_AMULET] = "amulet"};
    snprintf(name, n, "%s %s", s->looks[look % s->n], NOUN[k->cls]);
    snprintf(plural, pn, "%s %ss", s->looks[look % s->n], NOUN[k->cls]);
}

void ident_seen_use(game_t *g, handle_t user, uint16_t kind)
{
    if (kind >= g->c->n_items || !(g->c->items[kind].flags & IKF_OBVIOUS) || ident_known(g, kind))
        return;
    char was[64], pl[64];
    ident_flavour_name(g, kind, was, sizeof was, pl, sizeof pl);
    ident_learn(g, kind);
    const char *now = g->c->items[kind].name;
    if (user == g->player)
        msg_add(g, "That was %s %s: %s %s.", gram_article(was), was, gram_article(now), now);
    else
        msg_add(g, "You recognise %s %s: it is %s %s.", gram_article(was), was, gram_article(now),
                now);
}
