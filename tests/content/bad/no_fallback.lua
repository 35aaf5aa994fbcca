-- a Unicode glyph without an ASCII fallback in protocol/glyph.c

creature { name = "lambda", glyph = "λ", speed = 100 }
