/* script — content as Lua modules, and sandboxed Lua handlers.
 *
 * script_content_load reads dir/modules.lua (it returns a list of module
 * file names, loaded in that order) and runs each module with Lua 5.4 in a
 * restricted environment that offers declaration functions:
 *
 *     terrain  { name=, glyph=, fg=, passable=, opaque=, join="line"|"edge" }
 *                                               -- mapgen order
 *     spell    { name=, mana=, effect="bolt"|"heal", dtype="fire", dice="3d6" }
 *                                               -- id order (saved sets)
 *     creature { name=, glyph=, fg=, gender=, speed=, hp="1d4+1",
 *                attack="1d2", to_hit=, defence=, like="kobold",
 *                handlers = {"poison_bite"}, on = { damage = function(e) end } }
 *     item     { name=, glyph=, fg=, handlers=, on= }
 *     effect   { name=, tag=, stacking="add", interval=, start=, tick=, finish= }
 *     oddment  { creature="jackal", min_depth=1, weight=30 }  -- generation
 *     region   { name=, min_depth=, max_depth=, weight=, shapes={"rooms"},
 *                lit=, dark=, handlers={"slippery"} }  -- named regions
 *     vault    { name=, rows=[[...]], legend=, min_depth=, max_depth=, weight= }
 *     room     { shape="circle", weight=10 }            -- room shape weights
 *     rules    { player="you", poison="poison", slow="slow" }
 *
 * A later module may name earlier kinds (like=, oddment, rules, and the
 * spells= and learns= of creatures and classes). Code handler and hook
 * ids are named as in rules.h's lists, lower case ("poison_bite",
 * "poison_tick"). The result is freshly allocated plain C
 * tables (content.h) plus the compiled `on` handlers; on any error nothing
 * is kept, NULL is returned and err holds "file:line: what is wrong".
 * Free with script_content_free (not content_free).
 *
 * Handlers run through a script_vm_t: one Lua state per thread, lent to
 * each call. A call gets a fresh event table, sees only a read-only sandbox
 * (no io, os, require, load, dofile, debug, collectgarbage, string.dump,
 * rawset; writes to globals fail), has an instruction budget and a memory
 * cap, and draws randomness only through e.rand(n), which calls the
 * engine's function in the event view. Handlers may not capture module
 * locals (checked at load), so nothing survives between calls. */
#ifndef WARREN_SCRIPT_H
#define WARREN_SCRIPT_H
#include <stddef.h>
#include <stdint.h>
#include "content.h"

/* Damage types and flags are event.h's (DT_*, EVF_*); scripts name
 * damage types in lower case ("lightning") and see EVF_SPELL as e.spell. */
#define SCRIPT_DAMAGE_LIST DAMAGE_LIST
enum { SCRIPT_DT_COUNT = DT_COUNT, SCRIPT_EVF_SPELL = EVF_SPELL };

typedef enum {
    SCRIPT_KIND_CREATURE = 0,
    SCRIPT_KIND_ITEM,
    SCRIPT_KIND_CLASSES
} script_kind_class_t;

/* The plain-C view of an event a handler reads and may change. In Lua:
 * e.type, e.phase, e.dtype (names, lower case), e.amount (= amount[0]),
 * e.amount2, e.amount3, e.spell (bool), e.flags, e.heal, e.slow (outputs
 * the engine applies to self), e.rand(n) -> 0..n-1. Only numbers and the
 * dtype name are read back. */
typedef struct {
    uint16_t type; /* ev_type_t */
    uint8_t phase; /* ev_phase_t */
    uint8_t dtype; /* DT_* */
    int32_t amount[3];
    uint32_t flags;                          /* EVF_* */
    int32_t heal;                            /* hit points self regains */
    int32_t slow;                            /* turns self is slowed */
    uint32_t (*rand)(void *ctx, uint32_t n); /* the engine's RNG; NULL: e.rand errors */
    void *rand_ctx;
} script_event_t;

/* Loads dir's modules; NULL and "file:line: what is wrong" on failure. */
content_t *script_content_load(const char *dir, char *err, size_t errlen);
/* The same from a list of file paths loaded in order (no modules.lua). */
content_t *script_content_load_files(const char *const *paths, int n, char *err, size_t errlen);
void script_content_free(content_t *c);
/* The `on` handler of a kind for an event type: a ref > 0, or 0 for none. */
int script_kind_handler(const content_t *c, script_kind_class_t cls, uint16_t kind,
                        uint16_t ev_type);
/* Where a handler was declared ("file:line"), for messages; "" if unknown. */
const char *script_handler_where(const content_t *c, int ref);

/* Limits per handler call. */
enum { SCRIPT_BUDGET_INSTR = 100000, SCRIPT_MEM_CAP = 256 * 1024 };

typedef struct script_vm script_vm_t;
script_vm_t *script_vm_new(void); /* NULL on OOM */
void script_vm_free(script_vm_t *vm);
/* Drops what vm cached for c; call before freeing a content vm has run. */
void script_vm_forget(script_vm_t *vm, const content_t *c);

enum {
    SCRIPT_OK = 0,
    SCRIPT_ERR_BAD = -1,
    SCRIPT_ERR_RUNTIME = -2,
    SCRIPT_ERR_BUDGET = -3,
    SCRIPT_ERR_MEMORY = -4
};
/* Runs handler ref of content c on e. Returns EV_NOTHING or EV_DONE (the
 * handler returned "done"), or a SCRIPT_ERR_* with the message ("file:line:
 * ...") in err; on error e is left as it was (the event goes on as if the
 * handler returned NOTHING). */
int script_call_handler(script_vm_t *vm, const content_t *c, int ref, script_event_t *e, char *err,
                        size_t errlen);

#endif
