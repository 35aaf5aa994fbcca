/* snapshot — the whole state as one blob, and the state hash.
 *
 * Blob layout (little-endian):
 *   "WRNS"  u16 format version  u16 flags (0)
 *   u64 content id (FNV-1a of content_version)
 *   u32 raw length  u32 CRC-32 of every other byte of the blob
 *   zlib stream of the raw bytes: the kind names (snapkinds.h), then the state
 * The CRC covers the compressed bytes too: zlib ignores the padding bits of
 * its last byte, and a flipped bit must never load.
 * The state is snapshot_save's output; the hash is the same walk folded
 * into FNV-1a, so hash and snapshot can never disagree on what state is.
 * The kind names are content, not state: they are not hashed. A snapshot
 * with them (format 9 on) loads under any content that has the kinds its
 * state refers to; one without them only under the content that wrote it. */
#include "snapshot.h"
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "level.h"
#include "mapgen.h"
#include "msg.h"
#include "overland.h"
#include "prompt.h"
#include "shop.h"
#include "snapkinds.h"
#include "start.h"
#include "target.h"
#include "trap.h"
#include "vision.h"
#include "world.h"

#define SNAP_MAGIC   "WRNS"
#define SNAP_VERSION GAME_SNAPSHOT_VERSION
#define SNAP_V7      7 /* the last without the overland: 21 levels, no atlas block */
#define SNAP_NAMED   9 /* the first with the kinds' names */
#define SNAP_HEADER  24
#define SNAP_MAX_RAW (8u << 20)
#define LEVEL_MAX_W  MAPGEN_MAX_W /* a loaded level is never larger than a made one: */
#define LEVEL_MAX_H  MAPGEN_MAX_H /* travel's distances fit int16_t for those */
/* bounds that keep every later sum far from overflow */
#define STAT_MAX     1000000
#define SCORE_MAX    (1LL << 50)

static void save_rng(const rng_t *r, ser_t *s)
{
    ser_u64(s, r->state);
    ser_u64(s, r->inc);
}

static void load_rng(rng_t *r, rd_t *in)
{
    r->state = rd_u64(in);
    r->inc = rd_u64(in) | 1u;
}

static void save_level(const level_t *lv, ser_t *s)
{
    ser_u16(s, (uint16_t)lv->w);
    ser_u16(s, (uint16_t)lv->h);
    ser_u16(s, (uint16_t)lv->up_x);
    ser_u16(s, (uint16_t)lv->up_y);
    ser_u16(s, (uint16_t)lv->down_x);
    ser_u16(s, (uint16_t)lv->down_y);
    save_rng(&lv->gen, s);
    size_t n = (size_t)lv->w * (size_t)lv->h;
    ser_bytes(s, lv->terrain, n);
    ser_bytes(s, lv->seen, n);
    ser_bytes(s, lv->region, n);
    ser_bytes(s, lv->trap, n);
    ser_u16(s, lv->nregions);
    for (int i = 0; i < lv->nregions; i++) {
        ser_u16(s, (uint16_t)lv->regions[i].kind);
        ser_u8(s, lv->regions[i].lit);
        ser_u8(s, lv->regions[i].shape);
    }
}

static void save_msgs(const game_t *g, ser_t *s)
{
    ser_u32(s, g->nmsg);
    ser_u32(s, g->msg_seen);
    uint32_t first = g->nmsg > MSG_LOG ? g->nmsg - MSG_LOG : 0;
    for (uint32_t i = first; i < g->nmsg; i++) {
        const msg_t *m = msg_at(g, i);
        ser_str(s, m->text);
        ser_u64(s, m->turn);
        ser_u16(s, m->repeat);
    }
    ser_u32(s, g->nms);
    for (uint32_t i = 0; i < g->nms; i++) {
        ser_u64(s, g->ms[i].turn);
        ser_i32(s, g->ms[i].depth);
        ser_str(s, g->ms[i].kind);
        ser_str(s, g->ms[i].text);
    }
}

