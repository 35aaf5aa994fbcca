-- The first creatures. The player's kind comes first.
creature { name = "you", glyph = "@", fg = 15, speed = 100, hp = "0d1+20", attack = "1d6+1",
           to_hit = 3, defence = 3 }
creature { name = "jackal", glyph = "d", fg = 3, speed = 150, hp = "1d4+1", attack = "1d2",
           to_hit = 0, defence = 1 }
creature { name = "kobold", glyph = "k", fg = 2, gender = 1, hp = "2d4", attack = "1d4",
           to_hit = 1, defence = 2 }
creature { name = "cave spider", glyph = "s", fg = 8, speed = 120, hp = "1d3+1", attack = "1d2",
           to_hit = 1, defence = 2, handlers = { "poison_bite" } }
creature { name = "giant newt", glyph = ":", fg = 11, speed = 50, hp = "1d4+2", attack = "1d3" }

-- where they appear
oddment { creature = "jackal", min_depth = 1, weight = 30 }
oddment { creature = "kobold", min_depth = 1, weight = 30 }
oddment { creature = "cave spider", min_depth = 1, weight = 20 }
oddment { creature = "giant newt", min_depth = 1, weight = 20 }
