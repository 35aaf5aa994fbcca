/* script — the Lua sandbox and the handlers' vm (see script.h).
 *
 * Two kinds of Lua state, both on a counting allocator with a cap and a
 * count hook: the loader's (one per content load, closed before the load
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
#include "verb.h"

/* ---- names ----------------------------------------------------------------- */

#define SCRIPT_NAME_(n) #n,
static const char *const EVENT_NAMES[EV_TYPES] = {"NONE", EVENT_LIST(SCRIPT_NAME_)};
static const char *const DAMAGE_NAMES[DT_COUNT] = {DAMAGE_LIST(SCRIPT_NAME_)};
#undef SCRIPT_NAME_
static const char *const PHASE_NAMES[] = {"pre", "main", "post"};
static const char *const ME_NAMES[] = {"actor", "victim", "item"};
#define SCRIPT_VERB_NAME_(id, fn, sig, ask) #id,
#define SCRIPT_VERB_SIG_(id, fn, sig, ask)  sig,
#define SCRIPT_VERB_ASK_(id, fn, sig, ask)  ask,
static const char *const VERB_IDS[VERBS] = {VERB_LIST(SCRIPT_VERB_NAME_)};
static const char *const VERB_SIGS[VERBS] = {VERB_LIST(SCRIPT_VERB_SIG_)};
static const bool VERB_ASK[VERBS] = {VERB_LIST(SCRIPT_VERB_ASK_)};
#undef SCRIPT_VERB_NAME_
#undef SCRIPT_VERB_SIG_
#undef SCRIPT_VERB_ASK_

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
void script_sandbox_seal(lua_State *L)
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
        script_sandbox_seal(L);
        lua_setfield(L, -2, SAFE_LIBS[i]);
    }
}

static lua_State *state_new(script_mem_t *m, size_t limit)
{
    memset(m, 0, sizeof *m);
    m->limit = limit;
    return lua_newstate(mem_alloc, m);
}

/* ---- the loader's states --------------------------------------------------------- */

lua_State *script_state_new(size_t mem_cap)
{
    script_mem_t *m = malloc(sizeof *m);
    lua_State *L = m ? state_new(m, mem_cap) : NULL;
    if (!L) {
        free(m);
        return NULL;
    }
    sandbox_push(L);
    return L;
}

void script_state_close(lua_State *L)
{
    void *m;
    lua_getallocf(L, &m);
    lua_close(L);
    free(m);
}

int script_run_file(lua_State *L, const char *path, int nres, int budget, char *err, size_t errlen)
{
    int status = luaL_loadfilex(L, path, "t");
    if (status == LUA_OK) {
        lua_pushvalue(L, 1);
        lua_setupvalue(L, -2, 1);
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, budget);
        status = lua_pcall(L, 0, nres, 0);
        lua_sethook(L, NULL, 0, 0);
    }
    if (status == LUA_OK)
        return 0;
    void *ud;
    lua_getallocf(L, &ud);
    const char *msg = lua_tostring(L, -1);
    if (status == LUA_ERRMEM || ((script_mem_t *)ud)->mem_failed)
        snprintf(err, errlen, "%s: content memory cap exceeded", path);
    else if (status == LUA_ERRFILE)
        snprintf(err, errlen, "%s: cannot be read", path);
    else
        snprintf(err, errlen, "%s", msg ? msg : "error");
    return -1;
}

/* ---- the handlers a content carries ------------------------------------------------ */

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

int script_handlers_add(lua_State *L, script_handlers_t *h, char *local, size_t n)
{
    const char *up;
    for (int i = 1; (up = lua_getupvalue(L, -1, i)) != NULL; i++) {
        lua_pop(L, 1);
        if (strcmp(up, "_ENV") != 0) {
            snprintf(local, n, "%s", up);
            lua_pop(L, 1);
            return 0;
        }
    }
    if (h->n_fns == h->cap_fns) {
        int nc = h->cap_fns ? h->cap_fns * 2 : 8;
        script_fn_t *p = realloc(h->fns, (size_t)nc * sizeof *p);
        if (!p)
            return lua_pop(L, 1), -1;
        h->fns = p;
        h->cap_fns = nc;
    }
    dumpbuf_t b = {0};
    lua_dump(L, dump_write, &b, 0);
    if (b.failed) {
        free(b.p);
        return lua_pop(L, 1), -1;
    }
    script_fn_t *fn = &h->fns[h->n_fns++];
    fn->code = b.p;
    fn->len = b.n;
    lua_Debug ar;
    lua_getinfo(L, ">S", &ar); /* pops the function */
    snprintf(fn->where, sizeof fn->where, "%s:%d", ar.short_src, ar.linedefined);
    return h->n_fns;
}

