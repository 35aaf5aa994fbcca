/* input — telnet option values and the menu's line editor; see input.h. */
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

line_action_t input_line_key(char *line, size_t *len, size_t max, key_event_t k)
{
    if (k.code == KEY_ESC)
        return LINE_CANCEL;
    if (k.code == KEY_ENTER || k.code == '\n')
        return LINE_ENTER;
    if (k.code == KEY_BACKSPACE || k.code == 0x08) {
        /* drop one UTF-8 character */
        while (*len > 0 && ((unsigned char)line[--*len] & 0xC0) == 0x80)
            ;
    } else if (k.code == 0x15) { /* Ctrl-U */
        *len = 0;
    } else if (k.code >= 0x20 && k.code < 0x7F && !k.mods && *len < max) {
        line[(*len)++] = (char)k.code;
    } else {
        return LINE_IGNORED; /* other keys, and non-ASCII in names and passwords */
    }
    line[*len] = 0;
    return LINE_EDITED;
}
