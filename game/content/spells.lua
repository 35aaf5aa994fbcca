-- Spells. A spell's id is its place in this list: classes and creatures
-- name spells, but a character's known spells are saved by id, so a new
-- spell goes last (at most 16). Fields: mana (what a cast costs the
-- player), effect ("bolt": damage to the nearest foe in view; "heal": hit
-- points back to the caster), dtype (a bolt's damage type: fire cold
-- lightning acid poison magic hit), dice (damage or healing; casters add a
-- die for every fourth level of theirs, monsters to bolts only).
spell { name = "magic missile", mana = 2, effect = "bolt", dtype = "magic", dice = "2d4" }
spell { name = "fire bolt", mana = 4, effect = "bolt", dtype = "fire", dice = "3d6" }
spell { name = "frost bolt", mana = 4, effect = "bolt", dtype = "cold", dice = "3d6" }
spell { name = "lightning bolt", mana = 6, effect = "bolt", dtype = "lightning", dice = "5d6" }
spell { name = "cure wounds", mana = 3, effect = "heal", dice = "2d8" }
spell { name = "smite", mana = 3, effect = "bolt", dtype = "magic", dice = "2d8" }