void script_handlers_free(script_handlers_t *h)
{
    for (int i = 0; i < h->n_fns; i++)
        free(h->fns[i].code);
    free(h->fns);
    for (int i = 0; i < SCRIPT_KIND_CLASSES; i++)
        free(h->on[i]);
    memset(h, 0, sizeof *h);
}

int script_kind_handler(const content_t *c, script_kind_class_t cls, uint16_t kind,
                        uint16_t ev_type)
{
    const script_handlers_t *h = c ? c->scripts : NULL;
    if (!h || cls >= SCRIPT_KIND_CLASSES || ev_type >= EV_TYPES || !h->on[cls])
        return 0;
    uint16_t n = cls == SCRIPT_KIND_CREATURE ? c->n_creatures : c->n_items;
    return kind < n ? h->on[cls][kind * EV_TYPES + ev_type] : 0;
}

/* ---- the vm ------------------------------------------------------------------------ */

struct script_vm {
    script_mem_t mem;
    lua_State *L;
    int env;                         /* registry ref of the sandbox */
    int keys;                        /* registry ref of the event view's names (keys_push) */
    int verbs;                       /* registry ref of the event view's metatable (verbs_push) */
    const script_handlers_t *cached; /* whose handlers `refs` caches */
    int *refs; /* [ref - 1]: registry ref of the loaded function, 0 = not yet */
    int n_refs;
    script_event_t *cur; /* the event of the running call (for e.rand) */
};

static void keys_push(lua_State *L, int rand);
static void verbs_push(lua_State *L, script_vm_t *vm);

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
    verbs_push(vm->L, vm);
    vm->verbs = luaL_ref(vm->L, LUA_REGISTRYINDEX);
    script_sandbox_seal(vm->L);
    vm->env = luaL_ref(vm->L, LUA_REGISTRYINDEX);
    return vm;
}

void script_vm_forget(script_vm_t *vm, const content_t *c)
{
    if (!vm || (c && c->scripts != vm->cached))
        return;
    for (int i = 0; i < vm->n_refs; i++)
        luaL_unref(vm->L, LUA_REGISTRYINDEX, vm->refs[i]);
    free(vm->refs);
    vm->refs = NULL;
    vm->n_refs = 0;
    vm->cached = NULL;
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

/* Pushes handler ref of h, loading and binding it on first use; 0 or -1. */
static int vm_push_fn(script_vm_t *vm, const script_handlers_t *h, int ref)
{
    lua_State *L = vm->L;
    if (vm->cached != h) {
        script_vm_forget(vm, NULL);
        vm->refs = calloc((size_t)h->n_fns + 1, sizeof *vm->refs);
        if (!vm->refs)
            return -1;
        vm->n_refs = h->n_fns;
        vm->cached = h;
    }
    if (vm->refs[ref - 1]) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, vm->refs[ref - 1]);
        return 0;
    }
    fnreader_t r = {&h->fns[ref - 1], 0};
    if (lua_load(L, fn_read, &r, h->fns[ref - 1].where, "b") != LUA_OK)
        return -1;
    if (lua_getupvalue(L, -1, 1)) { /* its only upvalue is _ENV (checked when kept) */
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
    K_ME,
    K_DEALT,
    K_FIELDS,
    V_EVENT = K_FIELDS,
    V_PHASE = V_EVENT + EV_TYPES,
    V_ME = V_PHASE + 3,
    V_DAMAGE = V_ME + 3,
    V_END = V_DAMAGE + DT_COUNT
};
static const char *const KEY_NAMES[K_FIELDS] = {"",       "rand",    "type",    "phase", "dtype",
                                                "amount", "amount2", "amount3", "flags", "spell",
                                                "heal",   "slow",    "me",      "dealt"};

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
        lua_pushstring(L, ME_NAMES[i]);
        lua_rawseti(L, -2, V_ME + i);
    }
    for (int i = 0; i < DT_COUNT; i++) {
        lower_copy(low, sizeof low, DAMAGE_NAMES[i]);
        lua_pushstring(L, low);
        lua_rawseti(L, -2, V_DAMAGE + i);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, rand);
    lua_rawseti(L, -2, V_END);
}

