/* Fuzz target: content declarations (game/declare.c).
 *
 * The input is one more Lua module loaded after the shipped ones (so it
 * may name their kinds, declare more, or break anything). Whatever it
 * says, the load gives content or NULL with a message; never a crash, a
 * leak, or a hang past the loader's budget. Content that loads is played
 * a little: whatever the checks let through, the engine can run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "declare.h"
#include "game.h"
#include "script.h"

#define MODULES_MAX 64

static char *paths[MODULES_MAX + 1];
static int n_paths;

/* The shipped modules in their order: the quoted "*.lua" names of
 * modules.lua (a plain list), each a path under the content directory. */
static void read_modules(void)
{
    FILE *f = fopen(WARREN_CONTENT_DIR "/modules.lua", "r");
    char text[4096];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[len] = 0;
    for (char *p = strchr(text, '"'); p && n_paths < MODULES_MAX; p = strchr(p + 1, '"')) {
        char *end = strchr(p + 1, '"');
        if (!end)
            break;
        *end = 0;
        if (end - p > 5 && strcmp(end - 4, ".lua") == 0 &&
            asprintf(&paths[n_paths], "%s/%s", WARREN_CONTENT_DIR, p + 1) > 0)
            n_paths++;
        p = end;
    }
}

static char input[] = "/tmp/warren-fuzz-content-XXXXXX.lua";

static void input_remove(void)
{
    unlink(input);
}

/* A file for the input, made once (and removed at exit). */
static const char *input_path(void)
{
    static int made;
    if (!made) {
        int fd = mkstemps(input, 4);
        if (fd < 0)
            return NULL;
        close(fd);
        atexit(input_remove);
        made = 1;
    }
    return input;
}

static void play(const content_t *c, script_vm_t *vm)
{
    static const char KEYS[] = "xhjklyubn.s>Z<Qn";
    game_t *g = game_new(c, 7, NULL);
    for (int i = 0; g && KEYS[i]; i++)
        game_input(g, vm, (key_event_t){(uint32_t)KEYS[i], 0});
    screen_t *s = screen_new(80, 24);
    if (g && s)
        game_render(g, s, NULL);
    screen_free(s);
    game_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static script_vm_t *vm; /* kept for the whole run */
    if (!n_paths)
        read_modules();
    if (!vm)
        vm = script_vm_new();
    const char *in = input_path();
    FILE *f = in && vm && n_paths && size < (1u << 16) ? fopen(in, "w") : NULL;
    if (!f)
        return 0;
    size_t wrote = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || wrote != size)
        return 0;
    paths[n_paths] = (char *)in;
    char err[256] = "";
    content_t *c = declare_load_files((const char *const *)paths, n_paths + 1, err, sizeof err);
    if (!c && !err[0])
        abort(); /* a failed load always says why */
    if (c) {
        play(c, vm);
        script_vm_forget(vm, c);
        declare_free(c);
    }
    return 0;
}
