-- a caller calls a kind declared before it
creature { name = "caller", glyph = "c", summon = "nobody" }
