/* content — loading the shared content: the Lua modules (declare.h). */
#include <stdlib.h>
#include "content.h"
#include "declare.h"

#ifndef WARREN_CONTENT_DIR
#define WARREN_CONTENT_DIR "game/content"
#endif

content_t *content_load(const char *dir, char *err, size_t errlen)
{
    return declare_load(dir ? dir : WARREN_CONTENT_DIR, err, errlen);
}

void content_free(content_t *c)
{
    declare_free(c);
}

const char *content_version(const content_t *c)
{
    return c->version;
}
