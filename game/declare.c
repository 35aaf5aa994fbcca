/* declare — the content declarations (see declare.h).
 *
 * Each declaration function reads the table it is called with (index 1)
 * field by field (fld_*), checks each against what the engine can use, and
 * appends a kind to a growing table; a bad field raises a Lua error that
 * names the declaration, so the load stops with "file:line: what". Once
 * every module has run, load_check fixes the tables in place (nothing
 * moves after) and points content_t at them. */
#include "declare.h"
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "glyph.h"
#include "mapgen.h"
#include "rules.h"
#include "script.h"
#include "special.h"
#include "spell.h"
#include "trap.h"

/* ---- names ----------------------------------------------------------------- */

#define DECL_NAME_(n) #n,
static const char *const EVENT_NAMES[EV_TYPES] = {"NONE", EVENT_LIST(DECL_NAME_)};
static const char *const DAMAGE_NAMES[DT_COUNT] = {DAMAGE_LIST(DECL_NAME_)};
static const char *const ITEM_CLASS_NAMES[IC_COUNT] = {ITEM_CLASS_LIST(DECL_NAME_)};
static const char *const ITEM_SLOT_NAMES[SLOT_COUNT] = {ITEM_SLOT_LIST(DECL_NAME_)};
static const char *const ITEM_USE_NAMES[USE_COUNT] = {ITEM_USE_LIST(DECL_NAME_)};
static const char *const ITEM_AMMO_NAMES[AMMO_COUNT] = {ITEM_AMMO_LIST(DECL_NAME_)};
static const char *const ITEM_DAMAGE_NAMES[IDT_COUNT] = {ITEM_DAMAGE_LIST(DECL_NAME_)};
static const char *const EFFECT_FLAG_NAMES[EFK_BITS] = {EFFECT_FLAG_LIST(DECL_NAME_)};
#undef DECL_NAME_
#define DECL_NAME2_(n, fn) #n,
static const char *const HANDLER_NAMES[H_COUNT] = {"", RULES_HANDLER_LIST(DECL_NAME2_)};
static const char *const HOOK_NAMES[HK_COUNT] = {"", RULES_HOOK_LIST(DECL_NAME2_)};
#undef DECL_NAME2_
static const char *const STACK_NAMES[] = {"refresh", "add", "strongest"};

/* Index of name in a table (case-insensitive, so Lua writes lower case), or -1. */
static int name_find(const char *const *names, int n, const char *name)
{
    for (int i = 1; i < n; i++)
        if (names[i][0] && strcasecmp(names[i], name) == 0)
            return i;
    return names[0][0] && strcasecmp(names[0], name) == 0 ? 0 : -1;
}

static void lower_copy(char *out, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    out[i] = 0;
}

/* ---- the loaded content ------------------------------------------------------ */

#define DECLARED_MAGIC 0x4c554143u

/* A vault as declared: strings owned here, pointed at by content vaults. */
typedef struct {
    char name[40];
    char *rows, *legend;
    int min_depth, max_depth, weight;
} vault_decl_t;

typedef struct {
    content_t c; /* first: a content_t * is a declared_t * */
    uint32_t magic;
    terrain_kind_t *terrain;
    spell_kind_t *spells;
    creature_kind_t *creatures;
    item_kind_t *items;
    effect_kind_t *effects;
    region_kind_t *regions;
    race_kind_t *races;
    class_kind_t *classes;
    trap_kind_t *traps;
    shop_kind_t *shops;
    special_level_t *specials, *branches;
    uint16_t cap_shops, cap_specials, cap_branches;
    mapgen_region_type_t *rtypes; /* built by load_check, names point into regions */
    mapgen_region_type_t *rdecl;  /* as declared (names unset until load_check) */
    vault_decl_t *vdecl;
    mapgen_vault_t *vaults; /* built by load_check */
    uint16_t n_vdecl;
    ego_kind_t *egos;
    uint16_t cap[12];
    script_handlers_t handlers; /* the kinds' `on` handlers: c.scripts */
} declared_t;

/* Only content this loader made is a declared_t: it marks itself. */
static declared_t *declared_of(const content_t *c)
{
    const declared_t *s = (const declared_t *)c;
    return c && c->scripts == &s->handlers && s->magic == DECLARED_MAGIC ? (declared_t *)s : NULL;
}

void declare_free(content_t *c)
{
    declared_t *s = declared_of(c);
    if (!s)
        return;
    script_handlers_free(&s->handlers);
    free(s->terrain);
    free(s->spells);
    free(s->creatures);
    free(s->items);
    free(s->effects);
    free(s->regions);
    free(s->races);
    free(s->classes);
    free(s->traps);
    free(s->egos);
    free(s->shops);
    free(s->specials);
    free(s->branches);
    free(s->rtypes);
    free(s->rdecl);
    for (int i = 0; i < s->n_vdecl; i++)
        free(s->vdecl[i].rows), free(s->vdecl[i].legend);
    free(s->vdecl);
    free(s->vaults);
    free(s);
}

/* Grows a kind array (and its `on` table) by one; returns the new index or -1. */
static int kind_grow(void **arr, size_t elem, uint16_t *n, uint16_t *cap, int32_t **on)
{
    if (*n == UINT16_MAX)
        return -1;
    if (*n == *cap) {
        uint16_t nc = *cap ? (uint16_t)(*cap < 32768 ? *cap * 2 : UINT16_MAX) : 8;
        void *p = realloc(*arr, nc * elem);
        if (!p)
            return -1;
        *arr = p;
        if (on) {
            int32_t *q = realloc(*on, (size_t)nc * EV_TYPES * sizeof **on);
            if (!q)
                return -1;
            *on = q;
        }
        *cap = nc;
    }
    memset((char *)*arr + *n * elem, 0, elem);
    if (on)
        memset(*on + (size_t)*n * EV_TYPES, 0, EV_TYPES * sizeof **on);
    return (*n)++;
}

/* ---- declaration fields (the declaration table is at index 1) ---------------- */

typedef struct {
    declared_t *s;
    char what[64]; /* "creature 'kobold'" for messages */
} decl_t;

static decl_t decl_begin(lua_State *L, const char *cls)
{
    decl_t d = {lua_touserdata(L, lua_upvalueindex(1)), {0}};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "name");
    const char *nm = lua_tostring(L, -1);
    snprintf(d.what, sizeof d.what, "%s '%s'", cls, nm ? nm : "?");
    lua_pop(L, 1);
    return d;
}

static int fld_int(lua_State *L, const decl_t *d, const char *f, int def, int lo, int hi)
{
    int t = lua_getfield(L, 1, f);
    int isint = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return def;
    if (!isint || v < lo || v > hi)
        return luaL_error(L, "%s: field '%s' must be an integer from %d to %d", d->what, f, lo, hi);
    return (int)v;
}

/* A string field copied into out; returns 0 when absent (out untouched). */
static int fld_str(lua_State *L, const decl_t *d, const char *f, char *out, size_t n, int required)
{
    int t = lua_getfield(L, 1, f);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        if (required)
            luaL_error(L, "%s: field '%s' is required", d->what, f);
        return 0;
    }
    size_t len = 0;
    const char *v = t == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!v || len == 0 || len >= n)
        luaL_error(L, "%s: field '%s' must be a string of 1 to %d bytes", d->what, f, (int)n - 1);
    memcpy(out, v, len + 1);
    lua_pop(L, 1);
    return 1;
}

