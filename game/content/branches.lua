-- Branches: the dungeons of the other territories (atlas.c), one behind
-- each territory's entrance on the overland ("the barrow of Vethmark").
-- A territory takes one of these themes by the game's seed; its levels are
-- made as the Warren's are, at the depth the territory's distance from
-- home gives, then reshaped like a special level: a special_level with
-- branch = true and no depth (special.lua's fields: region, blobs of
-- terrain, extra creatures, msg on the first arrival).
special_level { branch = true, name = "the barrow", region = "a barrow hall", rubble = 4, creature = "skeleton", extra = 6,
                msg = "Cold air and the smell of old earth. The dead of the first kings do not sleep here." }
special_level { branch = true, name = "the spider caves", region = "a webbed cave", creature = "cave spider", extra = 10,
                msg = "Webs hang in every passage and something skitters in the dark." }
special_level { branch = true, name = "the flooded mine", region = "a flooded gallery", water = 16, deep = 6, creature = "giant frog",
                extra = 5, msg = "Water drips from rotten timbers. The lower galleries have filled." }
special_level { branch = true, name = "the goblin holes", region = "a goblin den", rubble = 6, creature = "goblin", extra = 10,
                msg = "Goblin marks on every wall, and the stink of their fires." }
special_level { branch = true, name = "the wolf dens", region = "a wolf den", creature = "wolf", extra = 6,
                msg = "Gnawed bones, and the rank smell of wolves." }
special_level { branch = true, name = "the fire pits", region = "a smoking pit", lava = 6, rubble = 4, creature = "fire beetle",
                extra = 8, msg = "Smoke and sulphur: the rock itself burns down here." }