static void save_pc(const pc_t *pc, ser_t *s)
{
    ser_u8(s, pc->race);
    ser_u8(s, pc->cls);
    ser_u8(s, pc->created);
    for (int i = 0; i < AB_COUNT; i++)
        ser_u8(s, (uint8_t)pc->ab[i]);
    for (int i = 0; i < AB_COUNT; i++)
        ser_u8(s, (uint8_t)pc->drain[i]);
    ser_u8(s, pc->xl);
    ser_u8(s, pc->choices);
    ser_u8(s, pc->pick_hp);
    ser_u8(s, pc->pick_hit);
    ser_u8(s, pc->pick_def);
    ser_u8(s, pc->heartstone);
    ser_u16(s, (uint16_t)pc->mana);
    ser_u16(s, (uint16_t)pc->mana_max);
    ser_u32(s, pc->spells);
    ser_i32(s, pc->xp);
    ser_u32(s, pc->kills);
    ser_u64(s, pc->uniques_made);
    ser_u64(s, pc->uniques_seen);
    ser_u64(s, pc->uniques_killed);
    ser_u8(s, pc->power_attack);
    ser_u64(s, pc->artifacts_made);
    ser_u64(s, pc->artifacts_found);
    ser_u8(s, pc->spell_picks);
    ser_u8(s, pc->veteran);
}

/* Format 7 had no spell picks or veteran ranks: they start at none. */
static void load_pc(pc_t *pc, rd_t *in, unsigned version)
{
    pc->race = rd_u8(in);
    pc->cls = rd_u8(in);
    pc->created = rd_u8(in);
    for (int i = 0; i < AB_COUNT; i++)
        pc->ab[i] = (int8_t)rd_u8(in);
    for (int i = 0; i < AB_COUNT; i++)
        pc->drain[i] = (int8_t)rd_u8(in);
    pc->xl = rd_u8(in);
    pc->choices = rd_u8(in);
    pc->pick_hp = rd_u8(in);
    pc->pick_hit = rd_u8(in);
    pc->pick_def = rd_u8(in);
    pc->heartstone = rd_u8(in);
    pc->mana = (int16_t)rd_u16(in);
    pc->mana_max = (int16_t)rd_u16(in);
    pc->spells = rd_u32(in);
    pc->xp = rd_i32(in);
    pc->kills = rd_u32(in);
    pc->uniques_made = rd_u64(in);
    pc->uniques_seen = rd_u64(in);
    pc->uniques_killed = rd_u64(in);
    pc->power_attack = rd_u8(in);
    pc->artifacts_made = rd_u64(in);
    pc->artifacts_found = rd_u64(in);
    if (version == SNAP_V7)
        return;
    pc->spell_picks = rd_u8(in);
    pc->veteran = rd_u8(in);
}

/* The raw state, field by field. */
static void snapshot_save(const game_t *g, ser_t *s)
{
    ser_u64(s, g->seed);
    save_rng(&g->play, s);
    save_rng(&g->cosmetic, s);
    ser_u16(s, (uint16_t)g->depth);
    ser_u16(s, (uint16_t)g->max_depth);
    ser_u32(s, g->player);
    ser_u8(s, g->state);
    ser_u8(s, g->prompt);
    ser_u32(s, g->level_changes);
    ser_u32(s, g->keys);
    ser_u64(s, (uint64_t)g->score);
    ser_str(s, g->name);
    ser_str(s, g->cause);
    ser_u8(s, g->gold_by_hand);
    ser_u8(s, g->page);
    save_pc(&g->pc, s);
    ser_u16(s, (uint16_t)g->cur_x);
    ser_u16(s, (uint16_t)g->cur_y);
    ser_u8(s, g->door_cmd);
    ser_u16(s, (uint16_t)g->view_x);
    ser_u16(s, (uint16_t)g->view_y);
    ser_u8(s, g->aim);
    ser_u32(s, g->aim_arg);
    ser_u32(s, g->target);
    ser_u32(s, g->quiver);
    ser_u8(s, g->shop_mode);
    ser_u32(s, g->shop_keeper);
    ser_u32(s, g->specials_told);
    reg_save(&g->reg, s);
    sched_save(&g->sched, s);
    for (int d = 0; d < LEVEL_IDS; d++) {
        ser_u8(s, g->levels[d] != NULL);
        if (g->levels[d])
            save_level(g->levels[d], s);
    }
    save_msgs(g, s);
    item_state_save(g, s);
    atlas_save(g, s);
}

uint64_t snapshot_hash(const game_t *g)
{
    ser_t s;
    ser_init(&s, NULL);
    snapshot_save(g, &s);
    return s.hash;
}

static uint32_t snap_crc(const uint8_t *blob, size_t len)
{
    uLong c = crc32(0L, blob, 20);
    return (uint32_t)crc32(c, blob + SNAP_HEADER, (uInt)(len - SNAP_HEADER));
}

