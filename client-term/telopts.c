/* telopts: the client's telnet options and NEW-ENVIRON requests. See
 * telopts.h. */
#include "telopts.h"

#include <string.h>

void telopts_fill(telnet_telopt_t out[TELOPTS_N], int is_tty, int ssh)
{
    telnet_telopt_t *o = out;
    *o++ = (telnet_telopt_t){TELNET_TELOPT_ECHO, TELNET_WONT, TELNET_DO};
    *o++ = (telnet_telopt_t){TELNET_TELOPT_SGA, TELNET_WILL, TELNET_DO};
    *o++ = (telnet_telopt_t){TELNET_TELOPT_BINARY, TELNET_WILL, TELNET_DO};
    *o++ = (telnet_telopt_t){TELNET_TELOPT_TTYPE, TELNET_WILL, TELNET_DONT};
    *o++ = (telnet_telopt_t){TELNET_TELOPT_NAWS, is_tty ? TELNET_WILL : TELNET_WONT, TELNET_DONT};
    *o++ =
        (telnet_telopt_t){TELNET_TELOPT_NEW_ENVIRON, ssh ? TELNET_WILL : TELNET_WONT, TELNET_DONT};
    *o = (telnet_telopt_t){-1, 0, 0};
}

/* NEW-ENVIRON is parsed from the raw subnegotiation rather than libtelnet's
 * ENVIRON event: Debian's libtelnet 0.21 telnet_begin_newenviron() drops the
 * command byte, so a server built with it sends "USERVAR name" with no
 * SEND in front. Both forms are a request; IS (0) never comes from a
 * server. */
static int telopts_env_is_request(const unsigned char *b, size_t n)
{
    return n == 0 || b[0] == TELNET_ENVIRON_SEND || b[0] == TELNET_ENVIRON_USERVAR;
}

/* Does the request name REMOTE_ADDR? An empty list asks for everything. */
static int telopts_env_wanted(const unsigned char *b, size_t n)
{
    static const char name[] = "REMOTE_ADDR";
    size_t i = (n > 0 && b[0] == TELNET_ENVIRON_SEND) ? 1 : 0;
    if (i >= n)
        return 1;
    for (; i + sizeof name - 1 < n; i++)
        if ((b[i] == TELNET_ENVIRON_USERVAR || b[i] == TELNET_ENVIRON_VAR) &&
            memcmp(b + i + 1, name, sizeof name - 1) == 0)
            return 1;
    return 0;
}

int telopts_environ_request(const unsigned char *b, size_t n)
{
    if (!telopts_env_is_request(b, n))
        return -1;
    return telopts_env_wanted(b, n);
}
