/* warren-engine — dispatches to a subcommand from TOOL_CMDS. */
#include <stdio.h>
#include <string.h>
#include "tool.h"

const tool_cmd_t TOOL_CMDS[] = {
#define TOOL_CMD_ROW_(n, h) {#n, cmd_##n, h},
    TOOL_CMD_LIST(TOOL_CMD_ROW_)
#undef TOOL_CMD_ROW_
        {NULL, NULL, NULL},
};

static int usage(FILE *f)
{
    fprintf(f, "usage: warren-engine COMMAND [options]\n");
    for (const tool_cmd_t *c = TOOL_CMDS; c->name; c++)
        fprintf(f, "  %s\n", c->help);
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
        return usage(stdout);
    for (const tool_cmd_t *c = TOOL_CMDS; c->name; c++)
        if (!strcmp(c->name, argv[1]))
            return c->run(argc - 1, argv + 1);
    fprintf(stderr, "warren-engine: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
