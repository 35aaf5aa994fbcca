/* script — Lua content modules and sandboxed handlers (see script.h).
 *
 * Two kinds of Lua state, both on a counting allocator with a cap and a
 * count hook: the loader's (one per script_content_load, closed before it
 * returns) and the vm's (one per thread). Handlers cross from one to the
 * other as bytecode (lua_dump), which is why they may not capture locals:
 * a function whose only upvalue is _ENV is a closed, stateless piece of
 * code we can rebind to the sandbox. */
#include "script.h"
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "glyph.h"
#include "mapgen.h"
#include "rules.h"

/* ---- names ----------------------------------------------------------------- */

#define SCRIPT_NAME_(n) #n,
static const char *const EVENT_NAMES[EV_TYPES] = {"NONE", EVENT_LIST(SCRIPT_NAME_)};
static const char *const HANDLER_NAMES[H_COUNT] = {"", RULES_HANDLER_LIST(SCRIPT_NAME_)};
static const char *const HOOK_NAMES[HK_COUNT] = {"", RULES_HOOK_LIST(SCRIPT_NAME_)};
static const char *const DAMAGE_NAMES[SCRIPT_DT_COUNT] = {SCRIPT_DAMAGE_LIST(SCRIPT_NAME_)};
static const char *const PHASE_NAMES[] = {"pre", "main", "post"};
static const char *const STACK_NAMES[] = {"refresh", "add", "strongest"};
static const char *const ITEM_CLASS_NAMES[IC_COUNT] = {ITEM_CLASS_LIST(SCRIPT_NAME_)};
static const char *const ITEM_SLOT_NAMES[SLOT_COUNT] = {ITEM_SLOT_LIST(SCRIPT_NAME_)};
static const char *const ITEM_USE_NAMES[USE_COUNT] = {ITEM_USE_LIST(SCRIPT_NAME_)};
static const char *const ITEM_DAMAGE_NAMES[IDT_COUNT] = {ITEM_DAMAGE_LIST(SCRIPT_NAME_)};
static const char *const EFFECT_FLAG_NAMES[EFK_BITS] = {EFFECT_FLAG_LIST(SCRIPT_NAME_)};
#undef SCRIPT_NAME_

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

/* ---- the counting allocator and the budget hook ------------------------------ */

typedef struct {
    size_t used, limit;
    int mem_failed, over_budget;
} script_mem_t;

static void *mem_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    script_mem_t *m = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (nsize > old && m->used - old + nsize > m->limit) {
        m->mem_failed = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        m->used = m->used - old + nsize;
    return p;
}

/* Fires when the budget is spent; re-arms at every instruction so a caught
 * error cannot buy more time. */
static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    ((script_mem_t *)ud)->over_budget = 1;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0);
    lua_pushstring(L, "instruction budget exceeded");
    lua_concat(L, 2);
    lua_error(L);
}

/* ---- the sandbox --------------------------------------------------------------- */

static int sandbox_refuse(lua_State *L)
{
    const char *k = lua_tostring(L, 2);
    return luaL_error(L, "the sandbox is read-only (cannot set '%s')", k ? k : "?");
}

/* Replaces the table on top by an empty proxy that reads it and refuses writes. */
static void sandbox_proxy(lua_State *L)
{
    lua_newtable(L);          /* t proxy */
    lua_createtable(L, 0, 3); /* t proxy mt */
    lua_rotate(L, -3, -1);    /* proxy mt t */
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, sandbox_refuse);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

static const char *const SAFE_GLOBALS[] = {
    "assert",       "error",    "ipairs",   "next",   "pairs",
    "select",       "tonumber", "tostring", "type",   "getmetatable",
    "setmetatable", "rawequal", "rawlen",   "rawget", NULL};
static const char *const SAFE_LIBS[] = {"math", "string", "table", "utf8", NULL};
static const char *const UNSAFE_FIELDS[][2] = {
    {"string", "dump"}, {"math", "random"}, {"math", "randomseed"}, {NULL, NULL}};

/* Opens the libraries and pushes a read-only sandbox environment. The real
 * globals stay unreachable: only copies of the safe entries are offered. */
static void sandbox_push(lua_State *L)
{
    luaL_openlibs(L);
    for (int i = 0; UNSAFE_FIELDS[i][0]; i++) {
        lua_getglobal(L, UNSAFE_FIELDS[i][0]);
        lua_pushnil(L);
        lua_setfield(L, -2, UNSAFE_FIELDS[i][1]);
        lua_pop(L, 1);
    }
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1); /* hide the string library behind ("") */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
    lua_newtable(L);
    for (int i = 0; SAFE_GLOBALS[i]; i++) {
        lua_getglobal(L, SAFE_GLOBALS[i]);
        lua_setfield(L, -2, SAFE_GLOBALS[i]);
    }
    for (int i = 0; SAFE_LIBS[i]; i++) {
        lua_newtable(L);
        lua_getglobal(L, SAFE_LIBS[i]);
        lua_pushnil(L);
        while (lua_next(L, -2)) { /* copy, so the proxy never leads to the real table */
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -5);
        }
        lua_pop(L, 1);
        sandbox_proxy(L);
        lua_setfield(L, -2, SAFE_LIBS[i]);
    }
}

