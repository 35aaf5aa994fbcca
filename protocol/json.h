/* json — encodes grid changes as JSON frames for web views and bots:
 *   {"t":"f","seq":N,"key":true|false,"w":W,"h":H,"cur":[x,y,visible],
 *    "runs":[[y,x,"text",fg,bg,attr],...]}
 * A run is consecutive changed cells of one style on one row; fg/bg are
 * 0..255 or -1 for the terminal default. Output is valid UTF-8 and JSON.
 * See protocol/README.md. */
#ifndef WARREN_JSON_H
#define WARREN_JSON_H
#include <stdint.h>
#include "buf.h"
#include "screen.h"

/* a == NULL (or a different size) gives a keyframe ("key":true): the
 * receiver starts from blank cells and the runs cover every other cell.
 * Otherwise only rows dirty in b are examined, as in ansi_diff. */
void json_frame(const screen_t *a, const screen_t *b, uint64_t seq, buf_t *out);
/* Appends s as a JSON string literal (quotes included), escaping as needed;
 * invalid UTF-8 becomes U+FFFD. */
void json_put_string(buf_t *out, const char *s, size_t len);

#endif