static uint64_t content_id(const content_t *c)
{
    return ser_fnv(SER_FNV_INIT, content_version(c), strlen(content_version(c)));
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* A small window: states are tens of KB, and a smaller zlib state is much
 * cheaper to set up than compress2's defaults. */
static int snap_deflate(uint8_t *dst, uLongf *dlen, const uint8_t *src, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 12, 6, Z_DEFAULT_STRATEGY) != Z_OK)
        return Z_MEM_ERROR;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)*dlen;
    int zr = deflate(&z, Z_FINISH);
    *dlen = z.total_out;
    deflateEnd(&z);
    return zr == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
}

/* The state copy: the content id (8 bytes), then the raw state. */
#define STATE_ID 8

int snapshot_state(const game_t *g, buf_t *state)
{
    uint8_t id[STATE_ID];
    put_le(id, content_id(g->c), STATE_ID);
    buf_reset(state);
    buf_put(state, id, sizeof id);
    ser_t s;
    ser_init(&s, state);
    snapkinds_write(g, &s);
    snapshot_save(g, &s);
    return state->failed || state->len - STATE_ID > SNAP_MAX_RAW ? -1 : 0;
}

int snapshot_pack(const buf_t *state, buf_t *out)
{
    const uint8_t *raw = (const uint8_t *)state->data + STATE_ID;
    size_t n = state->len >= STATE_ID ? state->len - STATE_ID : 0;
    uLongf bound = compressBound((uLong)n);
    if (state->failed || state->len < STATE_ID || n > SNAP_MAX_RAW ||
        !buf_reserve(out, SNAP_HEADER + bound)) {
        out->failed = true;
        return -1;
    }
    uint8_t *h = (uint8_t *)out->data + out->len;
    memcpy(h, SNAP_MAGIC, 4);
    put_le(h + 4, SNAP_VERSION, 2);
    put_le(h + 6, 0, 2);
    memcpy(h + 8, state->data, STATE_ID); /* the content id, as put_le wrote it */
    put_le(h + 16, n, 4);
    if (snap_deflate(h + SNAP_HEADER, &bound, raw, n) != Z_OK) {
        out->failed = true;
        return -1;
    }
    put_le(h + 20, snap_crc(h, SNAP_HEADER + bound), 4);
    out->len += SNAP_HEADER + bound;
    return 0;
}

int snapshot_write(const game_t *g, buf_t *out)
{
    buf_t state;
    buf_init(&state);
    int ret = snapshot_state(g, &state) < 0 ? -1 : snapshot_pack(&state, out);
    if (ret < 0)
        out->failed = true;
    buf_free(&state);
    return ret;
}

/* ---- loading ------------------------------------------------------------------ */

static level_t *load_level(game_t *g, int depth, rd_t *in)
{
    int w = rd_u16(in), h = rd_u16(in);
    if (in->bad || w < 1 || h < 1 || w > LEVEL_MAX_W || h > LEVEL_MAX_H) {
        rd_fail(in, "bad level size");
        return NULL;
    }
    level_t *lv = level_new(g, w, h, depth);
    if (!lv) {
        rd_fail(in, "out of memory");
        return NULL;
    }
    lv->up_x = (int16_t)rd_u16(in);
    lv->up_y = (int16_t)rd_u16(in);
    lv->down_x = (int16_t)rd_u16(in);
    lv->down_y = (int16_t)rd_u16(in);
    load_rng(&lv->gen, in);
    size_t n = (size_t)w * (size_t)h;
    rd_bytes(in, lv->terrain, n);
    rd_bytes(in, lv->seen, n);
    rd_bytes(in, lv->region, n);
    rd_bytes(in, lv->trap, n);
    for (size_t i = 0; i < n && !lv->traps_found; i++) /* derived: traps_found */
        lv->traps_found = (lv->trap[i] & TRAP_FOUND) != 0;
    int nr = rd_u16(in);
    if (!in->bad && (nr > MAPGEN_MAX_REGIONS || level_set_regions(g, lv, nr) < 0))
        rd_fail(in, "bad region count");
    for (int i = 0; i < nr && !in->bad; i++) {
        lv->regions[i].kind = (int16_t)rd_u16(in);
        lv->regions[i].lit = rd_u8(in);
        lv->regions[i].shape = rd_u8(in);
        if (lv->regions[i].kind < -1 || lv->regions[i].lit > 1)
            rd_fail(in, "bad region");
    }
    for (size_t i = 0; i < n && !in->bad; i++)
        if (lv->terrain[i] >= g->c->n_terrain || lv->seen[i] > (SEEN_EYES | SEEN_MAP) ||
            lv->region[i] > nr || (lv->trap[i] & TRAP_KIND) > g->c->n_traps)
            rd_fail(in, "bad level cell");
    return lv;
}

