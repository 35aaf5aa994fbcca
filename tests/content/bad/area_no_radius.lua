-- an area bursts over a radius: it must give one
spell { name = "damp squib", mana = 1, effect = "area", dtype = "fire", dice = "1d4" }
