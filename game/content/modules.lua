-- The content modules, loaded in this order; a module may name kinds of
-- the modules before it (spells name effects; creatures and classes name
-- spells; items and traps name effects; shops name regions, creatures
-- and item classes; special levels and branches name regions and
-- creatures; the world names regions).
return { "terrain.lua", "rooms.lua", "regions.lua", "vaults.lua", "effects.lua", "traps.lua", "spells.lua",
         "creatures.lua", "classes.lua", "items.lua", "golems.lua", "bestiary.lua",
         "egos.lua", "treasure.lua", "town.lua", "special.lua", "branches.lua", "rules.lua",
         "world.lua" }
