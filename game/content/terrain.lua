-- Terrain kinds, in the map generator's terrain order.
terrain { name = "rock", glyph = " ", fg = 7, opaque = true }
terrain { name = "wall", glyph = "#", fg = 7, opaque = true }
terrain { name = "floor", glyph = ".", fg = 7, passable = true }
terrain { name = "corridor", glyph = "#", fg = 8, passable = true }
terrain { name = "closed door", glyph = "+", fg = 3, opaque = true }
terrain { name = "open door", glyph = "'", fg = 3, passable = true }
terrain { name = "staircase up", glyph = "<", fg = 15, passable = true }
terrain { name = "staircase down", glyph = ">", fg = 15, passable = true }
terrain { name = "shallow water", glyph = "~", fg = 12, passable = true }
terrain { name = "deep water", glyph = "~", fg = 4 }
terrain { name = "grass", glyph = '"', fg = 2, passable = true }
terrain { name = "tree", glyph = "&", fg = 2, opaque = true }
terrain { name = "rubble", glyph = ":", fg = 8, passable = true, opaque = true }
