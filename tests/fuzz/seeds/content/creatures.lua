-- variants, abilities, handlers and generation
creature { name = "rust kobold", like = "kobold", fg = 3, hp = "2d4",
           on = { damage = function(e) if e.dtype == "acid" then e.amount = 0 return "done" end end } }
creature { name = "ash hound", glyph = "C", fg = 8, speed = 120, hp = "3d6", attack = "1d6", min_depth = 1,
           weight = 40, breath = "cone", breath_dtype = "fire", breath_dice = "2d6", breath_range = 4,
           recharge = 5, pack = 2, flags = { "animal", "pack" }, resist = { "fire" }, vuln = { "cold" } }
creature { name = "quick thief", glyph = "p", fg = 6, hp = "2d6", steal = "item", blink = true,
           min_depth = 1, weight = 30, buff = "haste", summon = "kobold", summon_max = 2,
           missile = "1d4", range = 5, shoots = "throw<s:Actor> a knife", drain = "dex" }
oddment { creature = "rust kobold", min_depth = 1, max_depth = 5, weight = 20 }
