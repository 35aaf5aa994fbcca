-- a spell's dice must be dice
spell { name = "sleet", mana = 3, effect = "bolt", dtype = "cold", dice = "lots" }
