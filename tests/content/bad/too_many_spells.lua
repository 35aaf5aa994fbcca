-- spell sets are 16 bits: the shipped six and ten more fit, the next does not
spell { name = "extra 1", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 2", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 3", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 4", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 5", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 6", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 7", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 8", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 9", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 10", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 11", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
