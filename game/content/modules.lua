-- The content modules, loaded in this order; a module may name kinds of
-- the modules before it (spells name effects; creatures and classes name
-- spells; items and traps name effects).
return { "terrain.lua", "rooms.lua", "regions.lua", "vaults.lua", "effects.lua", "traps.lua", "spells.lua",
         "creatures.lua", "classes.lua", "items.lua", "golems.lua", "rules.lua" }
