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
 * copy keeps them in registers); a found target goes to s. */
static void reveal(scan_t *s, const scan_t *k, int depth, int col, int x, int y)
{
    const fov_map_t *m = k->m;
    size_t i = (size_t)y * (size_t)m->w + (size_t)x;
    if (col * col + depth * depth > k->r2 && !(m->lit && m->lit[i]))
        return;
    if (k->out)
        k->out[i] = 1;
    else if (x == k->tx && y == k->ty)
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

/* The lit cells' bounding box within b (lit cells outside b are never
 * shown, so they need not draw the scan deeper). */
static lit_box_t lit_box(const fov_map_t *m, const fov_box_t *b)
{
    lit_box_t lb = {b->x1, b->y1, -1, -1};
    int n = b->x1 - b->x0;
    for (int y = b->y0; m->lit && y < b->y1; y++) {
        const uint8_t *row = m->lit + (size_t)y * (size_t)m->w;
        if (all_zero(row + b->x0, n))
            continue;
        int x0 = b->x0, x1 = b->x1 - 1;
        while (!row[x0])
            x0++;
        while (!row[x1])
            x1--;
        if (x0 < lb.x0)
            lb.x0 = x0;
        if (x1 > lb.x1)
            lb.x1 = x1;
        if (y < lb.y0)
            lb.y0 = y;
        lb.y1 = y;
    }
    return lb;
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

/* The scan of a view over a byte array: the rows, sections and answers
 * of scan_row, but each row read only where it meets the box and walked by
 * index steps. A wall outside the box narrows a section only to slopes
 * that pass outside every cell of the box nearer the edge than it (the
 * box holds the origin), so the cells inside get scan_row's answers. */
typedef struct {
    const uint8_t *op, *lit; /* lit: the map's, or out itself when it has none */
    uint8_t *out;
    ptrdiff_t o, cs, ds; /* the origin's index; index steps of a column and a row */
    int clo, chi;        /* the box's columns, relative to the origin */
    int maxdepth, r2;    /* r2: as scan_t's */
    int marked;          /* the deepest row where a cell was marked */
} fast_t;

static void fast_row(fast_t *f, int depth, frac_t start, frac_t end, int rc);

/* The widest column still in the radius at depth (|col| <= it), -1 when
 * none, counted down from a guess no narrower. */
static int radius_cols(int r2, int depth, int guess)
{
    if (r2 == INT_MAX)
        return INT_MAX / 2;
    int room = r2 - depth * depth;
    while (guess >= 0 && guess * guess > room)
        guess--;
    return guess;
}

/* A row's ends may round into a section with their centres outside it:
 * such a floor is not seen (a wall is, when any part of it is). */
enum { END_FIRST_OUT = 1, END_LAST_OUT = 2 };

/* Marks the cells first..last of a row at depth and follows its sections
 * (a wall after a floor starts the section behind it, a floor after a
 * wall moves *start). Returns -1 when the row ended in a wall, else
 * whether *start moved. Each cell gets out |= (in the radius: |col| <=
 * rc) | lit; with no lit array lit is out itself, so a cell outside the
 * radius keeps what it had. The arrays are held in locals (a write
 * through out may alias anything). */
static int fast_cells(fast_t *f, int depth, frac_t *start, int first, int last, int rc, int ends)
{
    const uint8_t *op = f->op, *lit = f->lit;
    uint8_t *out = f->out;
    ptrdiff_t cs = f->cs, i = f->o + depth * f->ds + first * cs;
    ptrdiff_t ilast = i + (ptrdiff_t)(last - first) * cs;
    uint8_t had_last = out[ilast];
    int rlo = rc < 0 ? INT_MIN / 2 : -rc, moved = 0;
    unsigned span = rc < 0 ? 0 : 2u * (unsigned)rc;
    frac_t s = *start;
    uint8_t prev = op[i], any = 0; /* prev: the last cell's opacity byte (nonzero: a wall) */
    if (prev || !(ends & END_FIRST_OUT)) {
        any = (uint8_t)(((unsigned)(first - rlo) <= span) | (lit[i] != 0));
        out[i] |= any;
    }
    for (int col = first + 1; col <= last; col++) {
        i += cs;
        uint8_t wall = op[i], v = (uint8_t)(((unsigned)(col - rlo) <= span) | (lit[i] != 0));
        out[i] |= v;
        any |= v;
        if (wall == prev || (wall && prev))
            continue;
        if (wall)
            fast_row(f, depth + 1, s, cell_slope(depth, col), rc);
        else
            s = cell_slope(depth, col), moved = 1;
        prev = wall;
    }
    if ((ends & END_LAST_OUT) && !op[ilast])
        out[ilast] = had_last;
    if (any && depth > f->marked)
        f->marked = depth;
    *start = s;
    return prev ? -1 : moved;
}

/* The lowest column of a row whose centre rounds into a section starting
 * at slope n/d: floor((2 * depth * n + d) / 2d), kept with its remainder
 * r so that the next row's is one addition away (no division per row).
 * The column's centre lies below the slope when 2r > b. The highest
 * column of a section ending at n/d is minus the lowest of one starting
 * at -n/d. */
typedef struct {
    int col, r, b, step;
} edge_t;

static edge_t edge_at(frac_t s, int depth)
{
    int a = 2 * depth * s.n + s.d, b = 2 * s.d, col = floor_div(a, b);
    return (edge_t){col, a - col * b, b, 2 * s.n};
}

static void edge_next(edge_t *e)
{
    e->r += e->step;
    while (e->r >= e->b)
        e->r -= e->b, e->col++;
    while (e->r < 0)
        e->r += e->b, e->col--;
}

/* A section's rows from depth on; the section is its two edges. */
static void fast_row(fast_t *f, int depth, frac_t start, frac_t end, int rc)
{
    edge_t lo = edge_at(start, depth), hi = edge_at((frac_t){-end.n, end.d}, depth);
    const int clo = f->clo, chi = f->chi, maxdepth = f->maxdepth, r2 = f->r2;
    for (; depth <= maxdepth; depth++) {
        int first = lo.col > clo ? lo.col : clo, last = -hi.col < chi ? -hi.col : chi;
        if (first > last)
            return; /* empty, or all outside the box: deeper rows are too */
        rc = radius_cols(r2, depth, rc);
        int ends = (first == lo.col && 2 * lo.r > lo.b ? END_FIRST_OUT : 0) |
                   (last == -hi.col && 2 * hi.r > hi.b ? END_LAST_OUT : 0);
        frac_t s = {lo.step / 2, lo.b / 2};
        int open = fast_cells(f, depth, &s, first, last, rc, ends);
        if (open < 0)
            return; /* the row ended in a wall */
        if (open)
            lo = edge_at(s, depth + 1);
        else
            edge_next(&lo);
        edge_next(&hi);
    }
}

/* Quadrant q's fast scan, to depth: the deepest row it marked a cell in. */
static int fast_quadrant(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *b, int q,
                         int depth, uint8_t *out)
{
    const int *ax = QUAD_AXES[q];
    fast_t f = {.op = m->opaque, .lit = m->lit ? m->lit : out, .out = out, .maxdepth = depth};
    f.o = (ptrdiff_t)oy * m->w + ox;
    f.cs = ax[0] + (ptrdiff_t)ax[2] * m->w;
    f.ds = ax[1] + (ptrdiff_t)ax[3] * m->w;
    f.clo = ax[0] ? b->x0 - ox : b->y0 - oy;
    f.chi = ax[0] ? b->x1 - 1 - ox : b->y1 - 1 - oy;
    f.r2 = radius < 0 ? INT_MAX : radius * (radius + 1);
    fast_row(&f, 1, (frac_t){-1, 1}, (frac_t){1, 1}, radius);
    return f.marked;
}

/* Clears what a scan marked outside the box. */
static void clear_outside(const fov_map_t *m, const fov_box_t *b, uint8_t *out)
{
    for (int y = 0; y < m->h; y++) {
        uint8_t *row = out + (size_t)y * (size_t)m->w;
        if (y < b->y0 || y >= b->y1) {
            memset(row, 0, (size_t)m->w);
            continue;
        }
        memset(row, 0, (size_t)b->x0);
        memset(row + b->x1, 0, (size_t)(m->w - b->x1));
    }
}

/* The cells marked in the box (each byte 0 or 1), eight at a time. */
static int count_marked(const fov_map_t *m, const fov_box_t *b, const uint8_t *out)
{
    int count = 0, n = b->x1 - b->x0;
    for (int y = b->y0; y < b->y1; y++) {
        const uint8_t *row = out + (size_t)y * (size_t)m->w + b->x0;
        int x = 0;
        for (; x + 8 <= n; x += 8) {
            uint64_t v;
            memcpy(&v, row + x, 8);
            count += (int)((v * 0x0101010101010101ull) >> 56);
        }
        for (; x < n; x++)
            count += row[x];
    }
    return count;
}

int fov_compute_box(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *box,
                    uint8_t *visible_out, int *reach)
{
    return fov_compute_box_over(m, ox, oy, radius, box, NULL, visible_out, reach);
}

/* Zeroes the cells of was within the map (NULL: the whole map). */
static void clear_was(const fov_map_t *m, const fov_box_t *was, uint8_t *out)
{
    if (!was) {
        memset(out, 0, (size_t)m->w * (size_t)m->h);
        return;
    }
    int x0 = was->x0 > 0 ? was->x0 : 0, x1 = was->x1 < m->w ? was->x1 : m->w;
    int y0 = was->y0 > 0 ? was->y0 : 0, y1 = was->y1 < m->h ? was->y1 : m->h;
    for (int y = y0; y < y1 && x0 < x1; y++)
        memset(out + (size_t)y * (size_t)m->w + (size_t)x0, 0, (size_t)(x1 - x0));
}

int fov_compute_box_over(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *box,
                         const fov_box_t *was, uint8_t *visible_out, int *reach)
{
    *reach = 0;
    if (!map_ok(m) || !visible_out || !box)
        return -1;
    if (ox < 0 || oy < 0 || ox >= m->w || oy >= m->h)
        return -1;
    if (ox < box->x0 || oy < box->y0 || ox >= box->x1 || oy >= box->y1)
        return -1;
    /* the box within the map */
    fov_box_t b = {box->x0 > 0 ? box->x0 : 0, box->y0 > 0 ? box->y0 : 0,
                   box->x1 < m->w ? box->x1 : m->w, box->y1 < m->h ? box->y1 : m->h};
    clear_was(m, was, visible_out);
    visible_out[(size_t)oy * (size_t)m->w + (size_t)ox] = 1;
    lit_box_t lb = lit_box(m, &b);
    int marked = 0; /* as far from the origin as a marked cell lies */
    for (int q = 0; q < 4; q++) {
        int depth = scan_depth(m, &lb, ox, oy, q, radius);
        int bd = box_depth(&b, ox, oy, q);
        depth = depth < bd ? depth : bd;
        *reach = depth > *reach ? depth : *reach;
        if (m->opaque) {
            int d = fast_quadrant(m, ox, oy, radius, &b, q, depth, visible_out);
            marked = d > marked ? d : marked;
            continue;
        }
        scan_t s = scan_new(m, ox, oy, radius, q, depth);
        s.out = visible_out;
        scan_row(&s, 1, (frac_t){-1, 1}, (frac_t){1, 1});
    }
    if (!m->opaque) {
        clear_outside(m, &b, visible_out);
        marked = *reach;
    }
    /* nothing is marked farther than that from the origin */
    fov_box_t near = {ox - marked, oy - marked, ox + marked + 1, oy + marked + 1};
    near = (fov_box_t){near.x0 > b.x0 ? near.x0 : b.x0, near.y0 > b.y0 ? near.y0 : b.y0,
                       near.x1 < b.x1 ? near.x1 : b.x1, near.y1 < b.y1 ? near.y1 : b.y1};
    return count_marked(m, &near, visible_out);
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
