-- five more spells (the most a set of 32 takes), and a creature that casts them
spell { name = "spark", mana = 1, effect = "bolt", dtype = "lightning", dice = "1d6" }
spell { name = "mend", mana = 2, effect = "heal", dice = "1d8" }
spell { name = "frost breath", mana = 0, effect = "breath", dtype = "cold", dice = "2d6" }
spell { name = "daze", mana = 2, effect = "hex", status = "slow", dice = "1d4" }
spell { name = "burst", mana = 5, effect = "area", dtype = "acid", dice = "2d4", radius = 2 }
creature { name = "frost drake", glyph = "d", fg = 14, hp = "4d8", attack = "1d8", level = 6, min_depth = 1,
           weight = 50, spells = { "frost breath", "daze", "mend" }, flags = { "dragon" } }
