-- Region kinds: what a room, cave or vault is called, where it appears,
-- whether it is lit (absent: by depth), and the rules it brings.
-- dark: light reaches only the next cell inside it.
-- sky: open sky in daylight: ground once seen keeps its colours out of view
-- (a step does not repaint every shadow cast by trees and houses).
-- handlers: the engine's region handlers by name ("slippery": you may
-- slide one step further on its wet floor).
region { name = "the town of Burrowmouth", min_depth = 0, max_depth = 0, weight = 1, shapes = { "town" }, lit = true,
         sky = true }
region { name = "a cottage", min_depth = 0, max_depth = 0, weight = 4, shapes = { "building" }, lit = true, sky = true }
-- The shops' regions (weight 0: town.lua's shops give them to buildings
-- and dungeon rooms, the generator never picks them).
region { name = "the general store", min_depth = 0, max_depth = 0, weight = 0, shapes = { "building" }, lit = true, sky = true }
region { name = "the temple", min_depth = 0, max_depth = 0, weight = 0, shapes = { "building" }, lit = true, sky = true }
region { name = "the sage's house", min_depth = 0, max_depth = 0, weight = 0, shapes = { "building" }, lit = true, sky = true }
region { name = "a trader's den", min_depth = 1, max_depth = 20, weight = 0, lit = true }
region { name = "a hermit's chapel", min_depth = 1, max_depth = 20, weight = 0, lit = true }
-- The surface beyond the town (overland.c; world.lua names them): the
-- wilds of the overland, the streets of the other towns, and their inn
-- (town.lua's shop); never picked by the generator.
region { name = "the wilds", min_depth = 0, max_depth = 0, weight = 0, lit = false, sky = true }
region { name = "a market town", min_depth = 0, max_depth = 0, weight = 0, shapes = { "town" }, lit = true,
         sky = true }
region { name = "the travellers' inn", min_depth = 0, max_depth = 0, weight = 0, shapes = { "building" },
         lit = true, sky = true }
-- The branches' halls (branches.lua), never picked by the generator.
region { name = "a barrow hall", min_depth = 1, max_depth = 20, weight = 0, lit = false }
region { name = "a webbed cave", min_depth = 1, max_depth = 20, weight = 0, dark = true }
region { name = "a flooded gallery", min_depth = 1, max_depth = 20, weight = 0, lit = false,
         handlers = { "slippery" } }
region { name = "a goblin den", min_depth = 1, max_depth = 20, weight = 0, lit = false }
region { name = "a wolf den", min_depth = 1, max_depth = 20, weight = 0, lit = false }
region { name = "a smoking pit", min_depth = 1, max_depth = 20, weight = 0, lit = true }
-- Special levels' regions (special.lua), never picked by the generator.
region { name = "the drowned halls", min_depth = 1, max_depth = 20, weight = 0, lit = false,
         handlers = { "slippery" } }
region { name = "the broken deeps", min_depth = 1, max_depth = 20, weight = 0, lit = false }
region { name = "the warden's lair", min_depth = 20, max_depth = 20, weight = 0, lit = true }
region { name = "a dusty room", min_depth = 1, max_depth = 20, weight = 10, shapes = { "rooms" } }
region { name = "a guard room", min_depth = 2, max_depth = 14, weight = 5, shapes = { "rect", "octagon", "cross" } }
region { name = "a pillared hall", min_depth = 1, max_depth = 20, weight = 8, shapes = { "pillared" } }
region { name = "a flooded hall", min_depth = 3, max_depth = 20, weight = 4,
         shapes = { "rect", "overlap", "pillared" }, lit = false, handlers = { "slippery" } }
region { name = "a shrine", min_depth = 4, max_depth = 20, weight = 3, shapes = { "circle", "octagon", "cross" }, lit = true }
region { name = "a dark crypt", min_depth = 6, max_depth = 20, weight = 5, shapes = { "rooms" }, dark = true }
region { name = "a hall of the old kings", min_depth = 12, max_depth = 20, weight = 3,
         shapes = { "pillared", "overlap" }, lit = true }
region { name = "a kobold warren", min_depth = 1, max_depth = 8, weight = 8, shapes = { "caves" }, lit = false }
region { name = "a bat roost", min_depth = 3, max_depth = 15, weight = 3, shapes = { "caves" }, dark = true }
region { name = "a fungus grotto", min_depth = 5, max_depth = 20, weight = 6, shapes = { "caves" } }
region { name = "a collapsed tunnel", min_depth = 1, max_depth = 20, weight = 4, shapes = { "rough" }, lit = false }
region { name = "an icy cavern", min_depth = 8, max_depth = 20, weight = 3, shapes = { "caves" },
         lit = false, handlers = { "slippery" } }
region { name = "a forgotten vault", min_depth = 1, max_depth = 20, weight = 5, shapes = { "vault" } }
