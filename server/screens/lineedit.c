/* lineedit — the prompts' one-line editor; see lineedit.h. */
#include "lineedit.h"

line_action_t lineedit_key(char *line, size_t *len, size_t max, key_event_t k)
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
