/* input — what a telnet client tells warrend besides keys: pure functions over the values libtelnet hands over, so the
 * daemon's handling of outside input is testable and fuzzable without a
 * socket (tests/fuzz/telnet_input.c drives them through libtelnet).
 *
 *   NAWS        window size: exactly 4 bytes, width and height big-endian
 *   TTYPE       terminal type name: kept as printable ASCII, others '?'
 *   NEW-ENVIRON REMOTE_ADDR from `warren --ssh`: hex digits, '.' and ':' */
#ifndef WARREN_INPUT_H
#define WARREN_INPUT_H
#include <stddef.h>
#include <libtelnet.h>

/* The options warrend offers and accepts (libtelnet's table, ends with -1). */
extern const telnet_telopt_t INPUT_TELOPTS[];

/* A NAWS subnegotiation: returns 0 with the size, or -1 when it is not 4
 * bytes (then nothing is set). Sizes are as sent, 0..65535. */
int input_naws(const unsigned char *b, size_t n, int *w, int *h);
/* A TTYPE IS name (NULL: "") into out, truncated to outlen - 1 bytes,
 * bytes outside printable ASCII replaced by '?'. outlen >= 1. */
void input_term_name(const char *name, char *out, size_t outlen);
/* A REMOTE_ADDR value: 0 with it in out when it is 1..outlen-1 characters
 * of hex digits, '.' and ':'; else -1 (out untouched). */
int input_remote_addr(const char *value, char *out, size_t outlen);

#endif