/* ---- the verbs ------------------------------------------------------------------------ */

/* The arguments of a verb call by its signature into q (errors raise). */
static void verb_args(lua_State *L, int id, const char *name, script_call_t *q)
{
    const char *sig = VERB_SIGS[id];
    int n = (int)strlen(sig);
    if (lua_gettop(L) != n)
        luaL_error(L, "e.%s takes %d argument%s", name, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        int isint = 0, a = i + 1;
        if (sig[i] == 'w') {
            const char *w = lua_type(L, a) == LUA_TSTRING ? lua_tostring(L, a) : "";
            if (strcmp(w, "self") && strcmp(w, "other"))
                luaL_error(L, "e.%s: argument %d must be \"self\" or \"other\"", name, a);
            q->n[i] = w[0] == 'o';
        } else if (sig[i] == 'b') {
            luaL_checktype(L, a, LUA_TBOOLEAN);
            q->n[i] = lua_toboolean(L, a);
        } else if (sig[i] == 'n') {
            lua_Integer v = lua_tointegerx(L, a, &isint);
            if (!isint || v < INT32_MIN || v > INT32_MAX)
                luaL_error(L, "e.%s: argument %d must be an integer", name, a);
            q->n[i] = (int32_t)v;
        } else {
            size_t len = 0;
            const char *v = lua_type(L, a) == LUA_TSTRING ? lua_tolstring(L, a, &len) : NULL;
            if (!v || len >= sizeof q->s)
                luaL_error(L, "e.%s: argument %d must be a string under %d bytes", name, a,
                           (int)sizeof q->s);
            memcpy(q->s, v, len + 1);
        }
    }
}

/* e.NAME(...): a query answered now through the event's ask, or a deed
 * kept for the engine. Upvalues: the vm and the verb's id. */
static int vm_verb(lua_State *L)
{
    script_vm_t *vm = lua_touserdata(L, lua_upvalueindex(1));
    int id = (int)lua_tointeger(L, lua_upvalueindex(2));
    char name[24];
    lower_copy(name, sizeof name, VERB_IDS[id]);
    script_event_t *e = vm->cur;
    script_call_t q = {.verb = (uint16_t)id};
    verb_args(L, id, name, &q);
    if (!e)
        return luaL_error(L, "e.%s: no event under way", name);
    if (!VERB_ASK[id]) {
        if (e->ndeeds >= SCRIPT_DEEDS_MAX)
            return luaL_error(L, "e.%s: at most %d deeds a call", name, SCRIPT_DEEDS_MAX);
        e->deeds[e->ndeeds++] = q;
        return 0;
    }
    script_answer_t a = {0};
    char why[96] = "not asked in this event";
    if (!e->ask || e->ask(e->ask_ctx, &q, &a, why, sizeof why) < 0)
        return luaL_error(L, "e.%s: %s", name, why);
    if (a.kind == SCRIPT_BOOL)
        lua_pushboolean(L, a.v != 0);
    else if (a.kind == SCRIPT_INT)
        lua_pushinteger(L, a.v);
    else
        lua_pushnil(L);
    return 1;
}

/* Pushes the event view's metatable: its __index the verbs by name, its
 * own table out of a handler's reach. */
