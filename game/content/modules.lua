-- The content modules, loaded in this order; a module may name kinds of
-- the modules before it (creatures and classes name spells).
return { "terrain.lua", "rooms.lua", "regions.lua", "vaults.lua", "spells.lua", "creatures.lua",
         "classes.lua", "effects.lua", "items.lua", "golems.lua", "rules.lua" }