static uint32_t utf8_first(const unsigned char *p, size_t len)
{
    if (len == 1 && p[0] < 0x80)
        return p[0];
    int n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
    if (n == 0 || (size_t)n != len)
        return 0;
    uint32_t c = p[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    return c;
}

static uint32_t fld_glyph(lua_State *L, const decl_t *d, uint32_t def)
{
    int t = lua_getfield(L, 1, "glyph");
    size_t len = 0;
    const char *v = t == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    uint32_t g = v ? utf8_first((const unsigned char *)v, len) : 0;
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return def;
    if (!g)
        luaL_error(L, "%s: field 'glyph' must be one character", d->what);
    if (g >= 0x80 && !glyph_fallback(g)) {
        char u[16]; /* lua_pushfstring has no %X */
        snprintf(u, sizeof u, "U+%04X", (unsigned)g);
        luaL_error(L, "%s: glyph %s has no ASCII fallback (add it to protocol/glyph.c)", d->what,
                   u);
    }
    if (g < 0x20 || g == 0x7F)
        luaL_error(L, "%s: field 'glyph' must be printable", d->what);
    return g;
}

static dice_t fld_dice(lua_State *L, const decl_t *d, const char *f, dice_t def)
{
    int t = lua_getfield(L, 1, f);
    const char *v = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    dice_t out = def;
    if (t != LUA_TNIL && (!v || dice_parse(v, &out) < 0))
        luaL_error(L, "%s: field '%s' must be dice like \"2d4+1\"", d->what, f);
    lua_pop(L, 1);
    return out;
}

static int fld_bool(lua_State *L, const decl_t *d, const char *f, int def)
{
    int t = lua_getfield(L, 1, f);
    int v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return def;
    if (t != LUA_TBOOLEAN)
        luaL_error(L, "%s: field '%s' must be true or false", d->what, f);
    return v;
}

/* A name out of a fixed table ("poison_bite", "add"), or an error. */
static int fld_enum(lua_State *L, const decl_t *d, const char *f, const char *const *names, int n,
                    int def)
{
    int t = lua_getfield(L, 1, f);
    const char *v = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i = v ? name_find(names, n, v) : -1;
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return def;
    if (i < 0)
        luaL_error(L, "%s: field '%s': unknown name '%s'", d->what, f, v ? v : "(not a string)");
    return i;
}

/* ---- kinds, handlers, `on` ------------------------------------------------------ */

static int find_creature(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_creatures; i++)
        if (strcmp(s->creatures[i].name, name) == 0)
            return i;
    return -1;
}

static int find_effect(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_effects; i++)
        if (strcmp(s->effects[i].name, name) == 0)
            return i;
    return -1;
}

/* A field naming an earlier kind; -1 when absent, an error when unknown. */
static int fld_kind(lua_State *L, const decl_t *d, const char *f,
                    int (*find)(const declared_t *, const char *))
{
    char name[40] = {0};
    if (!fld_str(L, d, f, name, sizeof name, 0))
        return -1;
    int k = find(d->s, name);
    if (k < 0)
        luaL_error(L, "%s: field '%s': unknown kind '%s'", d->what, f, name);
    return k;
}

/* handlers = {"poison_bite", ...}: code handler ids by name. */
static void fld_handlers(lua_State *L, const decl_t *d, uint16_t out[KIND_HANDLERS])
{
    int t = lua_getfield(L, 1, "handlers");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        luaL_error(L, "%s: field 'handlers' must be a list of names", d->what);
    lua_Integer n = luaL_len(L, -1);
    if (n > KIND_HANDLERS)
        luaL_error(L, "%s: at most %d handlers", d->what, KIND_HANDLERS);
    memset(out, 0, KIND_HANDLERS * sizeof *out);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int id = v ? name_find(HANDLER_NAMES, H_COUNT, v) : -1;
        if (id <= 0)
            luaL_error(L, "%s: unknown handler '%s'", d->what, v ? v : "(not a string)");
        out[i - 1] = (uint16_t)id;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* Keeps the function on top (popped) as a handler; returns its ref (>= 1). */
static int fn_keep(lua_State *L, const decl_t *d, const char *ev)
{
    char local[64];
    int ref = script_handlers_add(L, &d->s->handlers, local, sizeof local);
    if (ref == 0)
        luaL_error(L, "%s: handler '%s' uses the module's local '%s' (handlers keep no state)",
                   d->what, ev, local);
    if (ref < 0)
        luaL_error(L, "out of memory");
    return ref;
}

/* on = { damage = function(e) ... end }: into on[EV_TYPES]. */
static void fld_on(lua_State *L, const decl_t *d, int32_t *on)
{
    int t = lua_getfield(L, 1, "on");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        luaL_error(L, "%s: field 'on' must be a table of functions", d->what);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        const char *ev = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        int type = ev ? name_find(EVENT_NAMES, EV_TYPES, ev) : -1;
        if (type <= 0)
            luaL_error(L, "%s: 'on': unknown event '%s'", d->what, ev ? ev : "(not a string)");
        if (!lua_isfunction(L, -1) || lua_iscfunction(L, -1))
            luaL_error(L, "%s: 'on.%s' must be a Lua function", d->what, ev);
        on[type] = fn_keep(L, d, ev);
    }
    lua_pop(L, 1);
}

/* ---- declaration functions ------------------------------------------------------- */

static int decl_terrain(lua_State *L)
{
    decl_t d = decl_begin(L, "terrain");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->terrain, sizeof *s->terrain, &s->c.n_terrain, &s->cap[0], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    terrain_kind_t *t = &s->terrain[k];
    fld_str(L, &d, "name", t->name, sizeof t->name, 1);
    t->glyph = fld_glyph(L, &d, ' ');
    t->fg = (uint16_t)fld_int(L, &d, "fg", 7, 0, 255);
    static const char *const joins[] = {"none", "line", "edge"};
    static const uint8_t join_flags[] = {0, TF_LINE, TF_EDGE};
    int join = fld_enum(L, &d, "join", joins, 3, 0);
    t->flags = (uint8_t)((fld_bool(L, &d, "passable", 0) ? TF_PASSABLE : 0) |
                         (fld_bool(L, &d, "opaque", 0) ? TF_OPAQUE : 0) | join_flags[join]);
#define DECL_HAZARD_NAME_(id, fn) #id,
    static const char *const hazards[HAZARDS] = {HAZARD_LIST(DECL_HAZARD_NAME_)};
#undef DECL_HAZARD_NAME_
    t->hazard = (uint8_t)fld_enum(L, &d, "hazard", hazards, HAZARDS, HAZARD_NONE);
    if (t->hazard && (t->flags & TF_PASSABLE))
        return luaL_error(L, "%s: a hazard is not passable (monsters keep out)", d.what);
    t->dice = fld_dice(L, &d, "dice", (dice_t){0, 0, 0});
    t->move = (int16_t)fld_int(L, &d, "move", 100, 50, 1000);
    return 0;
}

/* flags = {"unique", ...}: a bit per name of names (n of them). */
static uint32_t fld_bits(lua_State *L, const decl_t *d, const char *f, const char *const *names,
                         int n, uint32_t def)
{
    int t = lua_getfield(L, 1, f);
    if (t == LUA_TNIL)
        return lua_pop(L, 1), def;
    if (t != LUA_TTABLE)
        luaL_error(L, "%s: field '%s' must be a list of names", d->what, f);
    uint32_t mask = 0;
    for (lua_Integer i = 1; i <= luaL_len(L, -1); i++) {
        lua_geti(L, -1, i);
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int k = -1;
        for (int j = 0; j < n && k < 0; j++)
            if (names[j][0] && strcasecmp(names[j], v) == 0)
                k = j;
        if (k < 0)
            luaL_error(L, "%s: field '%s': unknown name '%s'", d->what, f, v);
        mask |= 1u << k;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return mask;
}

static int find_spell(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_spells; i++)
        if (strcasecmp(s->spells[i].name, name) == 0)
            return i;
    return -1;
}

/* spells = {"magic missile", ...}: a set of declared spells (bit = id). */
static uint32_t fld_spells(lua_State *L, const decl_t *d, const char *f, uint32_t def)
{
    const char *names[SPELLS_MAX];
    for (int i = 0; i < d->s->c.n_spells; i++)
        names[i] = d->s->spells[i].name;
    return fld_bits(L, d, f, names, d->s->c.n_spells, def);
}

#define DECL_SPELL_NAME_(id, fn, flags) #id,
static const char *const SPELL_EFFECT_NAMES[SPELL_EFFECTS] = {SPELL_EFFECT_LIST(DECL_SPELL_NAME_)};
#undef DECL_SPELL_NAME_
#define DECL_SPELL_FLAGS_(id, fn, flags) flags,
static const uint8_t SPELL_EFFECT_FLAGS[SPELL_EFFECTS] = {SPELL_EFFECT_LIST(DECL_SPELL_FLAGS_)};
#undef DECL_SPELL_FLAGS_

/* A field a spell has when its effect has the flag (SPF_*), and only then. */
static void spell_field_agrees(lua_State *L, const decl_t *d, const spell_kind_t *sp, unsigned flag,
                               bool present, const char *field, const char *what)
{
    bool wanted = (SPELL_EFFECT_FLAGS[sp->effect] & flag) != 0;
    char effect[16];
    lower_copy(effect, sizeof effect, SPELL_EFFECT_NAMES[sp->effect]);
    if (wanted != present)
        luaL_error(L, "%s: effect '%s' %s %s (field '%s')", d->what, effect,
                   wanted ? "needs its" : "has no", what, field);
}

