-- speed must be a number
creature { name = "blob", glyph = "b", speed = "fast" }
