-- a bolt must say how it hurts
spell { name = "blank bolt", mana = 1, effect = "bolt", dice = "1d4" }
