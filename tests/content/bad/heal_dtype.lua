-- a heal has no damage type
spell { name = "warm hands", mana = 1, effect = "heal", dtype = "fire", dice = "1d4" }
