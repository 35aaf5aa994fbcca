/* fov — symmetric shadowcasting (after Albert Ford's description).
 *
 * Each quadrant is scanned outward row by row between a start and an end
 * slope. Slopes are fractions n/d (d > 0) so every test is exact integer
 * arithmetic. A floor cell is revealed only when its centre lies inside
 * the current slopes (that is what makes it symmetric); a wall is revealed
 * when any part of it does (expansive walls). */
#include "fov.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    int n, d; /* d > 0 */
} frac_t;

/* One scan: the map, the origin, which quadrant, and what to do with a
 * revealed cell (mark the output array, or look for one target cell).
 * A cell (depth, col) of the quadrant lies at x = ox + col * xc + depth *
 * xd, y = oy + col * yc + depth * yd; cols outside [cmin, cmax] are off
 * the map (depth never is: maxdepth stays within it). */
typedef struct {
    const fov_map_t *m;
    int ox, oy, quadrant, maxdepth;
    uint8_t *out; /* fov_compute: the visible array */
    int tx, ty;   /* fov_los: the target */
    int found;
    int count;          /* fov_compute: cells newly marked */
    int r2;             /* squared distance still in the radius; INT_MAX: no radius */
    int xc, xd, yc, yd; /* the quadrant's axes */
    int cmin, cmax;     /* columns on the map */
} scan_t;

/* The axes of each quadrant: north, south, east, west. */
static const int QUAD_AXES[4][4] = {{1, 0, 0, -1}, {1, 0, 0, 1}, {0, 1, 1, 0}, {0, -1, 1, 0}};

static scan_t scan_new(const fov_map_t *m, int ox, int oy, int radius, int q, int maxdepth)
{
    scan_t s = {
        .m = m, .ox = ox, .oy = oy, .quadrant = q, .maxdepth = maxdepth, .tx = -1, .ty = -1};
    s.r2 = radius < 0 ? INT_MAX : radius * (radius + 1);
    s.xc = QUAD_AXES[q][0], s.xd = QUAD_AXES[q][1], s.yc = QUAD_AXES[q][2], s.yd = QUAD_AXES[q][3];
    int along = s.xc ? ox : oy, len = s.xc ? m->w : m->h;
    s.cmin = -along;
    s.cmax = len - 1 - along;
    return s;
}