static lua_State *state_new(script_mem_t *m, size_t limit)
{
    memset(m, 0, sizeof *m);
    m->limit = limit;
    return lua_newstate(mem_alloc, m);
}

/* ---- the loaded content ------------------------------------------------------ */

typedef struct {
    char *code; /* bytecode of the handler */
    size_t len;
    char where[96];
} script_fn_t;

#define SCRIPT_MAGIC 0x4c554143u

/* A vault as declared: strings owned here, pointed at by content vaults. */
typedef struct {
    char name[40];
    char *rows, *legend;
    int min_depth, max_depth, weight;
} vault_decl_t;

typedef struct {
    content_t c; /* first: a content_t * is a script_content_t * */
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
    mapgen_region_type_t *rtypes; /* built by load_check, names point into regions */
    mapgen_region_type_t *rdecl;  /* as declared (names unset until load_check) */
    vault_decl_t *vdecl;
    mapgen_vault_t *vaults; /* built by load_check */
    uint16_t n_vdecl;
    uint16_t cap[10];
    int32_t *on[SCRIPT_KIND_CLASSES]; /* [kind * EV_TYPES + type]: fn ref */
    script_fn_t *fns;                 /* [ref - 1] */
    int n_fns, cap_fns;
} script_content_t;

/* Only content this loader made is a script_content_t: it marks itself. */
static script_content_t *sc_of(const content_t *c)
{
    const script_content_t *s = (const script_content_t *)c;
    return c && c->scripts == c && s->magic == SCRIPT_MAGIC ? (script_content_t *)s : NULL;
}

void script_content_free(content_t *c)
{
    script_content_t *s = sc_of(c);
    if (!s)
        return;
    for (int i = 0; i < s->n_fns; i++)
        free(s->fns[i].code);
    free(s->fns);
    free(s->terrain);
    free(s->spells);
    free(s->creatures);
    free(s->items);
    free(s->effects);
    free(s->regions);
    free(s->races);
    free(s->classes);
    free(s->traps);
    free(s->rtypes);
    free(s->rdecl);
    for (int i = 0; i < s->n_vdecl; i++)
        free(s->vdecl[i].rows), free(s->vdecl[i].legend);
    free(s->vdecl);
    free(s->vaults);
    for (int i = 0; i < SCRIPT_KIND_CLASSES; i++)
        free(s->on[i]);
    free(s);
}

int script_kind_handler(const content_t *c, script_kind_class_t cls, uint16_t kind,
                        uint16_t ev_type)
{
    const script_content_t *s = sc_of(c);
    uint16_t n = cls == SCRIPT_KIND_CREATURE ? c->n_creatures : c->n_items;
    if (!s || cls >= SCRIPT_KIND_CLASSES || kind >= n || ev_type >= EV_TYPES || !s->on[cls])
        return 0;
    return s->on[cls][kind * EV_TYPES + ev_type];
}

const char *script_handler_where(const content_t *c, int ref)
{
    const script_content_t *s = sc_of(c);
    return s && ref > 0 && ref <= s->n_fns ? s->fns[ref - 1].where : "";
}

/* Grows a kind array (and its `on` table) by one; returns the new index or -1. */
static int sc_grow(void **arr, size_t elem, uint16_t *n, uint16_t *cap, int32_t **on)
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
    script_content_t *s;
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

static int find_creature(const script_content_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_creatures; i++)
        if (strcmp(s->creatures[i].name, name) == 0)
            return i;
    return -1;
}

static int find_effect(const script_content_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_effects; i++)
        if (strcmp(s->effects[i].name, name) == 0)
            return i;
    return -1;
}

/* A field naming an earlier kind; -1 when absent, an error when unknown. */
static int fld_kind(lua_State *L, const decl_t *d, const char *f,
                    int (*find)(const script_content_t *, const char *))
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

typedef struct {
    char *p;
    size_t n, cap;
    int failed;
} dumpbuf_t;

static int dump_write(lua_State *L, const void *data, size_t len, void *ud)
{
    (void)L;
    dumpbuf_t *b = ud;
    if (b->n + len > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + len)
            nc *= 2;
        char *q = realloc(b->p, nc);
        if (!q)
            return b->failed = 1;
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    return 0;
}

