/* vision — the player's view of the live level (see vision.h). */
#include "vision.h"
#include <stdlib.h>
#include <string.h>
#include "effect.h"
#include "fov.h"
#include "level.h"
#include "status.h"

/* Whether (x, y) lies within reach of (cx, cy) (fov_reach, kept_reach). */
static bool in_reach(int cx, int cy, int reach, int x, int y)
{
    int dx = x - cx, dy = y - cy;
    return dx >= -reach && dx <= reach && dy >= -reach && dy <= reach;
}

/* Rebuilds the live level's derived arrays: what blocks sight, what is
 * lit (lit regions; never a dark one). The view in vis stays good unless
 * a cell its scan could read now blocks sight differently, or the light
 * changed; so does the kept one, on the same terms. */
static void vision_derive(game_t *g, level_t *lv)
{
    bool keep = lv->fov_ok, keep2 = lv->kept_ok;
    for (int y = 0; y < lv->h; y++)
        for (int x = 0; x < lv->w; x++) {
            size_t i = (size_t)y * (size_t)lv->w + (size_t)x;
            uint8_t t = lv->terrain[i], r = lv->region[i];
            uint8_t op = t >= g->c->n_terrain || (g->c->terrain[t].flags & TF_OPAQUE);
            uint8_t lit = r && r <= lv->nregions && lv->regions[r - 1].lit;
            bool lit_moved = lit != lv->lit[i], op_moved = op != lv->opaque[i];
            if (keep &&
                (lit_moved || (op_moved && in_reach(lv->fov_x, lv->fov_y, lv->fov_reach, x, y))))
                keep = false;
            if (keep2 &&
                (lit_moved || (op_moved && in_reach(lv->kept_x, lv->kept_y, lv->kept_reach, x, y))))
                keep2 = false;
            lv->opaque[i] = op;
            lv->lit[i] = lit;
        }
    lv->fov_ok = keep;
    lv->kept_ok = keep2;
    lv->opaque_ok = 1;
}

/* How the anchor moves on each axis once the player left its band (slack
 * cells either side of it): land is where the player then stands in the
 * band, counted back from the edge it crossed (slack: at that edge, the
 * least move; 0: at the band's centre). Across, any move of the view
 * draws the whole map again: it moves slack + 1 columns or more, seldom.
 * Down, the terminal scrolls the rows it keeps and only the new ones are
 * sent: the least move, and places that fit in one band (a walk to and
 * fro between them) never move it again. */
static const struct {
    int slack, land;
} ANCHOR_RULE[2] = {{ANCHOR_SLACK_X, 0}, {ANCHOR_SLACK_Y, ANCHOR_SLACK_Y}};

int vision_anchor_axis(int axis, int anchor, int p, int map)
{
    int slack = ANCHOR_RULE[axis].slack, land = ANCHOR_RULE[axis].land;
    if (anchor < 0 || anchor >= map) /* off this level: the view centres on the player */
        return p;
    return p > anchor + slack ? p - land : p < anchor - slack ? p + land : anchor;
}

void vision_anchor(game_t *g)
{
    const level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p)
        return;
    g->view_x = (int16_t)vision_anchor_axis(0, g->view_x, p->x, lv->w);
    g->view_y = (int16_t)vision_anchor_axis(1, g->view_y, p->y, lv->h);
}

/* The first cell of the sight box on one axis: reach cells either side
 * of p, moved in from the map's edges (a box of 2 * reach + 1 cells). */
static int box_start(int p, int reach, int map)
{
    int at = p - reach, last = map - (2 * reach + 1);
    return at > last ? (last > 0 ? last : 0) : at < 0 ? 0 : at;
}

/* Nothing past the sight box is seen, however lit: what the player sees
 * is what a map view of 80x21 tiles can draw round it. */
static fov_box_t sight_box(const level_t *lv, int px, int py)
{
    int x0 = box_start(px, SIGHT_X, lv->w), y0 = box_start(py, SIGHT_Y, lv->h);
    int x1 = x0 + 2 * SIGHT_X + 1, y1 = y0 + 2 * SIGHT_Y + 1; /* past the box */
    return (fov_box_t){x0, y0, x1 < lv->w ? x1 : lv->w, y1 < lv->h ? y1 : lv->h};
}

