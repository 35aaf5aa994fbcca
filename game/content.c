/* content — loading the shared content: the Lua modules (script.h). */
#include <stdlib.h>
#include "content.h"
#include "script.h"

#ifndef WARREN_CONTENT_DIR
#define WARREN_CONTENT_DIR "game/content"
#endif

content_t *content_load(const char *dir, char *err, size_t errlen)
{
    return script_content_load(dir ? dir : WARREN_CONTENT_DIR, err, errlen);
}

void content_free(content_t *c)
{
    script_content_free(c);
}

const char *content_version(const content_t *c)
{
    return c->version;
}
