/* declare — the content declarations: Lua modules into content tables.
 *
 * declare_load reads dir/modules.lua (it returns a list of module file
 * names, loaded in that order) and runs each module with Lua 5.4 in the
 * sandbox (script.h) with these declaration functions:
 *
 *     terrain  { name=, glyph=, fg=, passable=, opaque=, join="line"|"edge" }
 *                                               -- mapgen order
 *     spell    { name=, mana=, effect="bolt"|"heal"|..., dtype="fire",
 *                dice="3d6" }                   -- id order (saved sets)
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
 *     race, class, trap, ego, shop, prices, special_level, world
 *                                               -- see each decl_* in declare.c
 *
 * A later module may name earlier kinds (like=, oddment, rules, and the
 * spells= and learns= of creatures and classes). Code handler and hook
 * ids are named as in rules.h's lists, lower case ("poison_bite",
 * "poison_tick"), a spell's effect as in SPELL_EFFECT_LIST (spell.h). The
 * result is freshly allocated plain C tables (content.h) plus the `on`
 * handlers kept for the vm (content_t.scripts); on any error nothing is
 * kept, NULL is returned and err holds "file:line: what is wrong". */
#ifndef WARREN_DECLARE_H
#define WARREN_DECLARE_H
#include <stddef.h>
#include "content.h"

/* Loads dir's modules; NULL and "file:line: what is wrong" on failure. */
content_t *declare_load(const char *dir, char *err, size_t errlen);
/* The same from a list of file paths loaded in order (no modules.lua):
 * tests' own content, the content fuzz target. */
content_t *declare_load_files(const char *const *paths, int n, char *err, size_t errlen);
/* Frees content this module loaded (content_free calls it); anything
 * else is left alone. */
void declare_free(content_t *c);

#endif
