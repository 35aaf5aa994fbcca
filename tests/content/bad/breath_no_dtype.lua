-- a breath must say what it breathes
creature { name = "wheezer", glyph = "w", breath = "cone", breath_dice = "2d6", breath_range = 3 }