/* The fields after name and mana: the effect and what it needs. */
static void spell_fields(lua_State *L, const decl_t *d, spell_kind_t *sp)
{
    sp->effect = (uint8_t)fld_enum(L, d, "effect", SPELL_EFFECT_NAMES, SPELL_EFFECTS, SPELL_BOLT);
    sp->dtype = (uint8_t)fld_enum(L, d, "dtype", DAMAGE_NAMES, DT_COUNT, DT_NONE);
    sp->status = (int16_t)fld_kind(L, d, "status", find_effect);
    sp->radius = (uint8_t)fld_int(L, d, "radius", 0, 0, 20);
    sp->use = (uint8_t)fld_enum(L, d, "use", ITEM_USE_NAMES, USE_COUNT, USE_NONE);
    spell_field_agrees(L, d, sp, SPF_DAMAGE, sp->dtype != DT_NONE, "dtype", "damage type");
    spell_field_agrees(L, d, sp, SPF_STATUS, sp->status >= 0, "status", "timed effect");
    spell_field_agrees(L, d, sp, SPF_RADIUS, sp->radius > 0, "radius", "radius");
    spell_field_agrees(L, d, sp, SPF_USE, sp->use != USE_NONE, "use", "item use");
    int t = lua_getfield(L, 1, "dice");
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        luaL_error(L, "%s: field 'dice' is required", d->what);
    sp->dice = fld_dice(L, d, "dice", sp->dice);
}

/* spell { name=, mana=, effect="bolt"|"heal"|... (spell.h), dtype=, status=,
 * radius=, use=: what the effect needs (SPF_*), dice= } */
