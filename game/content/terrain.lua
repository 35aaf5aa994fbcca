-- Terrain kinds, in the map generator's terrain order. Glyphs may be
-- Unicode (one column wide) when protocol/glyph.c has their ASCII fallback:
-- terminals that cannot show them get DEC line drawing or ASCII. Glyphs
-- that must not be confused stay apart in every glyph set, ASCII too:
-- shallow water ~, deep water ≈ (}), lava ≋ ({), rubble ∴ (;) beside a
-- newt's :. join:
-- "line" draws the terrain as box-drawing lines joined to its seen "line"
-- and "edge" neighbours (glyph: a cell joined to none); "edge" is joined to.
terrain { name = "rock", glyph = " ", fg = 7, opaque = true }
terrain { name = "wall", glyph = "#", fg = 7, opaque = true, join = "line" }
terrain { name = "floor", glyph = "·", fg = 7, passable = true }
terrain { name = "corridor", glyph = "░", fg = 8, passable = true }
terrain { name = "closed door", glyph = "+", fg = 3, opaque = true, join = "edge" }
terrain { name = "open door", glyph = "'", fg = 3, passable = true, join = "edge" }
terrain { name = "staircase up", glyph = "<", fg = 15, passable = true }
terrain { name = "staircase down", glyph = ">", fg = 15, passable = true }
terrain { name = "shallow water", glyph = "~", fg = 12, passable = true }
terrain { name = "deep water", glyph = "≈", fg = 4, hazard = "swim", dice = "1d6" }
terrain { name = "grass", glyph = '"', fg = 2, passable = true }
terrain { name = "tree", glyph = "♣", fg = 2, opaque = true }
terrain { name = "rubble", glyph = "∴", fg = 8, passable = true, opaque = true, move = 300 }
-- hazard: what stepping in does ("swim": deep water, a heavy pack drags
-- you under and things sink; "burn": its dice of fire; "fall": to the
-- level below, hurt by its dice). Monsters keep out of hazards. move:
-- percent of a step's time to enter (rubble is slow going).
-- Not made by the map generator: the door pass of each level. A secret
-- door looks like wall (joined as one) until it is found.
terrain { name = "locked door", glyph = "+", fg = 11, opaque = true, join = "edge" }
terrain { name = "wall", glyph = "#", fg = 7, opaque = true, join = "line" }
-- A broken door (kicked in) is a doorless doorway for good, as NetHack's:
-- drawn unlike an open door, and nothing closes it.
terrain { name = "broken door", glyph = ".", fg = 3, passable = true, join = "edge" }
-- Not made by the map generator either: special levels lay them.
terrain { name = "lava", glyph = "≋", fg = 9, hazard = "burn", dice = "4d6" }
terrain { name = "chasm", glyph = "▒", fg = 8, hazard = "fall", dice = "2d6" }
-- Not made by the map generator either: the overland (game/overland.c)
-- and the towns' ways out. A step there is a step at the continent's
-- scale: move gives its time (a road is quick going, hills and fords
-- slow), for monsters met on the way as much as for the player.
terrain { name = "way out of town", glyph = "<", fg = 15, passable = true }
terrain { name = "sea", glyph = "≈", fg = 4 }
terrain { name = "lake", glyph = "≈", fg = 12 }
terrain { name = "sea route", glyph = "≈", fg = 6 }
terrain { name = "open land", glyph = '"', fg = 2, passable = true, move = 600 }
terrain { name = "hills", glyph = "^", fg = 3, passable = true, move = 900 }
terrain { name = "river ford", glyph = "=", fg = 14, passable = true, move = 1000 }
terrain { name = "road", glyph = "·", fg = 11, passable = true, move = 300 }
terrain { name = "town", glyph = "*", fg = 15, passable = true, move = 300 }
terrain { name = "dungeon entrance", glyph = ">", fg = 9, passable = true, move = 600 }
