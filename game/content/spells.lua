-- Spells. A spell's id is its place in this list: classes and creatures
-- name spells, but a character's known spells are saved by id, so a new
-- spell goes last (at most 16). Fields: mana (what a cast costs the
-- player), effect ("bolt": damage to the nearest foe in view; "heal": hit
-- points back to the caster; "breath": a monster's breath; "hex": an
-- effect of effects.lua, `status`, on a foe in view, for `dice` turns,
-- which the effect's save resists), dtype (a bolt's or breath's damage
-- type: fire cold lightning acid poison magic hit; a Ref save halves an
-- element's), dice (damage or healing; casters add a die for every fourth
-- level of theirs, monsters to bolts and breath only).
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
