/* script — the Lua sandbox, and the vm that runs content's handlers.
 *
 * Content kinds may carry Lua handlers (a creature's or item's `on =
 * { damage = function(e) ... end }`, declare.h). The declaration loader
 * keeps each one as bytecode in the content's script_handlers_t; at play
 * they run through a script_vm_t: one Lua state per thread, lent to each
 * call. A call gets a fresh event table, sees only a read-only sandbox (no
 * io, os, require, load, dofile, debug, collectgarbage, string.dump,
 * rawset; writes to globals fail), has an instruction budget and a memory
 * cap, and draws randomness only through e.rand(n), which calls the
 * engine's function in the event view. Handlers may not capture module
 * locals (checked when they are kept), so nothing survives between calls.
 *
 * The loader runs the content's declaration files in the same sandbox, in
 * a Lua state of its own (script_state_new: its own allocator cap, budget
 * per file); the last part of this header is that side. */
#ifndef WARREN_SCRIPT_H
#define WARREN_SCRIPT_H
#include <stddef.h>
#include <stdint.h>
#include "content.h"

/* Damage types and flags are event.h's (DT_*, EVF_*); scripts name
 * damage types in lower case ("lightning") and see EVF_SPELL as e.spell. */
enum { SCRIPT_EVF_SPELL = EVF_SPELL };

/* The kinds that may carry `on` handlers. */
typedef enum {
    SCRIPT_KIND_CREATURE = 0,
    SCRIPT_KIND_ITEM,
    SCRIPT_KIND_CLASSES
} script_kind_class_t;

/* A call of one of the engine's verbs (verb.h) from a handler: its id and
 * arguments by its signature (w: 0 self, 1 other; b: 0 or 1; n: a
 * number; s: the one string). A query's answer: nothing, a boolean or an
 * integer. */
enum { SCRIPT_ARGS_MAX = 3, SCRIPT_STR_MAX = 96, SCRIPT_DEEDS_MAX = 8 };
typedef struct {
    uint16_t verb;
    int32_t n[SCRIPT_ARGS_MAX];
    char s[SCRIPT_STR_MAX];
} script_call_t;
enum { SCRIPT_NIL = 0, SCRIPT_BOOL, SCRIPT_INT };
typedef struct {
    uint8_t kind; /* SCRIPT_NIL, SCRIPT_BOOL or SCRIPT_INT */
    int32_t v;
} script_answer_t;

/* Whose handler runs: the event's actor, its victim, or an item in it. */
enum { SCRIPT_ME_ACTOR = 0, SCRIPT_ME_VICTIM, SCRIPT_ME_ITEM };

/* The plain-C view of an event a handler reads and may change. In Lua:
 * e.type, e.phase, e.dtype (names, lower case), e.me ("actor", "victim"
 * or "item"), e.amount (= amount[0]), e.amount2, e.amount3, e.dealt (the
 * damage a blow did, after armour; read only), e.spell (bool), e.flags,
 * e.heal, e.slow (outputs the engine applies to self), e.rand(n) ->
 * 0..n-1, and the verbs (verb.h): e.sees("other"), e.status("other",
 * "paralysis", 3)... A query calls ask at once (no ask: an error); a deed
 * is kept in deeds for the engine to do after the call. Only numbers, the
 * dtype name and the deeds are read back. */
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
    uint8_t me;    /* SCRIPT_ME_* */
    int32_t dealt; /* damage done, after armour (the POST phase of a damage) */
    /* a query's answer: 0, or -1 with why (a name that names nothing) */
    int (*ask)(void *ctx, const script_call_t *q, script_answer_t *out, char *why, size_t n);
    void *ask_ctx;
    script_call_t deeds[SCRIPT_DEEDS_MAX]; /* the deeds asked, in order (output) */
    int ndeeds;
} script_event_t;

/* A handler kept: the bytecode of a function whose only upvalue is _ENV
 * (rebound to the sandbox when a vm loads it), and where it was declared. */
typedef struct {
    char *code;
    size_t len;
    char where[96]; /* "file:line", for messages */
} script_fn_t;

/* The handlers a content carries (content_t.scripts). The loader fills it
 * (script_handlers_add, and the `on` tables, which it grows with its kind
 * tables) and frees it (script_handlers_free); then it is read-only. A
 * handler is named by its ref: its place in fns, from 1. */
typedef struct script_handlers {
    script_fn_t *fns; /* [ref - 1] */
    int n_fns, cap_fns;
    int32_t *on[SCRIPT_KIND_CLASSES]; /* [kind * EV_TYPES + ev_type]: a ref, 0 none */
} script_handlers_t;

/* The `on` handler of a kind for an event type: a ref > 0, or 0 for none. */
int script_kind_handler(const content_t *c, script_kind_class_t cls, uint16_t kind,
                        uint16_t ev_type);

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

/* ---- the loader's side (declare.c) ------------------------------------- */

struct lua_State;
/* A Lua state whose allocations stop at mem_cap bytes, with the libraries
 * open and a table of the sandbox's globals on top, to which the caller
 * adds its own functions before script_sandbox_seal. NULL on OOM. */
struct lua_State *script_state_new(size_t mem_cap);
void script_state_close(struct lua_State *L);
/* Replaces the table on top by a read-only view of it. */
void script_sandbox_seal(struct lua_State *L);
/* Loads the text file at path, runs it with the environment at index 1
 * and a budget of that many instructions, and leaves nres results: 0, or
 * -1 with "file:line: what" (or "path: ...") in err. */
int script_run_file(struct lua_State *L, const char *path, int nres, int budget, char *err,
                    size_t errlen);
/* Keeps the Lua function on top of L (popped) as h's next handler: its
 * ref (>= 1); 0 when it captures a local of its module (handlers keep no
 * state; the local's name into local[n]); -1 on OOM. */
int script_handlers_add(struct lua_State *L, script_handlers_t *h, char *local, size_t n);
/* Frees what h holds (not h). */
void script_handlers_free(script_handlers_t *h);

#endif
