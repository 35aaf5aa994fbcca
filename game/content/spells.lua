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
-- monsters one for every sixth to bolts and breath), level (the experience level a character
-- may learn it at: a pick at each level, or its book). Bolts, hexes and
-- areas aim with the target cursor. The effects of spellfx.h (beam, cone,
-- chain, push, banish, mend, vigour, renew, holy, mass_hex, shroud) serve
-- spells and items alike.
spell { name = "magic missile", level = 1, mana = 2, effect = "bolt", dtype = "magic", dice = "2d4" }
spell { name = "fire bolt", level = 3, mana = 4, effect = "bolt", dtype = "fire", dice = "3d6" }
spell { name = "frost bolt", level = 3, mana = 4, effect = "bolt", dtype = "cold", dice = "3d6" }
spell { name = "lightning bolt", level = 7, mana = 6, effect = "bolt", dtype = "lightning", dice = "5d6" }
spell { name = "cure wounds", level = 1, mana = 3, effect = "heal", dice = "2d8" }
spell { name = "smite", level = 1, mana = 3, effect = "bolt", dtype = "magic", dice = "2d6" }
spell { name = "fire breath", level = 1, mana = 0, effect = "breath", dtype = "fire", dice = "3d6" }
spell { name = "scare", level = 2, mana = 3, effect = "hex", status = "fear", dice = "1d4+2" }
spell { name = "confuse", level = 2, mana = 3, effect = "hex", status = "confusion", dice = "1d4+2" }
spell { name = "hold", level = 6, mana = 5, effect = "hex", status = "paralysis", dice = "1d2+1" }
spell { name = "stinking cloud", level = 4, mana = 5, effect = "area", dtype = "poison", dice = "2d6", radius = 1 }
spell { name = "fireball", level = 9, mana = 9, effect = "area", dtype = "fire", dice = "4d6", radius = 2 }
spell { name = "ice storm", level = 13, mana = 12, effect = "area", dtype = "cold", dice = "5d6", radius = 2 }
spell { name = "shield", level = 2, mana = 4, effect = "buff", status = "shield", dice = "2d10+20" }
spell { name = "haste self", level = 11, mana = 10, effect = "buff", status = "haste", dice = "1d10+10" }
spell { name = "slow", level = 5, mana = 4, effect = "hex", status = "slowness", dice = "1d6+4" }
spell { name = "identify", level = 5, mana = 6, effect = "power", use = "identify", dice = "0" }
spell { name = "clairvoyance", level = 8, mana = 8, effect = "power", use = "map", dice = "0" }
spell { name = "blink", level = 6, mana = 5, effect = "power", use = "teleport", dice = "0" }
spell { name = "heal wounds", level = 9, mana = 7, effect = "heal", dice = "5d8" }
spell { name = "bless", level = 3, mana = 3, effect = "buff", status = "blessing", dice = "2d10+20" }
spell { name = "remove curse", level = 5, mana = 6, effect = "power", use = "remove_curse", dice = "0" }
spell { name = "call light", level = 1, mana = 2, effect = "power", use = "light", dice = "0" }
spell { name = "find traps", level = 2, mana = 3, effect = "detect", radius = 8, dice = "0" }
spell { name = "holy fire", level = 8, mana = 8, effect = "area", dtype = "magic", dice = "3d6", radius = 1 }
spell { name = "cure poison", level = 3, mana = 4, effect = "power", use = "cure", dice = "1d8" }
spell { name = "summon kin", level = 1, mana = 0, effect = "summon", dice = "1d2" }
-- The last third's spells: a chain of lightning that leaps from foe to foe,
-- a cone of cold, a word that burns the unholy, the body made whole.
spell { name = "chain lightning", level = 14, mana = 12, effect = "chain", dtype = "lightning", dice = "5d6" }
spell { name = "cone of cold", level = 16, mana = 14, effect = "cone", dtype = "cold", dice = "6d6", radius = 5 }
spell { name = "holy word", level = 12, mana = 10, effect = "holy", dtype = "magic", dice = "5d8" }
spell { name = "restoration", level = 16, mana = 18, effect = "renew", dice = "0" }