static void load_msgs(game_t *g, rd_t *in)
{
    g->nmsg = rd_u32(in);
    g->msg_seen = rd_u32(in);
    if (g->msg_seen > g->nmsg)
        rd_fail(in, "bad message count");
    uint32_t first = g->nmsg > MSG_LOG ? g->nmsg - MSG_LOG : 0;
    if (!in->bad && msg_reserve(g, g->nmsg - first) < 0)
        rd_fail(in, "out of memory");
    for (uint32_t i = first; i < g->nmsg && !in->bad; i++) {
        msg_t *m = &g->log[i % MSG_LOG];
        rd_str(in, m->text, sizeof m->text);
        m->turn = rd_u64(in);
        m->repeat = rd_u16(in);
    }
    uint32_t nms = rd_u32(in);
    if (in->bad || nms > MILESTONES_MAX) {
        rd_fail(in, "bad milestone count");
        return;
    }
    g->ms = gcalloc(&g->al, nms ? nms : 1, sizeof *g->ms);
    if (!g->ms) {
        rd_fail(in, "out of memory");
        return;
    }
    g->ms_cap = nms ? nms : 1;
    for (uint32_t i = 0; i < nms && !in->bad; i++, g->nms++) {
        g->ms[i].turn = rd_u64(in);
        g->ms[i].depth = rd_i32(in);
        rd_str(in, g->ms[i].kind, sizeof g->ms[i].kind);
        rd_str(in, g->ms[i].text, sizeof g->ms[i].text);
    }
}

/* Cross-checks that make every later lookup safe: kinds in range, creatures
 * inside existing levels, the player alive and where the game says. */
static void state_check(game_t *g, rd_t *in)
{
    for (handle_t h = reg_next(&g->reg, HANDLE_NONE); h && !in->bad; h = reg_next(&g->reg, h)) {
        const obj_t *o = reg_get(&g->reg, h);
        if (o->type == OBJ_CREATURE) {
            const level_t *lv = o->depth >= 0 && o->depth < LEVEL_IDS ? g->levels[o->depth] : NULL;
            const obj_t *foe = reg_get(&g->reg, o->target);
            if (o->kind >= g->c->n_creatures || !lv || !level_in(lv, o->x, o->y) || o->speed < 1 ||
                o->hp_max < 1 || o->hp_max > STAT_MAX || o->hp > o->hp_max || o->hp < -STAT_MAX ||
                (o->target && (!foe || foe->type != OBJ_CREATURE)))
                rd_fail(in, "bad creature");
        } else if (o->type == OBJ_EFFECT) {
            if (o->kind >= g->c->n_effects || o->remaining < 0 || o->magnitude > STAT_MAX ||
                o->magnitude < -STAT_MAX || o->t > g->sched.now)
                rd_fail(in, "bad effect");
        } else if (o->type == OBJ_ITEM && o->kind >= g->c->n_items) {
            rd_fail(in, "bad item");
        }
    }
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!p || p->type != OBJ_CREATURE || p->depth != g->depth)
        rd_fail(in, "bad player");
    if (g->depth < 0 || g->depth >= LEVEL_IDS || !g->levels[g->depth])
        rd_fail(in, "bad depth");
    if (g->state > GAME_QUIT || g->prompt >= PROMPT_COUNT || g->gold_by_hand > 1 ||
        g->door_cmd >= DOOR_CMDS || g->page > MSG_LOG / PAGE_ROWS || g->aim >= AIM_COUNT ||
        (g->prompt == PROMPT_TARGET || g->prompt == PROMPT_ATTACK) != (g->aim != AIM_NONE) ||
        g->shop_mode >= SHOP_MODES ||
        ((g->prompt == PROMPT_SHOP || g->prompt == PROMPT_VOYAGE) &&
         !reg_get(&g->reg, g->shop_keeper)))
        rd_fail(in, "bad game state");
    if ((g->depth <= WORLD_MAX_DEPTH && g->max_depth < g->depth) ||
        g->max_depth > WORLD_MAX_DEPTH || g->score < 0 || g->score > SCORE_MAX)
        rd_fail(in, "bad progress");
    const pc_t *pc = &g->pc;
    if (pc->created > 1 ||
        (pc->created && (pc->race >= g->c->n_races || pc->cls >= g->c->n_classes)) || pc->xl < 1 ||
        pc->xl > 20 || pc->xp < 0 || pc->mana < 0 || pc->mana > pc->mana_max ||
        pc->mana_max > 10000 || pc->heartstone > 1 || pc->choices > 70 || pc->spell_picks > 20 ||
        pc->veteran > PC_VETERAN_MAX || pc->power_attack > 1)
        rd_fail(in, "bad character");
    const level_t *lv = g->levels[g->depth >= 0 && g->depth < LEVEL_IDS ? g->depth : 0];
    if (lv && (g->cur_x < 0 || g->cur_y < 0 || g->cur_x >= lv->w || g->cur_y >= lv->h))
        rd_fail(in, "bad cursor");
    if (lv && (g->view_x < 0 || g->view_y < 0 || g->view_x >= lv->w || g->view_y >= lv->h))
        rd_fail(in, "bad view anchor");
    for (int i = 0; i < AB_COUNT && pc->created; i++)
        if (pc->ab[i] < 1 || pc->ab[i] > 30 || pc->drain[i] < 0 || pc->ab[i] + pc->drain[i] > 30)
            rd_fail(in, "bad ability");
}