/* Keeps the function on top (popped) as a handler; returns its ref (>= 1). */
static int fn_keep(lua_State *L, const decl_t *d, const char *ev)
{
    script_content_t *s = d->s;
    const char *up;
    for (int i = 1; (up = lua_getupvalue(L, -1, i)) != NULL; i++) {
        lua_pop(L, 1);
        if (strcmp(up, "_ENV") != 0)
            luaL_error(L, "%s: handler '%s' uses the module's local '%s' (handlers keep no state)",
                       d->what, ev, up);
    }
    if (s->n_fns == s->cap_fns) {
        int nc = s->cap_fns ? s->cap_fns * 2 : 8;
        script_fn_t *p = realloc(s->fns, (size_t)nc * sizeof *p);
        if (!p)
            luaL_error(L, "out of memory");
        s->fns = p;
        s->cap_fns = nc;
    }
    dumpbuf_t b = {0};
    lua_dump(L, dump_write, &b, 0);
    if (b.failed) {
        free(b.p);
        luaL_error(L, "out of memory");
    }
    script_fn_t *fn = &s->fns[s->n_fns++];
    fn->code = b.p;
    fn->len = b.n;
    lua_Debug ar;
    lua_getinfo(L, ">S", &ar); /* pops the function */
    snprintf(fn->where, sizeof fn->where, "%s:%d", ar.short_src, ar.linedefined);
    return s->n_fns;
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
    script_content_t *s = d.s;
    int k = sc_grow((void **)&s->terrain, sizeof *s->terrain, &s->c.n_terrain, &s->cap[0], NULL);
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

static int find_spell(const script_content_t *s, const char *name)
{
    for (int i = 0; i < s->c.n_spells; i++)
        if (strcasecmp(s->spells[i].name, name) == 0)
            return i;
    return -1;
}

/* spells = {"magic missile", ...}: a set of declared spells (bit = id). */
static uint16_t fld_spells(lua_State *L, const decl_t *d, const char *f, uint16_t def)
{
    const char *names[SPELLS_MAX];
    for (int i = 0; i < d->s->c.n_spells; i++)
        names[i] = d->s->spells[i].name;
    return (uint16_t)fld_bits(L, d, f, names, d->s->c.n_spells, def);
}

/* spell { name=, mana=, effect="bolt"|"heal", dtype= (a bolt's), dice= } */
static int decl_spell(lua_State *L)
{
    static const char *const EFFECTS[SPELL_EFFECTS] = SPELL_EFFECT_NAMES;
    decl_t d = decl_begin(L, "spell");
    script_content_t *s = d.s;
    char name[sizeof s->spells->name] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_spell(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    if (s->c.n_spells >= SPELLS_MAX)
        return luaL_error(L, "%s: at most %d spells (a spell set is %d bits)", d.what, SPELLS_MAX,
                          SPELLS_MAX);
    int k = sc_grow((void **)&s->spells, sizeof *s->spells, &s->c.n_spells, &s->cap[8], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    spell_kind_t *sp = &s->spells[k];
    memcpy(sp->name, name, sizeof name);
    sp->mana = (int16_t)fld_int(L, &d, "mana", -1, 0, 1000);
    if (sp->mana < 0)
        return luaL_error(L, "%s: field 'mana' is required", d.what);
    sp->effect = (uint8_t)fld_enum(L, &d, "effect", EFFECTS, SPELL_EFFECTS, SPELL_BOLT);
    sp->dtype = (uint8_t)fld_enum(L, &d, "dtype", DAMAGE_NAMES, DT_COUNT, DT_NONE);
    bool hurts = sp->effect == SPELL_BOLT || sp->effect == SPELL_BREATH;
    if (hurts && sp->dtype == DT_NONE)
        return luaL_error(L, "%s: a bolt or breath needs a damage type (field 'dtype')", d.what);
    if (!hurts && sp->dtype != DT_NONE)
        return luaL_error(L, "%s: only a bolt or breath has a damage type (field 'dtype')", d.what);
    sp->status = (int16_t)fld_kind(L, &d, "status", find_effect);
    if ((sp->effect == SPELL_HEX) != (sp->status >= 0))
        return luaL_error(L, "%s: a hex, and only a hex, names an effect (field 'status')", d.what);
    int t = lua_getfield(L, 1, "dice");
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return luaL_error(L, "%s: field 'dice' is required", d.what);
    sp->dice = fld_dice(L, &d, "dice", sp->dice);
    return 0;
}

static const char *const CREATURE_FLAGS[] = CREATURE_FLAG_NAMES;
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
    if (!fld_str(L, d, "hits", c->hits, sizeof c->hits, 0) && !like)
        snprintf(c->hits, sizeof c->hits, "hit<s:Actor>");
    fld_str(L, d, "desc", c->desc, sizeof c->desc, 0);
}

/* race { name=, str=, dex=, con=, int=, wis=, cha=, to_hit=, defence=, resist=, desc= } */
static int decl_race(lua_State *L)
{
    static const char *const AB[AB_COUNT] = {"str", "dex", "con", "int", "wis", "cha"};
    decl_t d = decl_begin(L, "race");
    script_content_t *s = d.s;
    int k = sc_grow((void **)&s->races, sizeof *s->races, &s->c.n_races, &s->cap[5 + 1], NULL);
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
    script_content_t *s = d.s;
    int k =
        sc_grow((void **)&s->classes, sizeof *s->classes, &s->c.n_classes, &s->cap[5 + 2], NULL);
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
    script_content_t *s = d.s;
    int like = fld_kind(L, &d, "like", find_creature);
    char name[40] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_creature(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    int k = sc_grow((void **)&s->creatures, sizeof *s->creatures, &s->c.n_creatures, &s->cap[1],
                    &s->on[SCRIPT_KIND_CREATURE]);
    if (k < 0)
        return luaL_error(L, "out of memory");
    creature_kind_t *c = &s->creatures[k];
    if (like >= 0) { /* a variant starts as a copy of its base, `on` included */
        *c = s->creatures[like];
        memcpy(&s->on[0][k * EV_TYPES], &s->on[0][like * EV_TYPES], EV_TYPES * sizeof(int32_t));
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
    fld_on(L, &d, &s->on[SCRIPT_KIND_CREATURE][k * EV_TYPES]);
    decl_creature_more(L, &d, c, like >= 0);
    return 0;
}

static int find_item(const script_content_t *s, const char *name)
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

static const char *const ITEM_FLAG_NAMES[] = {"stack",  "cursed", "obvious",
                                              "unique", "known",  "mass"};

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
}

/* item { name=, plural=, class=, slot=, use=, power="1d8", like="dagger", ... } */
static int decl_item(lua_State *L)
{
    decl_t d = decl_begin(L, "item");
    script_content_t *s = d.s;
    int like = fld_kind(L, &d, "like", find_item);
    char name[ITEM_NAME_LEN] = {0};
    fld_str(L, &d, "name", name, sizeof name, 1);
    if (find_item(s, name) >= 0)
        return luaL_error(L, "%s: declared twice", d.what);
    int k = sc_grow((void **)&s->items, sizeof *s->items, &s->c.n_items, &s->cap[2],
                    &s->on[SCRIPT_KIND_ITEM]);
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
    fld_on(L, &d, &s->on[SCRIPT_KIND_ITEM][k * EV_TYPES]);
    return 0;
}

static int decl_effect(lua_State *L)
{
    decl_t d = decl_begin(L, "effect");
    script_content_t *s = d.s;
    int k = sc_grow((void **)&s->effects, sizeof *s->effects, &s->c.n_effects, &s->cap[3], NULL);
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
    script_content_t *s = d.s;
    uint16_t n = s->c.n_regions, cap = s->cap[4];
    int k = sc_grow((void **)&s->regions, sizeof *s->regions, &s->c.n_regions, &s->cap[4], NULL);
    uint16_t n2 = n, cap2 = cap;
    if (k < 0 || sc_grow((void **)&s->rdecl, sizeof *s->rdecl, &n2, &cap2, NULL) < 0)
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
    r->flags = (uint8_t)(fld_bool(L, &d, "dark", 0) ? RF_DARK : 0);
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
    script_content_t *s = d.s;
    int k = sc_grow((void **)&s->vdecl, sizeof *s->vdecl, &s->n_vdecl, &s->cap[5], NULL);
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
    static const char *const ACTIONS[TRAP_ACTIONS] = TRAP_ACTION_NAMES;
    decl_t d = decl_begin(L, "trap");
    script_content_t *s = d.s;
    int k = sc_grow((void **)&s->traps, sizeof *s->traps, &s->c.n_traps, &s->cap[9], NULL);
    if (k < 0)
        return luaL_error(L, "out of memory");
    trap_kind_t *t = &s->traps[k];
    fld_str(L, &d, "name", t->name, sizeof t->name, 1);
    t->action = (uint8_t)fld_enum(L, &d, "action", ACTIONS, TRAP_ACTIONS, TRAP_DAMAGE);
    t->dtype = (uint8_t)fld_enum(L, &d, "dtype", DAMAGE_NAMES, DT_COUNT, DT_HIT);
    t->dice = fld_dice(L, &d, "dice", (dice_t){1, 6, 0});
    t->effect = (int16_t)fld_kind(L, &d, "effect", find_effect);
    if ((t->action == TRAP_EFFECT) != (t->effect >= 0))
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

static const luaL_Reg DECLS[] = {{"terrain", decl_terrain},   {"spell", decl_spell},
                                 {"creature", decl_creature}, {"item", decl_item},
                                 {"effect", decl_effect},     {"oddment", decl_oddment},
                                 {"rules", decl_rules},       {"region", decl_region},
                                 {"vault", decl_vault},       {"room", decl_room},
                                 {"trap", decl_trap},         {"race", decl_race},
                                 {"class", decl_class},       {NULL, NULL}};

/* ---- the loader ------------------------------------------------------------------- */

enum { LOAD_MEM_CAP = 64 << 20, LOAD_BUDGET = 20000000 };

/* Loads and runs one file in the sandbox (env at index 1); leaves its results. */
static int load_run(lua_State *L, script_mem_t *m, const char *path, int nres, char *err,
                    size_t errlen)
{
    int rc = luaL_loadfilex(L, path, "t");
    if (rc == LUA_OK) {
        lua_pushvalue(L, 1);
        lua_setupvalue(L, -2, 1);
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, LOAD_BUDGET);
        rc = lua_pcall(L, 0, nres, 0);
        lua_sethook(L, NULL, 0, 0);
    }
    if (rc == LUA_OK)
        return 0;
    const char *msg = lua_tostring(L, -1);
    if (rc == LUA_ERRMEM || m->mem_failed)
        snprintf(err, errlen, "%s: content memory cap exceeded", path);
    else if (rc == LUA_ERRFILE)
        snprintf(err, errlen, "%s: cannot be read", path);
    else
        snprintf(err, errlen, "%s", msg ? msg : "error");
    return -1;
}

static int load_modules(lua_State *L, script_mem_t *m, const char *dir, char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/modules.lua", dir);
    if (load_run(L, m, path, 1, err, errlen) < 0)
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
        if (load_run(L, m, mod, 0, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* The tables the engine needs whole, checked once everything is declared. */
static int load_check(script_content_t *s, const char *where, char *err, size_t errlen)
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
    s->c.terrain = s->terrain;
    s->c.spells = s->spells;
    s->c.creatures = s->creatures;
    s->c.items = s->items;
    s->c.effects = s->effects;
    /* the tables mapgen reads, now that nothing moves any more */
    size_t nr = s->c.n_regions ? s->c.n_regions : 1, nv = s->n_vdecl ? s->n_vdecl : 1;
    s->rtypes = calloc(nr, sizeof *s->rtypes);
    s->vaults = calloc(nv, sizeof *s->vaults);
    if (!s->rtypes || !s->vaults)
        return snprintf(err, errlen, "content: out of memory"), -1;
    for (int i = 0; i < s->c.n_regions; i++) {
        s->rtypes[i] = s->rdecl[i];
        s->rtypes[i].name = s->regions[i].name;
    }
    for (int i = 0; i < s->n_vdecl; i++) {
        const vault_decl_t *v = &s->vdecl[i];
        s->vaults[i] =
            (mapgen_vault_t){v->name, v->rows, v->legend, v->min_depth, v->max_depth, v->weight};
    }
    s->c.regions = s->regions;
    s->c.races = s->races;
    s->c.classes = s->classes;
    s->c.traps = s->traps;
    s->c.rtypes = s->c.n_regions ? s->rtypes : NULL;
    s->c.vaults = s->n_vdecl ? s->vaults : NULL;
    s->c.n_vaults = s->n_vdecl;
    return 0;
}

/* paths NULL: dir's modules.lua names the files; else paths[0..n) in order.
 * where: what a whole-content error names ("dir/modules.lua:1"). */
static content_t *load_common(const char *dir, const char *const *paths, int n, const char *where,
                              char *err, size_t errlen)
{
    char scratch[8];
    if (!err || !errlen)
        err = scratch, errlen = sizeof scratch;
    script_content_t *s = calloc(1, sizeof *s);
    script_mem_t m;
    lua_State *L = s ? state_new(&m, LOAD_MEM_CAP) : NULL;
    if (!L) {
        free(s);
        snprintf(err, errlen, "content: out of memory");
        return NULL;
    }
    s->magic = SCRIPT_MAGIC;
    s->c.scripts = &s->c;
    snprintf(s->c.version, sizeof s->c.version, "lua");
    s->c.handlers = RULES_HANDLERS;
    s->c.n_handlers = H_COUNT;
    s->c.hooks = RULES_HOOKS;
    s->c.n_hooks = HK_COUNT;
    sandbox_push(L);
    lua_pushlightuserdata(L, s);
    luaL_setfuncs(L, DECLS, 1);
    sandbox_proxy(L); /* index 1: the modules' environment */
    int rc = 0;
    if (!paths)
        rc = load_modules(L, &m, dir, err, errlen);
    for (int i = 0; paths && i < n && rc == 0; i++)
        rc = load_run(L, &m, paths[i], 0, err, errlen);
    lua_close(L);
    if (rc < 0 || load_check(s, where, err, errlen) < 0) {
        script_content_free(&s->c);
        return NULL;
    }
    return &s->c;
}

/* ---- the vm ------------------------------------------------------------------------ */

struct script_vm {
    script_mem_t mem;
    lua_State *L;
    int env;                  /* registry ref of the sandbox */
    int keys;                 /* registry ref of the event view's names (keys_push) */
    const content_t *content; /* whose handlers `refs` caches */
    int *refs;                /* [ref - 1]: registry ref of the loaded function, 0 = not yet */
    int n_refs;
    script_event_t *cur; /* the event of the running call (for e.rand) */
};

static void keys_push(lua_State *L, int rand);

static int vm_rand(lua_State *L)
{
    script_vm_t *vm = lua_touserdata(L, lua_upvalueindex(1));
    lua_Integer n = luaL_checkinteger(L, 1);
    if (n < 1 || n > UINT32_MAX)
        return luaL_error(L, "rand: n must be from 1 to 2^32-1");
    if (!vm->cur || !vm->cur->rand)
        return luaL_error(L, "rand: no random source for this event");
    lua_pushinteger(L, vm->cur->rand(vm->cur->rand_ctx, (uint32_t)n));
    return 1;
}

script_vm_t *script_vm_new(void)
{
    script_vm_t *vm = calloc(1, sizeof *vm);
    if (!vm)
        return NULL;
    vm->L = state_new(&vm->mem, SIZE_MAX);
    if (!vm->L) {
        free(vm);
        return NULL;
    }
    lua_gc(vm->L, LUA_GCGEN, 0, 0); /* each call leaves young garbage around an old, fixed state */
    sandbox_push(vm->L);
    lua_pushlightuserdata(vm->L, vm);
    lua_pushcclosure(vm->L, vm_rand, 1);
    int rand = luaL_ref(vm->L, LUA_REGISTRYINDEX);
    keys_push(vm->L, rand);
    vm->keys = luaL_ref(vm->L, LUA_REGISTRYINDEX);
    sandbox_proxy(vm->L);
    vm->env = luaL_ref(vm->L, LUA_REGISTRYINDEX);
    return vm;
}

void script_vm_forget(script_vm_t *vm, const content_t *c)
{
    if (!vm || (c && c != vm->content))
        return;
    for (int i = 0; i < vm->n_refs; i++)
        luaL_unref(vm->L, LUA_REGISTRYINDEX, vm->refs[i]);
    free(vm->refs);
    vm->refs = NULL;
    vm->n_refs = 0;
    vm->content = NULL;
}

void script_vm_free(script_vm_t *vm)
{
    if (!vm)
        return;
    script_vm_forget(vm, NULL);
    lua_close(vm->L);
    free(vm);
}

typedef struct {
    const script_fn_t *fn;
    int done;
} fnreader_t;

static const char *fn_read(lua_State *L, void *ud, size_t *size)
{
    (void)L;
    fnreader_t *r = ud;
    if (r->done)
        return *size = 0, NULL;
    r->done = 1;
    *size = r->fn->len;
    return r->fn->code;
}

/* Pushes handler ref of s, loading and binding it on first use; 0 or -1. */
static int vm_push_fn(script_vm_t *vm, const script_content_t *s, int ref)
{
    lua_State *L = vm->L;
    if (vm->content != &s->c) {
        script_vm_forget(vm, NULL);
        vm->refs = calloc((size_t)s->n_fns + 1, sizeof *vm->refs);
        if (!vm->refs)
            return -1;
        vm->n_refs = s->n_fns;
        vm->content = &s->c;
    }
    if (vm->refs[ref - 1]) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, vm->refs[ref - 1]);
        return 0;
    }
    fnreader_t r = {&s->fns[ref - 1], 0};
    if (lua_load(L, fn_read, &r, s->fns[ref - 1].where, "b") != LUA_OK)
        return -1;
    if (lua_getupvalue(L, -1, 1)) { /* its only upvalue is _ENV (checked at load) */
        lua_pop(L, 1);
        lua_rawgeti(L, LUA_REGISTRYINDEX, vm->env);
        lua_setupvalue(L, -2, 1);
    }
    lua_pushvalue(L, -1);
    vm->refs[ref - 1] = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* The event view's field names and value strings, interned once per vm in
 * a table (vm->keys) so a call never hashes a C string. */
enum {
    K_RAND = 1,
    K_TYPE,
    K_PHASE,
    K_DTYPE,
    K_AMOUNT,
    K_AMOUNT2,
    K_AMOUNT3,
    K_FLAGS,
    K_SPELL,
    K_HEAL,
    K_SLOW,
    K_FIELDS,
    V_EVENT = K_FIELDS,
    V_PHASE = V_EVENT + EV_TYPES,
    V_DAMAGE = V_PHASE + 3,
    V_END = V_DAMAGE + SCRIPT_DT_COUNT
};
static const char *const KEY_NAMES[K_FIELDS] = {"",      "rand",   "type",    "phase",
                                                "dtype", "amount", "amount2", "amount3",
                                                "flags", "spell",  "heal",    "slow"};

/* Pushes the keys table: [K_*] field names, [V_*] lower-case value names. */
static void keys_push(lua_State *L, int rand)
{
    char low[32];
    lua_createtable(L, V_END, 0);
    for (int i = 1; i < K_FIELDS; i++) {
        lua_pushstring(L, KEY_NAMES[i]);
        lua_rawseti(L, -2, i);
    }
    for (int i = 0; i < EV_TYPES; i++) {
        lower_copy(low, sizeof low, EVENT_NAMES[i]);
        lua_pushstring(L, low);
        lua_rawseti(L, -2, V_EVENT + i);
    }
    for (int i = 0; i < 3; i++) {
        lua_pushstring(L, PHASE_NAMES[i]);
        lua_rawseti(L, -2, V_PHASE + i);
    }
    for (int i = 0; i < SCRIPT_DT_COUNT; i++) {
        lower_copy(low, sizeof low, DAMAGE_NAMES[i]);
        lua_pushstring(L, low);
        lua_rawseti(L, -2, V_DAMAGE + i);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, rand);
    lua_rawseti(L, -2, V_END);
}

/* t[keys[k]] = keys[v] or the value on top (v == 0). */
static void ev_set(lua_State *L, int kt, int t, int k, int v)
{
    lua_rawgeti(L, kt, k);
    if (v)
        lua_rawgeti(L, kt, v);
    else
        lua_rotate(L, -2, 1);
    lua_rawset(L, t);
}

/* Pushes a fresh event table for e (keys at kt). */
static void ev_push(lua_State *L, int kt, const script_event_t *e)
{
    lua_createtable(L, 0, 12);
    int t = lua_gettop(L);
    ev_set(L, kt, t, K_RAND, V_END);
    ev_set(L, kt, t, K_TYPE, V_EVENT + (e->type < EV_TYPES ? e->type : 0));
    ev_set(L, kt, t, K_PHASE, V_PHASE + (e->phase < 3 ? e->phase : 0));
    ev_set(L, kt, t, K_DTYPE, V_DAMAGE + (e->dtype < SCRIPT_DT_COUNT ? e->dtype : 0));
    const int32_t nums[] = {e->amount[0],      e->amount[1], e->amount[2],
                            (int32_t)e->flags, e->heal,      e->slow};
    const int keys[] = {K_AMOUNT, K_AMOUNT2, K_AMOUNT3, K_FLAGS, K_HEAL, K_SLOW};
    for (int i = 0; i < 6; i++) {
        lua_pushinteger(L, keys[i] == K_FLAGS ? (lua_Integer)e->flags : nums[i]);
        ev_set(L, kt, t, keys[i], 0);
    }
    lua_pushboolean(L, (e->flags & SCRIPT_EVF_SPELL) != 0);
    ev_set(L, kt, t, K_SPELL, 0);
}

/* Pushes t[keys[k]]. */
static int ev_get(lua_State *L, int kt, int t, int k)
{
    lua_rawgeti(L, kt, k);
    return lua_rawget(L, t);
}

/* Reads a number field back; -1 when it is not an integer in range. */
static int ev_int(lua_State *L, int kt, int t, int k, lua_Integer lo, lua_Integer hi,
                  lua_Integer *out)
{
    int isint = 0;
    ev_get(L, kt, t, k);
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Copies the table at t into out; on a bad field names it in err. */
static int ev_read(lua_State *L, int kt, int t, script_event_t *out, char *err, size_t errlen)
{
    const int keys[] = {K_AMOUNT, K_AMOUNT2, K_AMOUNT3, K_HEAL, K_SLOW};
    int32_t *dst[] = {&out->amount[0], &out->amount[1], &out->amount[2], &out->heal, &out->slow};
    lua_Integer v;
    for (int i = 0; i < 5; i++) {
        if (ev_int(L, kt, t, keys[i], INT32_MIN, INT32_MAX, &v) < 0)
            return snprintf(err, errlen, "e.%s must be an integer", KEY_NAMES[keys[i]]), -1;
        *dst[i] = (int32_t)v;
    }
    if (ev_int(L, kt, t, K_FLAGS, 0, UINT32_MAX, &v) < 0)
        return snprintf(err, errlen, "e.flags must be an integer"), -1;
    ev_get(L, kt, t, K_SPELL);
    out->flags =
        ((uint32_t)v & ~(uint32_t)SCRIPT_EVF_SPELL) | (lua_toboolean(L, -1) ? SCRIPT_EVF_SPELL : 0);
    lua_pop(L, 1);
    ev_get(L, kt, t, K_DTYPE);
    int k = -1;
    for (int i = 0; i < SCRIPT_DT_COUNT && k < 0; i++) { /* interned: compare as Lua values */
        lua_rawgeti(L, kt, V_DAMAGE + i);
        if (lua_rawequal(L, -1, -2))
            k = i;
        lua_pop(L, 1);
    }
    const char *dt = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    if (k < 0)
        snprintf(err, errlen, "e.dtype: unknown damage type '%s'", dt);
    lua_pop(L, 1);
    if (k < 0)
        return -1;
    out->dtype = (uint8_t)k;
    return 0;
}

/* The handler's result: EV_NOTHING, EV_DONE, or -1 for anything else. */
static int ev_result(lua_State *L, int idx)
{
    if (lua_isnil(L, idx))
        return EV_NOTHING;
    const char *r = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    if (r && strcmp(r, "done") == 0)
        return EV_DONE;
    if (r && strcmp(r, "nothing") == 0)
        return EV_NOTHING;
    return -1;
}

int script_call_handler(script_vm_t *vm, const content_t *c, int ref, script_event_t *e, char *err,
                        size_t errlen)
{
    char scratch[8];
    if (!err || !errlen)
        err = scratch, errlen = sizeof scratch;
    const script_content_t *s = sc_of(c);
    if (!vm || !s || !e || ref < 1 || ref > s->n_fns) {
        snprintf(err, errlen, "script: bad handler %d", ref);
        return SCRIPT_ERR_BAD;
    }
    lua_State *L = vm->L;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, vm->keys); /* 1: keys, 2: event, 3: function */
    ev_push(L, 1, e);
    if (vm_push_fn(vm, s, ref) < 0) {
        snprintf(err, errlen, "%s: handler cannot be loaded", s->fns[ref - 1].where);
        lua_settop(L, 0);
        return SCRIPT_ERR_BAD;
    }
    lua_pushvalue(L, 2);
    vm->cur = e;
    vm->mem.mem_failed = vm->mem.over_budget = 0;
    vm->mem.limit = vm->mem.used + SCRIPT_MEM_CAP;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, SCRIPT_BUDGET_INSTR);
    int rc = lua_pcall(L, 1, 1, 0);
    lua_sethook(L, NULL, 0, 0);
    vm->mem.limit = SIZE_MAX;
    vm->cur = NULL;
    int out = SCRIPT_ERR_RUNTIME;
    script_event_t next = *e;
    if (rc != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        if (vm->mem.mem_failed || rc == LUA_ERRMEM) {
            out = SCRIPT_ERR_MEMORY;
            snprintf(err, errlen, "%s: memory cap exceeded", s->fns[ref - 1].where);
        } else {
            out = vm->mem.over_budget ? SCRIPT_ERR_BUDGET : SCRIPT_ERR_RUNTIME;
            snprintf(err, errlen, "%s", msg ? msg : "error");
        }
    } else if ((out = ev_result(L, -1)) < 0) {
        out = SCRIPT_ERR_RUNTIME;
        snprintf(err, errlen, "%s: a handler returns \"done\", \"nothing\" or nil",
                 s->fns[ref - 1].where);
    } else if (ev_read(L, 1, 2, &next, err, errlen) < 0) {
        char m[160];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, errlen, "%s: %s", s->fns[ref - 1].where, m);
        out = SCRIPT_ERR_RUNTIME;
    } else {
        *e = next;
    }
    lua_settop(L, 0);
    return out;
}

content_t *script_content_load(const char *dir, char *err, size_t errlen)
{
    char where[512];
    snprintf(where, sizeof where, "%s/modules.lua:1", dir ? dir : "game/content");
    return load_common(dir ? dir : "game/content", NULL, 0, where, err, errlen);
}

content_t *script_content_load_files(const char *const *paths, int n, char *err, size_t errlen)
{
    char where[512];
    snprintf(where, sizeof where, "%s:1", n > 0 ? paths[n - 1] : "(no files)");
    return load_common(".", paths, n, where, err, errlen);
}
