/* fov — field of view and line of sight by symmetric shadowcasting.
 *
 * The algorithm is Albert Ford's symmetric shadowcasting: four quadrants
 * scanned row by row, slopes kept as exact integer fractions. Properties:
 *   - symmetric: a floor cell B is seen from floor cell A iff A is seen
 *     from B (same map, same radius, no lit cells involved);
 *   - expansive walls: an opaque cell is seen when any part of it is in
 *     view, so room walls show whole from inside the room;
 *   - no floating point, no globals; the map is only read.
 *
 * Light: a cell is visible when it is in line of sight AND either within
 * the radius (dx*dx + dy*dy <= r*(r+1), a round disc) or marked lit in
 * the optional lit array (lit rooms are seen from any distance in sight).
 * radius < 0 means unlimited. The origin is always visible.
 *
 * Opacity comes from a byte array (nonzero = blocks sight) or, when that is
 * NULL, from a callback. Cells outside the map block sight and are never
 * reported. */
#ifndef WARREN_FOV_H
#define WARREN_FOV_H
#include <stdint.h>

typedef struct {
    int w, h;
    const uint8_t *opaque; /* w*h bytes, row-major, nonzero blocks sight; borrowed */
    /* used only when opaque is NULL: nonzero when (x, y) blocks sight */
    int (*is_opaque)(const void *ctx, int x, int y);
    const void *ctx;
    const uint8_t *lit; /* optional w*h bytes, nonzero = lit; borrowed; NULL = none */
} fov_map_t;

/* Fills visible_out (w*h bytes, caller-owned) with 1 for every visible cell
 * and 0 elsewhere. Returns the number of visible cells, or -1 on bad
 * arguments (NULL map/output, no opacity source, origin outside the map). */
int fov_compute(const fov_map_t *m, int ox, int oy, int radius, uint8_t *visible_out);

/* Can a viewer at A see B? Exactly fov_compute(A, radius)'s answer for B,
 * computed without a full scan (only the quadrant(s) holding B, up to B's
 * row). Returns 1 or 0; 0 for points outside the map. */
int fov_los(const fov_map_t *m, int ax, int ay, int bx, int by, int radius);

/* fov_compute that also tells (in *reach) how far, in Chebyshev distance,
 * it read the map: the opacity of a cell farther away cannot change its
 * answer, so the view stays right until a cell within reach changes. */
int fov_compute_reach(const fov_map_t *m, int ox, int oy, int radius, uint8_t *visible_out,
                      int *reach);

/* A rectangle of cells: x0 <= x < x1, y0 <= y < y1. */
typedef struct {
    int x0, y0, x1, y1;
} fov_box_t;

/* fov_compute_reach, but only the part of the scan inside box is read:
 * every cell inside box (within the map) gets exactly fov_compute's
 * answer, every cell outside it is 0, and the count is of the cells in
 * box. The origin must lie in box. */
int fov_compute_box(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *box,
                    uint8_t *visible_out, int *reach);

/* fov_compute_box for an output already 0 everywhere outside was (NULL:
 * nothing known): only the cells of was are cleared before the scan, so
 * a view moved along by a step is not cleared over the whole map. */
int fov_compute_box_over(const fov_map_t *m, int ox, int oy, int radius, const fov_box_t *box,
                         const fov_box_t *was, uint8_t *visible_out, int *reach);

/* The radius test used above, exposed so callers agree on it. */
int fov_in_radius(int dx, int dy, int radius);

#endif
