-- Spells. A spell's id is its place in this list: classes and creatures
-- name spells, but a character's known spells are saved by id, so a new
-- spell goes last (at most 32). Fields: mana (what a cast costs the
-- player), effect ("bolt": damage to the first creature on the line to
-- the target; "heal": hit points back to the caster; "breath": a
-- monster's breath; "hex": an effect of effects.lua, `status`, on the
-- first creature on the line, for `dice` turns, which the effect's save
-- resists; "area": damage to every creature within `radius` of where the
-- line ends, the caster spared; "buff": `status` on the caster for `dice`
-- turns; "summon": `dice` creatures of the depth around the caster;
-- "power": an item use (`use`: identify, map, light, teleport,
-- remove_curse, heal, cure) done by the caster, `dice` its power;
-- "detect": hidden traps and doors within `radius` found), dtype (a
-- bolt's, area's or breath's damage type: fire cold lightning acid poison
-- magic hit; a Ref save halves an element's), dice (damage or healing;
-- casters add a die for every fourth level of theirs to bolts and areas,
-- monsters to bolts and breath). Bolts, hexes and areas aim with the
-- target cursor.
spell { name = "magic missile", mana = 2, effect = "bolt", dtype = "magic", dice = "2d4" }
spell { name = "fire bolt", mana = 4, effect = "bolt", dtype = "fire", dice = "3d6" }
spell { name = "frost bolt", mana = 4, effect = "bolt", dtype = "cold", dice = "3d6" }
spell { name = "lightning bolt", mana = 6, effect = "bolt", dtype = "lightning", dice = "5d6" }
spell { name = "cure wounds", mana = 4, effect = "heal", dice = "2d8" }
spell { name = "smite", mana = 4, effect = "bolt", dtype = "magic", dice = "2d6" }
spell { name = "fire breath", mana = 0, effect = "breath", dtype = "fire", dice = "3d6" }
spell { name = "scare", mana = 3, effect = "hex", status = "fear", dice = "1d4+2" }
spell { name = "confuse", mana = 3, effect = "hex", status = "confusion", dice = "1d4+2" }
spell { name = "hold", mana = 5, effect = "hex", status = "paralysis", dice = "1d2+1" }
spell { name = "stinking cloud", mana = 5, effect = "area", dtype = "poison", dice = "2d6", radius = 1 }
spell { name = "fireball", mana = 9, effect = "area", dtype = "fire", dice = "4d6", radius = 2 }
spell { name = "ice storm", mana = 12, effect = "area", dtype = "cold", dice = "5d6", radius = 2 }
spell { name = "shield", mana = 4, effect = "buff", status = "shield", dice = "2d10+20" }
spell { name = "haste self", mana = 10, effect = "buff", status = "haste", dice = "1d10+10" }
spell { name = "slow", mana = 4, effect = "hex", status = "slowness", dice = "1d6+4" }
spell { name = "identify", mana = 6, effect = "power", use = "identify", dice = "0" }
spell { name = "clairvoyance", mana = 8, effect = "power", use = "map", dice = "0" }
spell { name = "blink", mana = 5, effect = "power", use = "teleport", dice = "0" }
spell { name = "heal wounds", mana = 9, effect = "heal", dice = "5d8" }
spell { name = "bless", mana = 3, effect = "buff", status = "blessing", dice = "2d10+20" }
spell { name = "remove curse", mana = 6, effect = "power", use = "remove_curse", dice = "0" }
spell { name = "call light", mana = 2, effect = "power", use = "light", dice = "0" }
spell { name = "find traps", mana = 3, effect = "detect", radius = 8, dice = "0" }
spell { name = "holy fire", mana = 8, effect = "area", dtype = "magic", dice = "3d6", radius = 1 }
spell { name = "cure poison", mana = 4, effect = "power", use = "cure", dice = "1d8" }
spell { name = "summon kin", mana = 0, effect = "summon", dice = "1d2" }