/* Remembers what is seen: vis is 0 outside the box and 0 or 1 (SEEN_EYES)
 * inside, seen holds SEEN_* bits, so the box's rows are ORed eight cells
 * at once; a row where something new is remembered is marked. */
static void remember_seen(level_t *lv, const fov_box_t *b)
{
    size_t n = (size_t)(b->x1 - b->x0);
    for (int y = b->y0; y < b->y1; y++) {
        size_t at = (size_t)y * (size_t)lv->w + (size_t)b->x0, i = 0;
        uint8_t *seen = lv->seen + at;
        const uint8_t *vis = lv->vis + at;
        uint64_t grew = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t a, v;
            memcpy(&a, seen + i, 8);
            memcpy(&v, vis + i, 8);
            grew |= v & ~a;
            a |= v;
            memcpy(seen + i, &a, 8);
        }
        for (; i < n; i++) {
            grew |= (uint64_t)(vis[i] & ~seen[i]);
            seen[i] |= vis[i];
        }
        if (grew)
            level_row_changed(lv, y);
    }
}

/* Eight cells of 0 or 1 as eight bits (cell k is bit k). */
static uint64_t pack8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return (v * 0x0102040810204080ull) >> 56;
}

/* Eight bits back as eight cells of 0 or 1. */
static void unpack8(uint8_t *p, uint64_t bits)
{
    uint64_t v = (bits * 0x0101010101010101ull) & 0x8040201008040201ull;
    v = ((v + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
    memcpy(p, &v, 8);
}

/* Sixteen cells of 0 or 1 as sixteen bits (cell k is bit k): each byte's
 * low bit gathered by a multiply, eight at a time. */
static uint64_t pack16(const uint8_t *p)
{
    return pack8(p) | pack8(p + 8) << 8;
}

/* The view in vis over box b, a bit a cell, into words (two a row). */
static void view_pack(const level_t *lv, const fov_box_t *b, uint64_t *words)
{
    int n = b->x1 - b->x0;
    memset(words, 0, VISION_KEPT_WORDS * sizeof *words);
    for (int y = b->y0; y < b->y1; y++, words += 2) {
        const uint8_t *vis = lv->vis + (size_t)y * (size_t)lv->w + (size_t)b->x0;
        int x = 0;
        for (; x + 16 <= n; x += 16)
            words[x >> 6] |= pack16(vis + x) << (x & 63);
        if (x < n) { /* the row's last few cells, through sixteen zeros */
            uint8_t tail[16] = {0};
            memcpy(tail, vis + x, (size_t)(n - x));
            words[x >> 6] |= pack16(tail) << (x & 63);
        }
    }
}

/* The packed view back into vis over box b (which holds zeros there). */
static void view_unpack(level_t *lv, const fov_box_t *b, const uint64_t *words)
{
    int n = b->x1 - b->x0;
    for (int y = b->y0; y < b->y1; y++, words += 2) {
        uint8_t *vis = lv->vis + (size_t)y * (size_t)lv->w + (size_t)b->x0;
        int x = 0;
        for (; x + 8 <= n; x += 8)
            unpack8(vis + x, (words[x >> 6] >> (x & 63)) & 0xff);
        if (x < n) {
            uint8_t tail[8];
            unpack8(tail, (words[x >> 6] >> (x & 63)) & 0xff);
            memcpy(vis + x, tail, (size_t)(n - x));
        }
    }
}

/* The kept view (from where the player stands now) into vis, in place of
 * the current one over old (vis is 0 outside a view's sight box), which
 * now holds packed: the cells that flip are those of either view, each
 * recorded for the render (level_vis_flipped: the two XOR). */
static void view_restore(level_t *lv, const fov_box_t *old, const fov_box_t *box,
                         const uint64_t *now)
{
    for (int y = old->y0; y < old->y1; y++)
        level_vis_flipped(lv, y, old->x0, now + 2 * (y - old->y0));
    for (int y = box->y0; y < box->y1; y++)
        level_vis_flipped(lv, y, box->x0, lv->kept + 2 * (y - box->y0));
    for (int y = old->y0; y < old->y1; y++)
        memset(lv->vis + (size_t)y * (size_t)lv->w + (size_t)old->x0, 0,
               (size_t)(old->x1 - old->x0));
    view_unpack(lv, box, lv->kept);
}

/* The cells of box b whose bits are set in diff flipped (vis holds 0
 * or 1): the view the bits were taken against becomes the other one.
 * Only the cells flipped are recorded for the render. */
static void view_flip(level_t *lv, const fov_box_t *b, const uint64_t *diff)
{
    for (int y = b->y0; y < b->y1; y++, diff += 2) {
        uint8_t *vis = lv->vis + (size_t)y * (size_t)lv->w + (size_t)b->x0;
        level_vis_flipped(lv, y, b->x0, diff);
        for (int w = 0; w < 2; w++)
            for (uint64_t d = diff[w]; d; d &= d - 1)
                vis[w * 64 + __builtin_ctzll(d)] ^= 1;
    }
}

/* A scan's change of vis recorded for the render as flips, not as marked
 * rows: the old view (was, packed over old) and the new one (over box)
 * each XORed in, so the cells that changed hold 1 (vis is 0 outside a
 * view's sight box). Rows whose memory grew are marked (remember_seen). */
static void scan_flipped(level_t *lv, const fov_box_t *old, const uint64_t *was,
                         const fov_box_t *box)
{
    uint64_t now[VISION_KEPT_WORDS];
    view_pack(lv, box, now);
    for (int y = old->y0; y < old->y1; y++)
        level_vis_flipped(lv, y, old->x0, was + 2 * (y - old->y0));
    for (int y = box->y0; y < box->y1; y++)
        level_vis_flipped(lv, y, box->x0, now + 2 * (y - box->y0));
}

static bool box_same(const fov_box_t *a, const fov_box_t *b)
{
    return a->x0 == b->x0 && a->y0 == b->y0 && a->x1 == b->x1 && a->y1 == b->y1;
}

/* The view from (x, y) at radius: the kept one when it was made from
 * there (a step back: *back set), else a scan, which clears only the old
 * sight box (vis is 0 outside it); now: the current view, packed (NULL:
 * none, and where vis holds cells is not known). A step back within the
 * same sight box leaves in kept the difference between the two views (the caller sets kept_diff).
 * Returns its reach, or -1. */
static int view_make(level_t *lv, int x, int y, int radius, const fov_box_t *box,
                     const uint64_t *now, bool *back)
{
    *back = now && lv->kept_ok && !lv->kept_diff && lv->kept_x == x && lv->kept_y == y &&
            lv->kept_radius == radius;
    fov_box_t old = sight_box(lv, lv->fov_x, lv->fov_y);
    if (*back) {
        if (!box_same(&old, box)) {
            view_restore(lv, &old, box, now);
            return lv->kept_reach;
        }
        for (int i = 0; i < VISION_KEPT_WORDS; i++) /* kept becomes the two views' difference */
            lv->kept[i] ^= now[i];
        view_flip(lv, box, lv->kept);
        return lv->kept_reach;
    }
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    int reach; /* rows past the sight box are not scanned: their cells are not seen */
    int n = fov_compute_box_over(&m, x, y, radius, box, now ? &old : NULL, lv->vis, &reach);
    return n < 0 ? -1 : reach;
}

/* A step back to the kept view when kept holds the difference (both
 * views over one sight box): its cells flipped, the places swapped. No
 * packing: the difference stays the same for the next step to and fro. */
static bool view_toggle(level_t *lv, int x, int y, int radius)
{
    if (!lv->fov_ok || !lv->kept_ok || !lv->kept_diff || lv->kept_x != x || lv->kept_y != y ||
        lv->kept_radius != radius)
        return false;
    fov_box_t box = sight_box(lv, x, y), old = sight_box(lv, lv->fov_x, lv->fov_y);
    if (!box_same(&old, &box))
        return false;
    view_flip(lv, &box, lv->kept);
    int16_t fx = lv->fov_x, fy = lv->fov_y, fr = lv->fov_radius, fre = lv->fov_reach;
    lv->fov_x = lv->kept_x, lv->fov_y = lv->kept_y;
    lv->fov_radius = lv->kept_radius, lv->fov_reach = lv->kept_reach;
    lv->kept_x = fx, lv->kept_y = fy, lv->kept_radius = fr, lv->kept_reach = fre;
    return true;
}

/* Sees again only when something the view depends on changed; the view
 * it leaves is kept for a step back. */
void vision_update(game_t *g)
{
    level_t *lv = level_current(g);
    const obj_t *p = reg_get(&g->reg, g->player);
    if (!lv || !p || level_live(g, lv) < 0)
        return;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    const region_kind_t *rk = level_region_kind(g, lv, p->x, p->y);
    int radius =
        (rk && (rk->flags & RF_DARK)) || status_has(g, g->player, EFK_(BLIND)) ? 1 : LIGHT_RADIUS;
    if (!lv->fov_ok)
        lv->kept_ok = 0; /* what dropped the view may have changed what the kept one saw */
    if (lv->fov_ok && lv->fov_x == p->x && lv->fov_y == p->y && lv->fov_radius == radius)
        return; /* nothing the view depends on changed: vis and seen stand */
    if (view_toggle(lv, p->x, p->y, radius))
        return; /* a view taken back was remembered when made */
    uint64_t prev[VISION_KEPT_WORDS];
    bool had = lv->fov_ok;
    fov_box_t old = {0}, box = sight_box(lv, p->x, p->y);
    if (had) {
        old = sight_box(lv, lv->fov_x, lv->fov_y);
        view_pack(lv, &old, prev);
    }
    bool back;
    int reach = view_make(lv, p->x, p->y, radius, &box, had ? prev : NULL, &back);
    if (reach < 0)
        return;
    if (!back && had) /* a scan: vis was 0 outside the old box, cleared */
        scan_flipped(lv, &old, prev, &box);
    else if (!back) /* where the last view lay is not known here */
        level_all_changed(lv);
    if (had) {
        lv->kept_diff = back && box_same(&old, &box);
        if (!lv->kept_diff)
            memcpy(lv->kept, prev, sizeof prev);
        lv->kept_ok = 1;
        lv->kept_x = lv->fov_x, lv->kept_y = lv->fov_y;
        lv->kept_radius = lv->fov_radius, lv->kept_reach = lv->fov_reach;
    }
    lv->fov_ok = 1;
    lv->fov_x = p->x;
    lv->fov_y = p->y;
    lv->fov_radius = (int16_t)radius;
    lv->fov_reach = (int16_t)reach;
    if (!back) /* a view taken back was remembered when made, and seen only grows */
        remember_seen(lv, &box);
}

bool vision_sees(game_t *g, handle_t h)
{
    const obj_t *o = reg_get(&g->reg, h);
    const level_t *lv = level_current(g);
    if (!o || !lv || o->depth != g->depth)
        return false;
    if (h != HANDLE_NONE && h == g->player)
        return true;
    /* a disguised creature is seen as what it passes for, not as itself */
    return level_visible(lv, o->x, o->y) && !(o->type == OBJ_CREATURE && (o->flags & OF_DISGUISED));
}

bool vision_between(game_t *g, handle_t a, handle_t b)
{
    if (a == g->player || b == g->player) { /* the player's view, disguises or not */
        handle_t o = a == g->player ? b : a;
        const obj_t *oo = reg_get(&g->reg, o);
        const level_t *cur = level_current(g);
        return o == g->player ||
               (oo && cur && oo->depth == g->depth && level_visible(cur, oo->x, oo->y));
    }
    const obj_t *oa = reg_get(&g->reg, a), *ob = reg_get(&g->reg, b);
    level_t *lv = level_current(g);
    if (!oa || !ob || !lv || !lv->opaque || oa->depth != g->depth || ob->depth != g->depth)
        return false;
    if (!lv->opaque_ok)
        vision_derive(g, lv);
    fov_map_t m = {.w = lv->w, .h = lv->h, .opaque = lv->opaque, .lit = lv->lit};
    return fov_los(&m, oa->x, oa->y, ob->x, ob->y, LIGHT_RADIUS) == 1;
}
