-- a hex names an effect that was declared
spell { name = "cold eye", mana = 1, effect = "hex", status = "chill", dice = "1d4" }
