/* content — loading the shared content. For now the default tables are
 * const C data (rules.c); a file loader will fill the same tables. */
#include <stdio.h>
#include <stdlib.h>
#include "content.h"
#include "rules.h"

content_t *content_load(const char *dir, char *err, size_t errlen)
{
    (void)dir; /* no content files yet: the built-in tables are the content */
    content_t *c = calloc(1, sizeof *c);
    if (!c) {
        if (err && errlen) snprintf(err, errlen, "content: out of memory");
        return NULL;
    }
    rules_default_content(c);
    return c;
}

void content_free(content_t *c) { free(c); }

const char *content_version(const content_t *c) { return c->version; }