static int floor_div(int a, int b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int ceil_div(int a, int b) /* b > 0 */
{
    return -floor_div(-a, b);
}

int fov_in_radius(int dx, int dy, int radius)
{
    if (radius < 0)
        return 1;
    return dx * dx + dy * dy <= radius * (radius + 1);
}

/* Whether a cell on the map blocks sight. */
static int cell_blocks(const scan_t *k, int x, int y)
{
    const fov_map_t *m = k->m;
    if (m->opaque)
        return m->opaque[(size_t)y * (size_t)m->w + (size_t)x] != 0;
    return m->is_opaque(m->ctx, x, y) != 0;
}

/* A cell on the map in line of sight: seen if within the radius or lit.
 * k is s's fields copied (writes through out may alias any byte, so the
 * copy keeps them in registers); the counts go to s. */
static void reveal(scan_t *s, const scan_t *k, int depth, int col, int x, int y)
{
    const fov_map_t *m = k->m;
    size_t i = (size_t)y * (size_t)m->w + (size_t)x;
    if (col * col + depth * depth > k->r2 && !(m->lit && m->lit[i]))
        return;
    if (k->out) {
        s->count += !k->out[i];
        k->out[i] = 1;
    } else if (x == k->tx && y == k->ty)
        s->found = 1;
}

/* The slope through the left edge of a cell: (2col - 1) / (2depth). */
static frac_t cell_slope(int depth, int col)
{
    return (frac_t){2 * col - 1, 2 * depth};
}

static void scan_row(scan_t *s, int depth, frac_t start, frac_t end)
{
    const scan_t k = *s;
    while (depth <= k.maxdepth && !s->found) {
        /* columns whose centres round into [start, end], ties toward the inside */
        int lo = floor_div(2 * depth * start.n + start.d, 2 * start.d);
        int hi = ceil_div(2 * depth * end.n - end.d, 2 * end.d);
        int prev = -1; /* -1 none yet, 0 floor, 1 wall */
        for (int col = lo; col <= hi; col++) {
            int x = k.ox + col * k.xc + depth * k.xd, y = k.oy + col * k.yc + depth * k.yd;
            int on_map = col >= k.cmin && col <= k.cmax;
            int wall = !on_map || cell_blocks(&k, x, y);
            int centre_in = col * start.d >= depth * start.n && col * end.d <= depth * end.n;
            if (on_map && (wall || centre_in))
                reveal(s, &k, depth, col, x, y);
            if (prev == 1 && !wall)
                start = cell_slope(depth, col);
            if (prev == 0 && wall)
                scan_row(s, depth + 1, start, cell_slope(depth, col));
            prev = wall;
        }
        if (prev != 0)
            return; /* the row ended in a wall (or was empty) */
        depth++;
    }
}

static int quadrant_reach(const fov_map_t *m, int ox, int oy, int q)
{
    switch (q) {
    case 0: return oy;
    case 1: return m->h - 1 - oy;
    case 2: return m->w - 1 - ox;
    default: return ox;
    }
}

static int map_ok(const fov_map_t *m)
{
    return m && m->w > 0 && m->h > 0 && (m->opaque || m->is_opaque);
}

/* Bounding box of the lit cells: x0 > x1 when there are none. */
typedef struct {
    int x0, y0, x1, y1;
} lit_box_t;

/* Whether the n bytes at p are all zero, eight at a time. */
static int all_zero(const uint8_t *p, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        if (v)
            return 0;
    }
    for (; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static lit_box_t lit_box(const fov_map_t *m)
{
    lit_box_t b = {m->w, m->h, -1, -1};
    for (int y = 0; m->lit && y < m->h; y++) {
        const uint8_t *row = m->lit + (size_t)y * (size_t)m->w;
        if (all_zero(row, m->w))
            continue;
        int x0 = 0, x1 = m->w - 1;
        while (!row[x0])
            x0++;
        while (!row[x1])
            x1--;
        if (x0 < b.x0)
            b.x0 = x0;
        if (x1 > b.x1)
            b.x1 = x1;
        if (y < b.y0)
            b.y0 = y;
        b.y1 = y;
    }
    return b;
}

/* Rows past the radius matter only as far as the farthest lit cell. */
static int scan_depth(const fov_map_t *m, const lit_box_t *lb, int ox, int oy, int q, int radius)
{
    int reach = quadrant_reach(m, ox, oy, q);
    if (radius < 0)
        return reach;
    int lit_reach = 0;
    if (lb->x0 <= lb->x1) {
        switch (q) {
        case 0: lit_reach = oy - lb->y0; break;
        case 1: lit_reach = lb->y1 - oy; break;
        case 2: lit_reach = lb->x1 - ox; break;
        default: lit_reach = ox - lb->x0; break;
        }
    }
    int d = radius > lit_reach ? radius : lit_reach;
    return d < reach ? d : reach;
}

int fov_compute(const fov_map_t *m, int ox, int oy, int radius, uint8_t *visible_out)
{
    int reach;
    return fov_compute_reach(m, ox, oy, radius, visible_out, &reach);
}

int fov_compute_reach(const fov_map_t *m, int ox, int oy, int radius, uint8_t *visible_out,
                      int *reach)
{
    fov_box_t all = {0, 0, m ? m->w : 0, m ? m->h : 0};
    return fov_compute_box(m, ox, oy, radius, &all, visible_out, reach);
}

/* How deep quadrant q may go and still meet a row inside the box. */
static int box_depth(const fov_box_t *b, int ox, int oy, int q)
{
    switch (q) {
    case 0: return oy - b->y0;
    case 1: return b->y1 - 1 - oy;
    case 2: return b->x1 - 1 - ox;
    default: return ox - b->x0;
    }
}

int fov_compute_box(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *box,
                    uint8_t *visible_out, int *reach)
{
    *reach = 0;
    if (!map_ok(m) || !visible_out || !box)
        return -1;
    if (ox < 0 || oy < 0 || ox >= m->w || oy >= m->h)
        return -1;
    if (ox < box->x0 || oy < box->y0 || ox >= box->x1 || oy >= box->y1)
        return -1;
    memset(visible_out, 0, (size_t)m->w * (size_t)m->h);
    visible_out[(size_t)oy * (size_t)m->w + (size_t)ox] = 1;
    lit_box_t lb = lit_box(m);
    int count = 1;
    for (int q = 0; q < 4; q++) {
        int depth = scan_depth(m, &lb, ox, oy, q, radius);
        int bd = box_depth(box, ox, oy, q);
        depth = depth < bd ? depth : bd;
        *reach = depth > *reach ? depth : *reach;
        scan_t s = scan_new(m, ox, oy, radius, q, depth);
        s.out = visible_out;
        scan_row(&s, 1, (frac_t){-1, 1}, (frac_t){1, 1});
        count += s.count;
    }
    return count;
}

static int abs_int(int v)
{
    return v < 0 ? -v : v;
}

int fov_los(const fov_map_t *m, int ax, int ay, int bx, int by, int radius)
{
    if (!map_ok(m))
        return 0;
    if (ax < 0 || ay < 0 || ax >= m->w || ay >= m->h)
        return 0;
    if (bx < 0 || by < 0 || bx >= m->w || by >= m->h)
        return 0;
    int dx = bx - ax, dy = by - ay;
    if (dx == 0 && dy == 0)
        return 1;
    /* depth of B in each quadrant, or 0 when B is not in it */
    int depth[4] = {
        dy < 0 && abs_int(dx) <= -dy ? -dy : 0,
        dy > 0 && abs_int(dx) <= dy ? dy : 0,
        dx > 0 && abs_int(dy) <= dx ? dx : 0,
        dx < 0 && abs_int(dy) <= -dx ? -dx : 0,
    };
    for (int q = 0; q < 4; q++) {
        if (!depth[q])
            continue;
        scan_t s = scan_new(m, ax, ay, radius, q, depth[q]);
        s.tx = bx, s.ty = by;
        scan_row(&s, 1, (frac_t){-1, 1}, (frac_t){1, 1});
        if (s.found)
            return 1;
    }
    return 0;
}