static void state_load(game_t *g, rd_t *in, unsigned version)
{
    g->seed = rd_u64(in);
    load_rng(&g->play, in);
    load_rng(&g->cosmetic, in);
    g->depth = (int16_t)rd_u16(in);
    g->max_depth = (int16_t)rd_u16(in);
    g->player = rd_u32(in);
    g->state = rd_u8(in);
    g->prompt = rd_u8(in);
    g->level_changes = rd_u32(in);
    g->keys = rd_u32(in);
    g->score = (int64_t)rd_u64(in);
    rd_str(in, g->name, sizeof g->name);
    rd_str(in, g->cause, sizeof g->cause);
    g->gold_by_hand = rd_u8(in);
    g->page = rd_u8(in);
    load_pc(&g->pc, in, version);
    g->cur_x = (int16_t)rd_u16(in);
    g->cur_y = (int16_t)rd_u16(in);
    g->door_cmd = rd_u8(in);
    g->view_x = (int16_t)rd_u16(in);
    g->view_y = (int16_t)rd_u16(in);
    g->aim = rd_u8(in);
    g->aim_arg = rd_u32(in);
    g->target = rd_u32(in);
    g->quiver = rd_u32(in);
    g->shop_mode = rd_u8(in);
    g->shop_keeper = rd_u32(in);
    g->specials_told = rd_u32(in);
    if (in->bad || reg_load(&g->reg, in) < 0 || sched_load(&g->sched, in, FN_COUNT) < 0)
        return;
    int levels = version == SNAP_V7 ? WORLD_MAX_DEPTH + 1 : LEVEL_IDS;
    for (int d = 0; d < levels && !in->bad; d++) {
        uint8_t present = rd_u8(in);
        if (present > 1)
            rd_fail(in, "bad level flag");
        if (present == 1 && !in->bad)
            g->levels[d] = load_level(g, d, in);
    }
    if (in->bad)
        return;
    load_msgs(g, in);
    if (in->bad)
        return;
    item_state_load(g, in);
    if (!in->bad && version != SNAP_V7)
        atlas_load(g, in);
    if (in->bad)
        return;
    if (in->pos != in->len)
        rd_fail(in, "trailing bytes");
}

static int snap_header(const content_t *c, const uint8_t *blob, size_t len, uint32_t *rawlen,
                       unsigned *version, char *err, size_t errlen)
{
    if (!blob || len < SNAP_HEADER) {
        snprintf(err, errlen, "snapshot: truncated header (%zu bytes)", len);
        return -1;
    }
    if (memcmp(blob, SNAP_MAGIC, 4)) {
        snprintf(err, errlen, "snapshot: not a snapshot (bad magic)");
        return -1;
    }
    unsigned v = (unsigned)get_le(blob + 4, 2);
    *version = v;
    if (v < GAME_SNAPSHOT_OLDEST || v > SNAP_VERSION || get_le(blob + 6, 2) != 0) {
        snprintf(err, errlen, "snapshot: format version %u, expected %u", v, SNAP_VERSION);
        return -1;
    }
    if (v < SNAP_NAMED && get_le(blob + 8, 8) != content_id(c)) {
        snprintf(err, errlen,
                 "snapshot: made with other content than %s (format %u names no kinds)",
                 content_version(c), v);
        return -1;
    }
    *rawlen = (uint32_t)get_le(blob + 16, 4);
    if (*rawlen == 0 || *rawlen > SNAP_MAX_RAW) {
        snprintf(err, errlen, "snapshot: bad length %u", *rawlen);
        return -1;
    }
    return 0;
}

