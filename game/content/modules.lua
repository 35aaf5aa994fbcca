-- The content modules, loaded in this order; a module may name kinds of
-- the modules before it.
return { "terrain.lua", "rooms.lua", "regions.lua", "vaults.lua", "creatures.lua", "classes.lua",
         "effects.lua",
         "items.lua", "golems.lua", "rules.lua" }
