/* input — telnet option values; see input.h. */
#include "input.h"
#include <stdio.h>
#include <string.h>

const telnet_telopt_t INPUT_TELOPTS[] = {
    {TELNET_TELOPT_ECHO, TELNET_WILL, TELNET_DONT},
    {TELNET_TELOPT_SGA, TELNET_WILL, TELNET_DO},
    {TELNET_TELOPT_NAWS, TELNET_WONT, TELNET_DO},
    {TELNET_TELOPT_TTYPE, TELNET_WONT, TELNET_DO},
    {TELNET_TELOPT_BINARY, TELNET_WILL, TELNET_DO},
    {TELNET_TELOPT_NEW_ENVIRON, TELNET_WONT, TELNET_DO},
    {-1, 0, 0},
};

int input_naws(const unsigned char *b, size_t n, int *w, int *h)
{
    if (n != 4)
        return -1;
    *w = b[0] << 8 | b[1];
    *h = b[2] << 8 | b[3];
    return 0;
}

void input_term_name(const char *name, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", name ? name : "");
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
            *p = '?';
}

int input_remote_addr(const char *value, char *out, size_t outlen)
{
    size_t n = value ? strlen(value) : 0;
    if (n == 0 || n >= outlen || strspn(value, "0123456789abcdefABCDEF.:") != n)
        return -1;
    memcpy(out, value, n + 1);
    return 0;
}
