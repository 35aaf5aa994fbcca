#!/usr/bin/python3
"""Adds lackey_lines.c's marker reads to game/tool/cmd_play.c of the tree
given (a scratch build, not to commit): lk_mark[0] before each key's
game_input, [64] before game_render, [128] before ansi_diff, [192] after.
    tests/bench/lackey_mark.py TREE && make bin/warren-engine
"""
import sys

path = sys.argv[1] + "/game/tool/cmd_play.c"
s = open(path).read()
s = s.replace(
    "static void frames_take(play_frames_t *fr, game_t *g)\n{\n    buf_reset(&fr->b);\n"
    "    game_render(g, fr->grid, &fr->v);\n    ansi_diff(&fr->prof, fr->sent, fr->grid, &fr->b);",
    "volatile unsigned char lk_mark[256] __attribute__((aligned(64)));\n"
    "static void frames_take(play_frames_t *fr, game_t *g)\n{\n    buf_reset(&fr->b);\n"
    "    (void)lk_mark[64];\n    game_render(g, fr->grid, &fr->v);\n    (void)lk_mark[128];\n"
    "    ansi_diff(&fr->prof, fr->sent, fr->grid, &fr->b);\n    (void)lk_mark[192];", 1)
s = s.replace("    game_input(p->g, p->vm, k);\n    p->fed++;",
              "    (void)lk_mark[0];\n    game_input(p->g, p->vm, k);\n    p->fed++;", 1)
if s.count("lk_mark") != 5:
    sys.exit("lackey_mark: cmd_play.c is not as expected")
open(path, "w").write(s)