/* The atlas again from the seed when the game is beyond the home town
 * (or its inn's passage is up); a game of the last format without the
 * overland gets its town's ways out. 0, or -1 (OOM). */
static int snapshot_world(game_t *g, unsigned version)
{
    if ((g->depth > WORLD_MAX_DEPTH || g->prompt == PROMPT_VOYAGE) && atlas_need(g) < 0)
        return -1;
    level_t *town = g->levels[0];
    if (version == SNAP_V7 && town && atlas_world(g) &&
        level_terrain(town, 0, town->h / 2) == MAP_TREE)
        overland_gates(g, town);
    return 0;
}

/* The kind names of a named snapshot: the state is then read in its
 * kinds' order (the game's item state made again for that order). */
static snapkinds_t *kinds_read(game_t *g, rd_t *in)
{
    snapkinds_t *k = snapkinds_read(g, in);
    const content_t *shadow = k ? snapkinds_content(k) : g->c;
    if (shadow != g->c) {
        item_state_free(g);
        g->c = shadow;
        if (item_state_init(g) < 0)
            rd_fail(in, "out of memory");
    }
    return k;
}

/* The raw bytes into g: the kind names (named formats), the state in their
 * order, its kinds moved to g's content, then the cross-checks. 0, or -1
 * with err set. */
static int load_raw(game_t *g, const uint8_t *raw, size_t rawlen, unsigned version, char *err,
                    size_t errlen)
{
    const content_t *c = g->c;
    rd_t in;
    rd_init(&in, raw, rawlen);
    snapkinds_t *k = version >= SNAP_NAMED ? kinds_read(g, &in) : NULL;
    if (!in.bad)
        state_load(g, &in, version);
    bool refused = !in.bad && k && snapkinds_apply(g, k, c, &in) < 0; /* a kind c lacks */
    g->c = c;
    snapkinds_free(g, k);
    if (!in.bad)
        state_check(g, &in);
    if (!in.bad)
        item_check(g, &in);
    if (refused)
        snprintf(err, errlen, "snapshot: %s", in.why);
    else if (in.bad)
        snprintf(err, errlen, "snapshot: bad state at byte %zu: %s", in.pos, in.why);
    return in.bad ? -1 : 0;
}

game_t *snapshot_read(const content_t *c, const uint8_t *blob, size_t len, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    err[0] = 0;
    uint32_t rawlen;
    unsigned version;
    if (!c || snap_header(c, blob, len, &rawlen, &version, err, errlen) < 0)
        return NULL;
    game_t *g = start_empty(c, 0);
    uint8_t *raw = g ? galloc(&g->al, rawlen) : NULL;
    if (!raw) {
        snprintf(err, errlen, "snapshot: out of memory");
        game_free(g);
        return NULL;
    }
    uLongf got = rawlen;
    int zr = Z_DATA_ERROR;
    if (snap_crc(blob, len) != (uint32_t)get_le(blob + 20, 4)) {
        snprintf(err, errlen, "snapshot: checksum mismatch (truncated or corrupt)");
    } else if ((zr = uncompress(raw, &got, blob + SNAP_HEADER, (uLong)(len - SNAP_HEADER))) !=
                   Z_OK ||
               got != rawlen) {
        snprintf(err, errlen, "snapshot: corrupt data (%s)",
                 zr == Z_OK ? "length mismatch" : zError(zr));
    } else if (load_raw(g, raw, rawlen, version, err, errlen) == 0 &&
               snapshot_world(g, version) == 0) {
        gfree(&g->al, raw);
        vision_update(g);
        return g;
    } else if (!err[0]) {
        snprintf(err, errlen, "snapshot: out of memory");
    }
    gfree(&g->al, raw);
    game_free(g);
    return NULL;
}