static void verbs_push(lua_State *L, script_vm_t *vm)
{
    char low[24];
    lua_createtable(L, 0, 2);
    lua_createtable(L, 0, VERBS);
    for (int i = 0; i < VERBS; i++) {
        lua_pushlightuserdata(L, vm);
        lua_pushinteger(L, i);
        lua_pushcclosure(L, vm_verb, 2);
        lower_copy(low, sizeof low, VERB_IDS[i]);
        lua_setfield(L, -2, low);
    }
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
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

/* Pushes a fresh event table for e (keys at kt), its verbs reached
 * through the vm's metatable (mt, a registry ref). */
static void ev_push(lua_State *L, int kt, const script_event_t *e, int mt)
{
    lua_createtable(L, 0, 14);
    int t = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, mt);
    lua_setmetatable(L, t);
    ev_set(L, kt, t, K_RAND, V_END);
    ev_set(L, kt, t, K_TYPE, V_EVENT + (e->type < EV_TYPES ? e->type : 0));
    ev_set(L, kt, t, K_PHASE, V_PHASE + (e->phase < 3 ? e->phase : 0));
    ev_set(L, kt, t, K_ME, V_ME + (e->me < 3 ? e->me : 0));
    lua_pushinteger(L, e->dealt);
    ev_set(L, kt, t, K_DEALT, 0);
    ev_set(L, kt, t, K_DTYPE, V_DAMAGE + (e->dtype < DT_COUNT ? e->dtype : 0));
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
    for (int i = 0; i < DT_COUNT && k < 0; i++) { /* interned: compare as Lua values */
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

/* Runs the function at 3 on the event table at 2 within the call's
 * budget and memory cap: lua_pcall's status, the result or error on top. */
static int vm_pcall(script_vm_t *vm, script_event_t *e)
{
    lua_State *L = vm->L;
    lua_pushvalue(L, 2);
    vm->cur = e;
    vm->mem.mem_failed = vm->mem.over_budget = 0;
    vm->mem.limit = vm->mem.used + SCRIPT_MEM_CAP;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, SCRIPT_BUDGET_INSTR);
    int status = lua_pcall(L, 1, 1, 0);
    lua_sethook(L, NULL, 0, 0);
    vm->mem.limit = SIZE_MAX;
    vm->cur = NULL;
    return status;
}

/* What a finished call gives: e updated and EV_NOTHING or EV_DONE, or a
 * SCRIPT_ERR_* with its message in err (e untouched). */
static int vm_outcome(script_vm_t *vm, int status, const char *where, script_event_t *e, char *err,
                      size_t errlen)
{
    lua_State *L = vm->L;
    int out;
    script_event_t next = *e;
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        if (vm->mem.mem_failed || status == LUA_ERRMEM) {
            snprintf(err, errlen, "%s: memory cap exceeded", where);
            return SCRIPT_ERR_MEMORY;
        }
        snprintf(err, errlen, "%s", msg ? msg : "error");
        return vm->mem.over_budget ? SCRIPT_ERR_BUDGET : SCRIPT_ERR_RUNTIME;
    }
    if ((out = ev_result(L, -1)) < 0) {
        snprintf(err, errlen, "%s: a handler returns \"done\", \"nothing\" or nil", where);
        return SCRIPT_ERR_RUNTIME;
    }
    if (ev_read(L, 1, 2, &next, err, errlen) < 0) {
        char m[160];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, errlen, "%s: %s", where, m);
        return SCRIPT_ERR_RUNTIME;
    }
    *e = next;
    return out;
}

int script_call_handler(script_vm_t *vm, const content_t *c, int ref, script_event_t *e, char *err,
                        size_t errlen)
{
    char scratch[8];
    if (!err || !errlen)
        err = scratch, errlen = sizeof scratch;
    const script_handlers_t *h = c ? c->scripts : NULL;
    if (!vm || !h || !e || ref < 1 || ref > h->n_fns) {
        snprintf(err, errlen, "script: bad handler %d", ref);
        return SCRIPT_ERR_BAD;
    }
    lua_State *L = vm->L;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, vm->keys); /* 1: keys, 2: event, 3: function */
    ev_push(L, 1, e, vm->verbs);
    if (vm_push_fn(vm, h, ref) < 0) {
        snprintf(err, errlen, "%s: handler cannot be loaded", h->fns[ref - 1].where);
        lua_settop(L, 0);
        return SCRIPT_ERR_BAD;
    }
    int ndeeds = e->ndeeds;
    int out = vm_outcome(vm, vm_pcall(vm, e), h->fns[ref - 1].where, e, err, errlen);
    if (out < 0)
        e->ndeeds = ndeeds; /* a failing handler asks for nothing */
    lua_settop(L, 0);
    return out;
}
