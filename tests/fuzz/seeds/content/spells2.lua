-- the other effects, and a class that knows them
spell { name = "quicken", mana = 3, effect = "buff", status = "haste", dice = "1d10+5" }
spell { name = "call kin", mana = 0, effect = "summon", dice = "1d3" }
spell { name = "know", mana = 4, effect = "power", use = "identify", dice = "0" }
spell { name = "sense", mana = 2, effect = "detect", radius = 5, dice = "0" }
class { name = "sorcerer", hit_die = 6, bab = 50, saves = { "will" }, mana = 4,
        spells = { "quicken", "know", "sense", "magic missile" }, learns = { "fireball" } }
creature { name = "drake caller", like = "kobold", spells = { "call kin", "quicken" }, min_depth = 1, weight = 40 }
