-- a hex puts an effect on its target: it must name one
spell { name = "evil eye", mana = 1, effect = "hex", dice = "1d4" }
