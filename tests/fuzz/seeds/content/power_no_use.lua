-- a power does what an item use does: it must name one
spell { name = "blank page", mana = 1, effect = "power", dice = "0" }
