-- spell sets are 16 bits: the shipped ten and six more fit, the next does not
spell { name = "extra 1", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 2", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 3", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 4", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 5", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 6", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
spell { name = "extra 7", mana = 1, effect = "bolt", dtype = "fire", dice = "1d2" }