static int decl_spell(lua_State *L)
{
    decl_t d = decl_begin(L, "spell");
    declared_t *s = d.s;
    char name[sizeof s->spells->name] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_spell(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    if (s->c.n_spells >= SPELLS_MAX)
        return luaL_error(L, "%s: at most %d spells (a spell set is %d bits)", d.what, SPELLS_MAX,
                          SPELLS_MAX);
    int k = kind_grow((void **)&s->spells, sizeof *s->spells, &s->c.n_spells, &s->cap[8], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    spell_kind_t *sp = &s->spells[k];
    memcpy(sp->name, name, sizeof name);
    sp->mana = (int16_t)fld_int(L, &d, "mana", -1, 0, 1000);
    if (sp->mana < 0)
        return luaL_error(L, "%s: field 'mana' is required", d.what);
    spell_fields(L, &d, sp);
    return 0;
}

static const char *const CREATURE_FLAGS[] = CREATURE_FLAG_NAMES;

/* breath = "cone"|"line", breath_dtype=, breath_dice=, breath_range=, recharge=,
 * buff = "haste", summon = "jackal", summon_max=, blink = true, steal = "gold"|"item" */
static void decl_creature_abilities(lua_State *L, const decl_t *d, ability_t *ab)
{
    static const char *const SHAPES[BREATH_SHAPES] = BREATH_SHAPE_NAMES;
    static const char *const STEALS[STEAL_KINDS] = STEAL_NAMES;
    ab->breath = (uint8_t)fld_enum(L, d, "breath", SHAPES, BREATH_SHAPES, ab->breath);
    ab->breath_dtype =
        (uint8_t)fld_enum(L, d, "breath_dtype", DAMAGE_NAMES, DT_COUNT, ab->breath_dtype);
    ab->breath_dice = fld_dice(L, d, "breath_dice", ab->breath_dice);
    ab->breath_range = (uint8_t)fld_int(L, d, "breath_range", ab->breath_range, 0, 20);
    ab->recharge = (uint8_t)fld_int(L, d, "recharge", ab->recharge, 0, 100);
    if (ab->breath && (ab->breath_dtype == DT_NONE || ab->breath_range == 0 || !ab->breath_dice.n))
        luaL_error(L, "%s: a breath needs breath_dtype, breath_dice and breath_range", d->what);
    int buff = fld_kind(L, d, "buff", find_effect);
    if (buff >= 0)
        ab->buff = (uint16_t)(buff + 1);
    int kin = fld_kind(L, d, "summon", find_creature);
    if (kin >= 0 && (d->s->creatures[kin].flags & (CF_UNIQUE | CF_WARDEN)))
        luaL_error(L, "%s: a unique is never called (field 'summon')", d->what);
    if (kin >= 0)
        ab->summon = (uint16_t)(kin + 1);
    ab->summon_max = (uint8_t)fld_int(L, d, "summon_max", ab->summon ? 4 : 0, 0, 20);
    ab->blink = (uint8_t)fld_bool(L, d, "blink", ab->blink);
    ab->steal = (uint8_t)fld_enum(L, d, "steal", STEALS, STEAL_KINDS, ab->steal);
}
static const char *const DRAIN_NAMES[AB_COUNT + 1] = {"none", "str", "dex", "con",
                                                      "int",  "wis", "cha"};
static const char *const SIZES[] = SIZE_NAMES;

/* The fields of #5: combat, resistances, size, flags, packs, look text. */
static void decl_creature_more(lua_State *L, const decl_t *d, creature_kind_t *c, int like)
{
    c->max_depth = (int16_t)fld_int(L, d, "max_depth", like ? c->max_depth : 100, 0, 100);
    c->dtype = (uint8_t)fld_enum(L, d, "dtype", DAMAGE_NAMES, DT_COUNT, like ? c->dtype : DT_HIT);
    c->armour = (uint8_t)fld_int(L, d, "armour", c->armour, 0, 100);
    c->size = (uint8_t)fld_enum(L, d, "size", SIZES, SIZE_COUNT, like ? c->size : SIZE_MEDIUM);
    c->level = (uint8_t)fld_int(L, d, "level", like ? c->level : 1, 0, 50);
    c->pack = (uint8_t)fld_int(L, d, "pack", c->pack, 0, 12);
    c->flags =
        (uint16_t)fld_bits(L, d, "flags", CREATURE_FLAGS,
                           (int)(sizeof CREATURE_FLAGS / sizeof CREATURE_FLAGS[0]), c->flags);
    c->perception = (int8_t)fld_int(L, d, "perception", c->perception, -20, 20);
    c->resist = (uint16_t)fld_bits(L, d, "resist", DAMAGE_NAMES, DT_COUNT, c->resist);
    c->immune = (uint16_t)fld_bits(L, d, "immune", DAMAGE_NAMES, DT_COUNT, c->immune);
    c->vuln = (uint16_t)fld_bits(L, d, "vuln", DAMAGE_NAMES, DT_COUNT, c->vuln);
    c->spells = fld_spells(L, d, "spells", c->spells);
    c->drain = (uint8_t)fld_enum(L, d, "drain", DRAIN_NAMES, AB_COUNT + 1, c->drain);
    c->missile = fld_dice(L, d, "missile", c->missile);
    c->range = (uint8_t)fld_int(L, d, "range", c->range, 0, 20);
    c->missile_dtype = (uint8_t)fld_enum(L, d, "missile_dtype", DAMAGE_NAMES, DT_COUNT,
                                         like ? c->missile_dtype : DT_HIT);
    if (!fld_str(L, d, "shoots", c->shoots, sizeof c->shoots, 0) && !like)
        snprintf(c->shoots, sizeof c->shoots, "shoot<s:Actor>");
    if (c->range && !c->missile.n)
        luaL_error(L, "%s: a ranged attack (field 'range') needs its dice (field 'missile')",
                   d->what);
    decl_creature_abilities(L, d, &c->ab);
    if (!fld_str(L, d, "hits", c->hits, sizeof c->hits, 0) && !like)
        snprintf(c->hits, sizeof c->hits, "hit<s:Actor>");
    fld_str(L, d, "desc", c->desc, sizeof c->desc, 0);
}

/* race { name=, str=, dex=, con=, int=, wis=, cha=, to_hit=, defence=, resist=, desc= } */
static int decl_race(lua_State *L)
{
    static const char *const AB[AB_COUNT] = {"str", "dex", "con", "int", "wis", "cha"};
    decl_t d = decl_begin(L, "race");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->races, sizeof *s->races, &s->c.n_races, &s->cap[5 + 1], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    race_kind_t *r = &s->races[k];
    fld_str(L, &d, "name", r->name, sizeof r->name, 1);
    for (int i = 0; i < AB_COUNT; i++)
        r->ab[i] = (int8_t)fld_int(L, &d, AB[i], 0, -6, 6);
    r->to_hit = (int8_t)fld_int(L, &d, "to_hit", 0, -5, 5);
    r->defence = (int8_t)fld_int(L, &d, "defence", 0, -5, 5);
    r->resist = (uint16_t)fld_bits(L, &d, "resist", DAMAGE_NAMES, DT_COUNT, 0);
    fld_str(L, &d, "desc", r->desc, sizeof r->desc, 0);
    return 0;
}

/* kit = {"long sword", ...}: item kind names, checked by the item rules. */
static void fld_kit(lua_State *L, const decl_t *d, class_kind_t *c)
{
    int t = lua_getfield(L, 1, "kit");
    if (t != LUA_TNIL && t != LUA_TTABLE)
        luaL_error(L, "%s: field 'kit' must be a list of item names", d->what);
    lua_Integer n = t == LUA_TTABLE ? luaL_len(L, -1) : 0;
    if (n > CLASS_KIT_MAX)
        luaL_error(L, "%s: at most %d kit items", d->what, CLASS_KIT_MAX);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        size_t len = 0;
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!v || len == 0 || len >= sizeof c->kit[0])
            luaL_error(L, "%s: kit item %d must be a name of 1 to %d bytes", d->what, (int)i,
                       (int)sizeof c->kit[0] - 1);
        memcpy(c->kit[i - 1], v, len + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* class { name=, hit_die=, bab=, saves={"fort"}, armour=, sneak=, mana=, spells=, learns=,
 *         weapon="1d8", weapon_name=, armour_name=, desc= } */
static int decl_class(lua_State *L)
{
    static const char *const SAVES[] = {"fort", "ref", "will"};
    decl_t d = decl_begin(L, "class");
    declared_t *s = d.s;
    int k =
        kind_grow((void **)&s->classes, sizeof *s->classes, &s->c.n_classes, &s->cap[5 + 2], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    class_kind_t *c = &s->classes[k];
    fld_str(L, &d, "name", c->name, sizeof c->name, 1);
    c->hit_die = (uint8_t)fld_int(L, &d, "hit_die", 8, 4, 12);
    c->bab = (uint8_t)fld_int(L, &d, "bab", 75, 25, 100);
    c->good_saves = (uint8_t)fld_bits(L, &d, "saves", SAVES, 3, 0);
    c->armour = (uint8_t)fld_int(L, &d, "armour", 0, 0, 20);
    c->sneak = (uint8_t)fld_bool(L, &d, "sneak", 0);
    c->stealth = (int8_t)fld_int(L, &d, "stealth", 0, -10, 10);
    c->mana = (uint8_t)fld_int(L, &d, "mana", 0, 0, 20);
    c->spells = fld_spells(L, &d, "spells", 0);
    c->learnable = fld_spells(L, &d, "learns", 0);
    c->weapon = fld_dice(L, &d, "weapon", (dice_t){1, 6, 0});
    if (!fld_str(L, &d, "weapon_name", c->weapon_name, sizeof c->weapon_name, 0))
        snprintf(c->weapon_name, sizeof c->weapon_name, "club");
    if (!fld_str(L, &d, "armour_name", c->armour_name, sizeof c->armour_name, 0))
        snprintf(c->armour_name, sizeof c->armour_name, "clothes");
    fld_str(L, &d, "desc", c->desc, sizeof c->desc, 0);
    fld_kit(L, &d, c);
    return 0;
}

static int decl_creature(lua_State *L)
{
    decl_t d = decl_begin(L, "creature");
    declared_t *s = d.s;
    int like = fld_kind(L, &d, "like", find_creature);
    char name[40] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_creature(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    int k = kind_grow((void **)&s->creatures, sizeof *s->creatures, &s->c.n_creatures, &s->cap[1],
                      &s->handlers.on[SCRIPT_KIND_CREATURE]);
    if (k < 0)
        return luaL_error(L, "out of memory");
    creature_kind_t *c = &s->creatures[k];
    if (like >= 0) { /* a variant starts as a copy of its base, `on` included */
        *c = s->creatures[like];
        memcpy(&s->handlers.on[0][k * EV_TYPES], &s->handlers.on[0][like * EV_TYPES],
               EV_TYPES * sizeof(int32_t));
    }
    memcpy(c->name, name, sizeof name);
    c->glyph = fld_glyph(L, &d, like >= 0 ? c->glyph : '?');
    c->fg = (uint16_t)fld_int(L, &d, "fg", like >= 0 ? c->fg : 7, 0, 255);
    c->gender = (uint8_t)fld_int(L, &d, "gender", c->gender, 0, 3);
    c->speed = (int16_t)fld_int(L, &d, "speed", like >= 0 ? c->speed : 100, 1, 1000);
    c->hp = fld_dice(L, &d, "hp", like >= 0 ? c->hp : (dice_t){1, 4, 0});
    c->attack = fld_dice(L, &d, "attack", like >= 0 ? c->attack : (dice_t){1, 2, 0});
    c->to_hit = (int16_t)fld_int(L, &d, "to_hit", c->to_hit, -100, 100);
    c->defence = (int16_t)fld_int(L, &d, "defence", c->defence, -100, 100);
    c->min_depth = (int16_t)fld_int(L, &d, "min_depth", c->min_depth, 0, 100);
    c->weight = (int16_t)fld_int(L, &d, "weight", c->weight, 0, 10000);
    fld_handlers(L, &d, c->handlers);
    fld_on(L, &d, &s->handlers.on[SCRIPT_KIND_CREATURE][k * EV_TYPES]);
    decl_creature_more(L, &d, c, like >= 0);
    return 0;
}

static int find_item(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_items; i++)
        if (strcmp(s->items[i].name, name) == 0)
            return i;
    return -1;
}

/* flags = {"stack", "obvious"}: bits named by a table. */
static int fld_flags(lua_State *L, const decl_t *d, const char *f, const char *const *names, int n)
{
    int t = lua_getfield(L, 1, f), bits = 0;
    if (t != LUA_TNIL && t != LUA_TTABLE)
        luaL_error(L, "%s: field '%s' must be a list of names", d->what, f);
    for (lua_Integer i = 1; t == LUA_TTABLE && i <= luaL_len(L, -1); i++) {
        lua_geti(L, -1, i);
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int b = v ? name_find(names, n, v) : -1;
        if (b < 0)
            luaL_error(L, "%s: field '%s': unknown name '%s'", d->what, f,
                       v ? v : "(not a string)");
        bits |= 1 << b;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return bits;
}

static const char *const ITEM_FLAG_NAMES[] = {"stack", "cursed", "obvious", "unique",
                                              "known", "mass",   "throw",   "artifact"};

static int find_ego(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_egos; i++)
        if (strcmp(s->egos[i].name, name) == 0)
            return i;
    return -1;
}

/* The numbers of an item kind (everything but names, handlers and `on`). */
static void item_fields(lua_State *L, const decl_t *d, item_kind_t *it)
{
    it->glyph = fld_glyph(L, d, it->glyph ? it->glyph : '?');
    it->fg = (uint16_t)fld_int(L, d, "fg", it->fg ? it->fg : 7, 0, 255);
    it->cls = (uint8_t)fld_enum(L, d, "class", ITEM_CLASS_NAMES, IC_COUNT, it->cls);
    it->slot = (uint8_t)fld_enum(L, d, "slot", ITEM_SLOT_NAMES, SLOT_COUNT, it->slot);
    it->use = (uint8_t)fld_enum(L, d, "use", ITEM_USE_NAMES, USE_COUNT, it->use);
    it->dtype = (uint8_t)fld_enum(L, d, "dtype", ITEM_DAMAGE_NAMES, IDT_COUNT, it->dtype);
    it->flags =
        (uint8_t)(it->flags | fld_flags(L, d, "flags", ITEM_FLAG_NAMES,
                                        (int)(sizeof ITEM_FLAG_NAMES / sizeof ITEM_FLAG_NAMES[0])));
    it->weight = (int16_t)fld_int(L, d, "weight", it->weight, 0, 10000);
    it->power = fld_dice(L, d, "power", it->power);
    it->to_hit = (int16_t)fld_int(L, d, "to_hit", it->to_hit, -50, 50);
    it->damage = (int16_t)fld_int(L, d, "damage", it->damage, -50, 50);
    it->defence = (int16_t)fld_int(L, d, "defence", it->defence, -50, 50);
    it->absorb = (int16_t)fld_int(L, d, "absorb", it->absorb, 0, 50);
    it->speed = (int16_t)fld_int(L, d, "speed", it->speed, -90, 200);
    int e = fld_kind(L, d, "effect", find_effect);
    if (e >= 0)
        it->effect = (int16_t)e;
    it->duration = fld_dice(L, d, "duration", it->duration);
    it->magnitude = (int16_t)fld_int(L, d, "magnitude", it->magnitude, -1000, 1000);
    it->nutrition = (int16_t)fld_int(L, d, "nutrition", it->nutrition, 0, 20000);
    it->charges = fld_dice(L, d, "charges", it->charges);
    it->min_depth = (int16_t)fld_int(L, d, "min_depth", it->min_depth, 0, 100);
    it->max_depth = (int16_t)fld_int(L, d, "max_depth", it->max_depth, 0, 100);
    it->freq = (int16_t)fld_int(L, d, "freq", it->freq, 0, 10000);
    it->value = (int16_t)fld_int(L, d, "value", it->value, 0, 30000);
    it->ammo = (uint8_t)fld_enum(L, d, "ammo", ITEM_AMMO_NAMES, AMMO_COUNT, it->ammo);
    it->range = (uint8_t)fld_int(L, d, "range", it->range, 0, 30);
    it->breaks = (uint8_t)fld_int(L, d, "breaks", it->breaks, 0, 100);
    it->resist = (uint16_t)fld_bits(L, d, "resist", DAMAGE_NAMES, DT_COUNT, it->resist);
    int ego = fld_kind(L, d, "ego", find_ego);
    if (ego >= 0)
        it->ego = (uint16_t)(ego + 1);
    if ((it->flags & IKF_ARTIFACT) && it->slot == SLOT_NONE)
        luaL_error(L, "%s: an artifact is worn or wielded (field 'slot')", d->what);
}

/* item { name=, plural=, class=, slot=, use=, power="1d8", like="dagger", ... } */
static int decl_item(lua_State *L)
{
    decl_t d = decl_begin(L, "item");
    declared_t *s = d.s;
    int like = fld_kind(L, &d, "like", find_item);
    char name[ITEM_NAME_LEN] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_item(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    int k = kind_grow((void **)&s->items, sizeof *s->items, &s->c.n_items, &s->cap[2],
                      &s->handlers.on[SCRIPT_KIND_ITEM]);
    if (k < 0)
        return luaL_error(L, "out of memory");
    item_kind_t *it = &s->items[k];
    if (like >= 0) {
        *it = s->items[like];
        it->plural[0] = 0;
    } else {
        it->effect = -1;
        it->max_depth = 100;
    }
    memcpy(it->name, name, sizeof name);
    fld_str(L, &d, "plural", it->plural, sizeof it->plural, 0);
    item_fields(L, &d, it);
    if (it->max_depth < it->min_depth)
        return luaL_error(L, "%s: max_depth below min_depth", d.what);
    fld_handlers(L, &d, it->handlers);
    fld_on(L, &d, &s->handlers.on[SCRIPT_KIND_ITEM][k * EV_TYPES]);
    return 0;
}

static int decl_effect(lua_State *L)
{
    decl_t d = decl_begin(L, "effect");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->effects, sizeof *s->effects, &s->c.n_effects, &s->cap[3], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    effect_kind_t *e = &s->effects[k];
    fld_str(L, &d, "name", e->name, sizeof e->name, 1);
    fld_str(L, &d, "tag", e->tag, sizeof e->tag, 1);
    e->stacking = (uint8_t)fld_enum(L, &d, "stacking", STACK_NAMES, 3, STACK_REFRESH);
    e->interval = fld_int(L, &d, "interval", 100, 1, 1000000);
    static const char *const HOOK_FIELDS[3] = {"start", "tick", "finish"};
    for (int i = 0; i < 3; i++)
        e->hook[i] = (uint16_t)fld_enum(L, &d, HOOK_FIELDS[i], HOOK_NAMES, HK_COUNT, 0);
    fld_str(L, &d, "start_msg", e->start_msg, sizeof e->start_msg, 0);
    fld_str(L, &d, "end_msg", e->end_msg, sizeof e->end_msg, 0);
    e->to_hit = (int16_t)fld_int(L, &d, "to_hit", 0, -50, 50);
    e->damage = (int16_t)fld_int(L, &d, "damage", 0, -50, 50);
    e->defence = (int16_t)fld_int(L, &d, "defence", 0, -50, 50);
    e->speed = (int16_t)fld_int(L, &d, "speed", 0, -90, 200);
    e->speed_pct = (int16_t)fld_int(L, &d, "speed_pct", 100, 10, 1000);
    e->heal = (int16_t)fld_int(L, &d, "heal", 0, -1000, 1000);
    e->flags = (uint8_t)fld_flags(L, &d, "flags", EFFECT_FLAG_NAMES, EFK_BITS);
    static const char *const SAVES[] = {"none", "fort", "ref", "will"};
    static const uint8_t SAVE_BITS[] = {0, SAVE_FORT, SAVE_REF, SAVE_WILL};
    e->save = SAVE_BITS[fld_enum(L, &d, "save", SAVES, 4, 0)];
    return 0;
}

/* oddment { creature = "jackal", min_depth = 1, weight = 30 } */
static int decl_oddment(lua_State *L)
{
    decl_t d = decl_begin(L, "oddment");
    snprintf(d.what, sizeof d.what, "oddment");
    int k = fld_kind(L, &d, "creature", find_creature);
    if (k < 0)
        return luaL_error(L, "oddment: field 'creature' is required");
    creature_kind_t *c = &d.s->creatures[k];
    c->min_depth = (int16_t)fld_int(L, &d, "min_depth", c->min_depth, 0, 100);
    c->max_depth = (int16_t)fld_int(L, &d, "max_depth", c->max_depth, c->min_depth, 100);
    c->weight = (int16_t)fld_int(L, &d, "weight", -1, 0, 10000);
    if (c->weight < 0)
        return luaL_error(L, "oddment: field 'weight' is required");
    return 0;
}

/* rules { player = "you", poison = "poison", creature_builtin = "creature", map_builtin = "map" } */
static int decl_rules(lua_State *L)
{
    decl_t d = decl_begin(L, "rules");
    snprintf(d.what, sizeof d.what, "rules");
    content_t *c = &d.s->c;
    int k = fld_kind(L, &d, "player", find_creature);
    if (k >= 0)
        c->player_kind = (uint16_t)k;
    k = fld_kind(L, &d, "poison", find_effect);
    if (k >= 0)
        c->poison_effect = (uint16_t)k;
    k = fld_kind(L, &d, "slow", find_effect);
    if (k >= 0)
        c->slow_effect = (uint16_t)k;
    c->builtin[OBJ_CREATURE] = (uint16_t)fld_enum(L, &d, "creature_builtin", HANDLER_NAMES, H_COUNT,
                                                  c->builtin[OBJ_CREATURE]);
    c->map_builtin =
        (uint16_t)fld_enum(L, &d, "map_builtin", HANDLER_NAMES, H_COUNT, c->map_builtin);
    fld_str(L, &d, "version", c->version, sizeof c->version, 0);
    return 0;
}

/* shapes = {"rect", "circle"} or {"rooms"} / {"caves"}: a mapgen shape mask. */
static uint32_t fld_shapes(lua_State *L, const decl_t *d)
{
    static const uint32_t ROOMS = 0x3fu, CAVES = 1u << SHAPE_CAVE_LIFE | 1u << SHAPE_CAVE_ROUGH;
    int t = lua_getfield(L, 1, "shapes");
    uint32_t mask = 0;
    if (t != LUA_TNIL && t != LUA_TTABLE)
        luaL_error(L, "%s: field 'shapes' must be a list of shape names", d->what);
    for (lua_Integer i = 1; t == LUA_TTABLE && i <= luaL_len(L, -1); i++) {
        lua_geti(L, -1, i);
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int k = -1;
        for (int j = 0; j < SHAPE_COUNT && k < 0; j++)
            if (strcmp(mapgen_shape_name((uint8_t)j), v) == 0)
                k = j;
        if (k >= 0)
            mask |= 1u << k;
        else if (strcmp(v, "rooms") == 0)
            mask |= ROOMS;
        else if (strcmp(v, "caves") == 0)
            mask |= CAVES;
        else
            luaL_error(L, "%s: unknown shape '%s'", d->what, v);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return mask;
}

/* region { name=, min_depth=, max_depth=, weight=, shapes=, lit=, dark=, handlers= } */
static int decl_region(lua_State *L)
{
    decl_t d = decl_begin(L, "region");
    declared_t *s = d.s;
    uint16_t n = s->c.n_regions, cap = s->cap[4];
    int k = kind_grow((void **)&s->regions, sizeof *s->regions, &s->c.n_regions, &s->cap[4], NULL);
    uint16_t n2 = n, cap2 = cap;
    if (k < 0 || kind_grow((void **)&s->rdecl, sizeof *s->rdecl, &n2, &cap2, NULL) < 0)
        return luaL_error(L, "out of memory");
    region_kind_t *r = &s->regions[k];
    mapgen_region_type_t *t = &s->rdecl[k];
    fld_str(L, &d, "name", r->name, sizeof r->name, 1);
    t->min_depth = fld_int(L, &d, "min_depth", 1, 0, 99);
    t->max_depth = fld_int(L, &d, "max_depth", 20, t->min_depth, 99);
    t->weight = fld_int(L, &d, "weight", -1, 0, 10000);
    if (t->weight < 0)
        return luaL_error(L, "%s: field 'weight' is required", d.what);
    t->shapes = fld_shapes(L, &d);
    int lit = lua_getfield(L, 1, "lit");
    lua_pop(L, 1);
    t->lit = lit == LUA_TNIL ? -1 : fld_bool(L, &d, "lit", 0);
    r->flags = (uint8_t)((fld_bool(L, &d, "dark", 0) ? RF_DARK : 0) |
                         (fld_bool(L, &d, "sky", 0) ? RF_SKY : 0));
    if (r->flags & RF_DARK)
        t->lit = 0;
    fld_handlers(L, &d, r->handlers);
    return 0;
}

/* A malloc'd copy of a string field (NULL when absent). */
static char *fld_strdup(lua_State *L, const decl_t *d, const char *f, int required)
{
    int t = lua_getfield(L, 1, f);
    if (t == LUA_TNIL && !required)
        return lua_pop(L, 1), NULL;
    if (t != LUA_TSTRING)
        luaL_error(L, "%s: field '%s' must be a string", d->what, f);
    char *v = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    if (!v)
        luaL_error(L, "out of memory");
    return v;
}

/* vault { name=, rows=[[...]], legend=, min_depth=, max_depth=, weight= } */
static int decl_vault(lua_State *L)
{
    decl_t d = decl_begin(L, "vault");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->vdecl, sizeof *s->vdecl, &s->n_vdecl, &s->cap[5], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    vault_decl_t *v = &s->vdecl[k];
    fld_str(L, &d, "name", v->name, sizeof v->name, 1);
    v->rows = fld_strdup(L, &d, "rows", 1);
    v->legend = fld_strdup(L, &d, "legend", 0);
    v->min_depth = fld_int(L, &d, "min_depth", 1, 0, 99);
    v->max_depth = fld_int(L, &d, "max_depth", 20, v->min_depth, 99);
    v->weight = fld_int(L, &d, "weight", -1, 0, 10000);
    if (v->weight < 0)
        return luaL_error(L, "%s: field 'weight' is required", d.what);
    char err[160];
    mapgen_vault_t mv = {v->name, v->rows, v->legend, v->min_depth, v->max_depth, v->weight};
    if (mapgen_vault_check(&mv, err, sizeof err) < 0)
        return luaL_error(L, "vault %s", err); /* err names it */
    return 0;
}

/* trap { name=, action="damage"|"effect"|"teleport"|"fall"|"alarm", dtype=,
 * dice=, effect=, min_depth=, max_depth=, weight=, msg= } */
static int decl_trap(lua_State *L)
{
#define DECL_TRAP_NAME_(id, fn, flags) #id,
    static const char *const ACTIONS[TRAP_ACTIONS] = {TRAP_ACTION_LIST(DECL_TRAP_NAME_)};
#undef DECL_TRAP_NAME_
#define DECL_TRAP_FLAGS_(id, fn, flags) flags,
    static const uint8_t FLAGS[TRAP_ACTIONS] = {TRAP_ACTION_LIST(DECL_TRAP_FLAGS_)};
#undef DECL_TRAP_FLAGS_
    decl_t d = decl_begin(L, "trap");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->traps, sizeof *s->traps, &s->c.n_traps, &s->cap[9], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    trap_kind_t *t = &s->traps[k];
    fld_str(L, &d, "name", t->name, sizeof t->name, 1);
    t->action = (uint8_t)fld_enum(L, &d, "action", ACTIONS, TRAP_ACTIONS, TRAP_DAMAGE);
    t->dtype = (uint8_t)fld_enum(L, &d, "dtype", DAMAGE_NAMES, DT_COUNT, DT_HIT);
    t->dice = fld_dice(L, &d, "dice", (dice_t){1, 6, 0});
    t->effect = (int16_t)fld_kind(L, &d, "effect", find_effect);
    if (((FLAGS[t->action] & TAF_EFFECT) != 0) != (t->effect >= 0))
        return luaL_error(L, "%s: an effect trap, and only one, names an 'effect'", d.what);
    t->min_depth = (int16_t)fld_int(L, &d, "min_depth", 1, 1, 99);
    t->max_depth = (int16_t)fld_int(L, &d, "max_depth", 99, t->min_depth, 99);
    t->weight = (int16_t)fld_int(L, &d, "weight", 10, 0, 10000);
    t->fg = (uint16_t)fld_int(L, &d, "fg", 13, 0, 255);
    fld_str(L, &d, "msg", t->msg, sizeof t->msg, 1);
    return 0;
}

/* room { shape = "circle", weight = 10 }: how often a room takes a shape. */
static int decl_room(lua_State *L)
{
    decl_t d = decl_begin(L, "room");
    snprintf(d.what, sizeof d.what, "room");
    char shape[16] = {0};
    fld_str(L, &d, "shape", shape, sizeof shape, 1);
    for (int i = 0; i <= SHAPE_OVERLAP; i++)
        if (strcmp(mapgen_shape_name((uint8_t)i), shape) == 0) {
            d.s->c.room_weights[i] = fld_int(L, &d, "weight", 0, 0, 10000);
            return 0;
        }
    return luaL_error(L, "room: unknown room shape '%s'", shape);
}

/* A list of syllables (each 0 to WORLD_SYL_LEN - 1 small letters) into p. */
static void fld_syllables(lua_State *L, const decl_t *d, const char *f, worldmap_params_t *p,
                          int list)
{
    int t = lua_getfield(L, 1, f);
    lua_Integer n = t == LUA_TTABLE ? luaL_len(L, -1) : 0;
    if (n < 1 || n > WORLD_SYL_MAX)
        luaL_error(L, "%s: field '%s' must be a list of 1 to %d syllables", d->what, f,
                   WORLD_SYL_MAX);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        size_t len = 0;
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        int ok = v && len < WORLD_SYL_LEN && (len > 0 || list != WSYL_vowels);
        for (size_t k = 0; ok && k < len; k++)
            ok = v[k] >= 'a' && v[k] <= 'z';
        if (!ok)
            luaL_error(L, "%s: '%s' entry %d must be %s small letters", d->what, f, (int)i,
                       list == WSYL_vowels ? "1 to 7" : "0 to 7");
        memcpy(p->syl[list][i - 1], v, len + 1);
        lua_pop(L, 1);
    }
    p->n_syl[list] = (uint8_t)n;
    lua_pop(L, 1);
}

/* A {min, max} pair of small counts into out. */
static void fld_pair(lua_State *L, const decl_t *d, const char *f, uint8_t out[2], int lo, int hi)
{
    int t = lua_getfield(L, 1, f);
    lua_Integer v[2] = {-1, -1};
    for (int i = 0; i < 2 && t == LUA_TTABLE; i++) {
        lua_geti(L, -1, i + 1);
        v[i] = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
        lua_pop(L, 1);
    }
    if (v[0] < lo || v[1] < v[0] || v[1] > hi)
        luaL_error(L, "%s: field '%s' must be {min, max} within %d to %d", d->what, f, lo, hi);
    out[0] = (uint8_t)v[0], out[1] = (uint8_t)v[1];
    lua_pop(L, 1);
}

/* world { width=, height=, land=, territories={min,max}, towns=, rivers=,
 * home=, onsets=, vowels=, codas=, territory_ends=, town_ends=, river_ends= } */
static int find_region(const declared_t *s, const char *name);

static int decl_world(lua_State *L)
{
    static const char *const LISTS[WSYL_LISTS] = {
#define WORLD_SYL_NAME_(n) #n,
        WORLD_SYL_LIST(WORLD_SYL_NAME_)
#undef WORLD_SYL_NAME_
    };
    decl_t d = decl_begin(L, "world");
    snprintf(d.what, sizeof d.what, "world");
    worldmap_params_t *p = &d.s->c.world;
    memset(p, 0, sizeof *p);
    p->w = (uint8_t)fld_int(L, &d, "width", 56, 16, 200);
    p->h = (uint8_t)fld_int(L, &d, "height", 21, 8, 100);
    p->land_pct = (uint8_t)fld_int(L, &d, "land", 40, 10, 80);
    fld_pair(L, &d, "territories", p->territories, 1, WORLD_TERR_MAX);
    fld_pair(L, &d, "towns", p->towns, 1, WORLD_TOWN_MAX / WORLD_TERR_MAX);
    fld_pair(L, &d, "rivers", p->rivers, 0, WORLD_RIVER_MAX);
    fld_str(L, &d, "home", p->home, sizeof p->home, 0);
    p->wilds = (int16_t)fld_kind(L, &d, "wilds", find_region);
    p->streets = (int16_t)fld_kind(L, &d, "streets", find_region);
    for (int i = 0; i < WSYL_LISTS; i++)
        fld_syllables(L, &d, LISTS[i], p, i);
    return 0;
}

/* ego { name = "of flame", classes = {"weapon"}, brand = "fire", brand_dice = "1d6",
 *       slays = {"undead"}, slay_dice = "2d6", resist = {"fire"}, to_hit=, damage=,
 *       defence=, speed=, stealth=, min_depth=, freq= } */
static int decl_ego(lua_State *L)
{
    decl_t d = decl_begin(L, "ego");
    declared_t *s = d.s;
    char name[EGO_NAME_LEN] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_ego(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    int k = kind_grow((void **)&s->egos, sizeof *s->egos, &s->c.n_egos, &s->cap[11], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    ego_kind_t *e = &s->egos[k];
    memcpy(e->name, name, sizeof name);
    e->classes = (uint16_t)fld_bits(L, &d, "classes", ITEM_CLASS_NAMES, IC_COUNT, 0);
    if (!e->classes)
        return luaL_error(L, "%s: field 'classes' names what it comes on", d.what);
    e->brand = (uint8_t)fld_enum(L, &d, "brand", DAMAGE_NAMES, DT_COUNT, DT_NONE);
    e->brand_dice = fld_dice(L, &d, "brand_dice", (dice_t){1, 6, 0});
    e->slays = (uint16_t)fld_bits(L, &d, "slays", CREATURE_FLAGS,
                                  (int)(sizeof CREATURE_FLAGS / sizeof CREATURE_FLAGS[0]), 0);
    e->slay_dice = fld_dice(L, &d, "slay_dice", (dice_t){2, 6, 0});
    e->resist = (uint16_t)fld_bits(L, &d, "resist", DAMAGE_NAMES, DT_COUNT, 0);
    e->to_hit = (int16_t)fld_int(L, &d, "to_hit", 0, -20, 20);
    e->damage = (int16_t)fld_int(L, &d, "damage", 0, -20, 20);
    e->defence = (int16_t)fld_int(L, &d, "defence", 0, -20, 20);
    e->speed = (int16_t)fld_int(L, &d, "speed", 0, -50, 100);
    e->stealth = (int16_t)fld_int(L, &d, "stealth", 0, -20, 20);
    e->min_depth = (int16_t)fld_int(L, &d, "min_depth", 1, 0, 100);
    e->freq = (int16_t)fld_int(L, &d, "freq", 10, 0, 10000);
    return 0;
}

static int find_region(const declared_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_regions; i++)
        if (strcmp(s->regions[i].name, name) == 0)
            return i;
    return -1;
}

/* A table field of name = integer pairs, each name one of names: out[i]
 * gets the value (others keep theirs). */
static void fld_named_ints(lua_State *L, const decl_t *d, const char *f, const char *const *names,
                           int n, int16_t *out, int lo, int hi)
{
    int t = lua_getfield(L, 1, f);
    if (t == LUA_TNIL)
        return (void)lua_pop(L, 1);
    if (t != LUA_TTABLE)
        luaL_error(L, "%s: field '%s' must be a table of name = number", d->what, f);
    for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        int i = -1;
        for (int j = 0; k && j < n && i < 0; j++)
            i = strcasecmp(names[j], k) == 0 ? j : -1;
        int isint = 0;
        lua_Integer v = lua_tointegerx(L, -1, &isint);
        if (i < 0 || !isint || v < lo || v > hi)
            luaL_error(L, "%s: field '%s': '%s' must be a known name with a number from %d to %d",
                       d->what, f, k ? k : "?", lo, hi);
        out[i] = (int16_t)v;
    }
    lua_pop(L, 1);
}

/* shop { region=, keeper=, classes={...}, stock=, stock_depth=,
 * services={heal=, uncurse=, identify=}, min_depth=, max_depth=, chance= } */
static int decl_shop(lua_State *L)
{
    static const char *const SERVICE[SERVICES] = SERVICE_NAMES;
    decl_t d = decl_begin(L, "shop");
    declared_t *s = d.s;
    int k = kind_grow((void **)&s->shops, sizeof *s->shops, &s->c.n_shops, &s->cap_shops, NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    shop_kind_t *sh = &s->shops[k];
    snprintf(d.what, sizeof d.what, "shop %d", k + 1);
    sh->region = (int16_t)fld_kind(L, &d, "region", find_region);
    sh->keeper = (int16_t)fld_kind(L, &d, "keeper", find_creature);
    if (sh->region < 0 || sh->keeper < 0)
        return luaL_error(L, "%s: fields 'region' and 'keeper' are required", d.what);
    sh->classes = (uint16_t)fld_bits(L, &d, "classes", ITEM_CLASS_NAMES, IC_COUNT, 0);
    sh->stock = (uint8_t)fld_int(L, &d, "stock", 0, 0, 30);
    sh->stock_depth = (int16_t)fld_int(L, &d, "stock_depth", 5, 0, 99);
    sh->min_depth = (int16_t)fld_int(L, &d, "min_depth", 0, 0, 99);
    sh->max_depth = (int16_t)fld_int(L, &d, "max_depth", sh->min_depth, sh->min_depth, 99);
    sh->chance = (uint8_t)fld_int(L, &d, "chance", 0, 0, 100);
    fld_named_ints(L, &d, "services", SERVICE, SERVICES, sh->service, 0, 30000);
    return 0;
}

/* prices { base = { weapon = 12, ... }, per_depth=, per_plus=, sell= } */
static int decl_prices(lua_State *L)
{
    decl_t d = decl_begin(L, "prices");
    snprintf(d.what, sizeof d.what, "prices");
    price_table_t *p = &d.s->c.prices;
    fld_named_ints(L, &d, "base", ITEM_CLASS_NAMES, IC_COUNT, p->base, 0, 30000);
    p->per_depth = (int16_t)fld_int(L, &d, "per_depth", 10, 0, 1000);
    p->per_plus = (int16_t)fld_int(L, &d, "per_plus", 30, 0, 10000);
    p->sell = (int16_t)fld_int(L, &d, "sell", 40, 1, 100);
    p->start_gold = (int16_t)fld_int(L, &d, "start_gold", 0, 0, 30000);
    return 0;
}

/* The fields a special level and a branch's theme share. */
static void special_fields(lua_State *L, const decl_t *d, special_level_t *sp)
{
    sp->region = (int16_t)fld_kind(L, d, "region", find_region);
    sp->water = (uint8_t)fld_int(L, d, "water", 0, 0, 60);
    sp->deep = (uint8_t)fld_int(L, d, "deep", 0, 0, 60);
    sp->lava = (uint8_t)fld_int(L, d, "lava", 0, 0, 60);
    sp->chasm = (uint8_t)fld_int(L, d, "chasm", 0, 0, 60);
    sp->rubble = (uint8_t)fld_int(L, d, "rubble", 0, 0, 60);
    sp->creature = (int16_t)fld_kind(L, d, "creature", find_creature);
    sp->extra = (uint8_t)fld_int(L, d, "extra", 0, 0, 40);
    fld_str(L, d, "msg", sp->msg, sizeof sp->msg, 0);
}

/* special_level { name=, depth=, region=, water=, deep=, lava=, chasm=,
 * rubble=, creature=, extra=, msg= }; with branch = true (and no depth)
 * it is a theme for the dungeons beyond the town (content_t.branches). */
static int decl_special(lua_State *L)
{
    decl_t d = decl_begin(L, "special_level");
    declared_t *s = d.s;
    bool branch = fld_bool(L, &d, "branch", 0);
    int k = branch ? kind_grow((void **)&s->branches, sizeof *s->branches, &s->c.n_branches,
                               &s->cap_branches, NULL)
                   : kind_grow((void **)&s->specials, sizeof *s->specials, &s->c.n_specials,
                               &s->cap_specials, NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    special_level_t *sp = branch ? &s->branches[k] : &s->specials[k];
    fld_str(L, &d, "name", sp->name, sizeof sp->name, 1);
    sp->depth = (int16_t)(branch ? 0 : fld_int(L, &d, "depth", -1, 1, 99));
    for (int i = 0; i < k && !branch; i++)
        if (s->specials[i].depth == sp->depth)
            return luaL_error(L, "%s: depth %d has a special level already", d.what, sp->depth);
    special_fields(L, &d, sp);
    return 0;
}

static const luaL_Reg DECLS[] = {{"terrain", decl_terrain},
                                 {"spell", decl_spell},
                                 {"creature", decl_creature},
                                 {"item", decl_item},
                                 {"effect", decl_effect},
                                 {"oddment", decl_oddment},
                                 {"rules", decl_rules},
                                 {"region", decl_region},
                                 {"vault", decl_vault},
                                 {"room", decl_room},
                                 {"trap", decl_trap},
                                 {"race", decl_race},
                                 {"class", decl_class},
                                 {"world", decl_world},
                                 {"ego", decl_ego},
                                 {"shop", decl_shop},
                                 {"prices", decl_prices},
                                 {"special_level", decl_special},
                                 {NULL, NULL}};

/* ---- the loader ------------------------------------------------------------------- */

enum { LOAD_MEM_CAP = 64 << 20, LOAD_BUDGET = 20000000 };

static int load_modules(lua_State *L, const char *dir, char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/modules.lua", dir);
    if (script_run_file(L, path, 1, LOAD_BUDGET, err, errlen) < 0)
        return -1;
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s:1: must return a list of module file names", path);
        return -1;
    }
    int list = lua_gettop(L);
    lua_Integer n = luaL_len(L, list);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, list, i);
        const char *name = lua_tostring(L, -1);
        if (!lua_isstring(L, -1) || strchr(name, '/') || strlen(name) < 5 ||
            strcmp(name + strlen(name) - 4, ".lua") != 0) {
            snprintf(err, errlen, "%s:1: entry %d must be a file name ending in .lua", path,
                     (int)i);
            return -1;
        }
        char mod[512];
        snprintf(mod, sizeof mod, "%s/%s", dir, name);
        lua_pop(L, 1);
        if (script_run_file(L, mod, 0, LOAD_BUDGET, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* What the engine cannot do without: 0, or -1 with err. */
static int load_required(const declared_t *s, const char *where, char *err, size_t errlen)
{
    if (s->c.n_terrain != MAP_TERRAIN_COUNT) {
        snprintf(err, errlen, "%s: %d terrain kinds declared, the map needs %d", where,
                 s->c.n_terrain, MAP_TERRAIN_COUNT);
        return -1;
    }
    if (s->c.n_creatures == 0) {
        snprintf(err, errlen, "%s: no creature kinds (the player needs one)", where);
        return -1;
    }
    if (s->c.n_effects == 0) {
        snprintf(err, errlen, "%s: no effect kinds (the rules need poison and slow)", where);
        return -1;
    }
    return 0;
}

/* The tables mapgen reads, now that nothing moves any more: 0 or -1 (OOM). */
static int load_mapgen_tables(declared_t *s)
{
    size_t nr = s->c.n_regions ? s->c.n_regions : 1, nv = s->n_vdecl ? s->n_vdecl : 1;
    s->rtypes = calloc(nr, sizeof *s->rtypes);
    s->vaults = calloc(nv, sizeof *s->vaults);
    if (!s->rtypes || !s->vaults)
        return -1;
    for (int i = 0; i < s->c.n_regions; i++) {
        s->rtypes[i] = s->rdecl[i];
        s->rtypes[i].name = s->regions[i].name;
    }
    for (int i = 0; i < s->n_vdecl; i++) {
        const vault_decl_t *v = &s->vdecl[i];
        s->vaults[i] =
            (mapgen_vault_t){v->name, v->rows, v->legend, v->min_depth, v->max_depth, v->weight};
    }
    s->c.rtypes = s->c.n_regions ? s->rtypes : NULL;
    s->c.vaults = s->n_vdecl ? s->vaults : NULL;
    s->c.n_vaults = s->n_vdecl;
    return 0;
}

/* The tables the engine needs whole, checked once everything is declared. */
static int load_check(declared_t *s, const char *where, char *err, size_t errlen)
{
    if (load_required(s, where, err, errlen) < 0)
        return -1;
    if (load_mapgen_tables(s) < 0)
        return snprintf(err, errlen, "content: out of memory"), -1;
    s->c.terrain = s->terrain;
    s->c.spells = s->spells;
    s->c.creatures = s->creatures;
    s->c.items = s->items;
    s->c.effects = s->effects;
    s->c.regions = s->regions;
    s->c.races = s->races;
    s->c.classes = s->classes;
    s->c.traps = s->traps;
    s->c.egos = s->egos;
    s->c.shops = s->shops;
    s->c.specials = s->specials;
    s->c.branches = s->branches;
    return 0;
}

/* A content with nothing declared yet: the rules' code tables, marked as ours. */
static declared_t *declared_new(void)
{
    declared_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->magic = DECLARED_MAGIC;
    s->c.scripts = &s->handlers;
    snprintf(s->c.version, sizeof s->c.version, "lua");
    s->c.handlers = RULES_HANDLERS;
    s->c.n_handlers = H_COUNT;
    s->c.hooks = RULES_HOOKS;
    s->c.n_hooks = HK_COUNT;
    return s;
}

/* paths NULL: dir's modules.lua names the files; else paths[0..n) in order.
 * where: what a whole-content error names ("dir/modules.lua:1"). */
static content_t *load_common(const char *dir, const char *const *paths, int n, const char *where,
                              char *err, size_t errlen)
{
    char scratch[8];
    if (!err || !errlen)
        err = scratch, errlen = sizeof scratch;
    declared_t *s = declared_new();
    lua_State *L = s ? script_state_new(LOAD_MEM_CAP) : NULL;
    if (!L) {
        free(s);
        snprintf(err, errlen, "content: out of memory");
        return NULL;
    }
    lua_pushlightuserdata(L, s);
    luaL_setfuncs(L, DECLS, 1);
    script_sandbox_seal(L); /* index 1: the modules' environment */
    int failed = 0;
    if (!paths)
        failed = load_modules(L, dir, err, errlen);
    for (int i = 0; paths && i < n && !failed; i++)
        failed = script_run_file(L, paths[i], 0, LOAD_BUDGET, err, errlen);
    script_state_close(L);
    if (failed || load_check(s, where, err, errlen) < 0) {
        declare_free(&s->c);
        return NULL;
    }
    return &s->c;
}

content_t *declare_load(const char *dir, char *err, size_t errlen)
{
    char where[512];
    snprintf(where, sizeof where, "%s/modules.lua:1", dir ? dir : "game/content");
    return load_common(dir ? dir : "game/content", NULL, 0, where, err, errlen);
}

content_t *declare_load_files(const char *const *paths, int n, char *err, size_t errlen)
{
    char where[512];
    snprintf(where, sizeof where, "%s:1", n > 0 ? paths[n - 1] : "(no files)");
    return load_common(".", paths, n, where, err, errlen);
}
