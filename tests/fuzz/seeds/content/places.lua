-- traps of each action, a region, a vault, a room shape, a shop and a special level
trap { name = "dart trap", action = "damage", dtype = "hit", dice = "1d4", msg = "A dart flies out!" }
trap { name = "sleep gas", action = "effect", effect = "slow", dice = "1d6", msg = "Gas!" }
trap { name = "warp", action = "teleport", msg = "The floor shimmers." }
trap { name = "pit", action = "fall", dice = "1d6", msg = "You fall!" }
trap { name = "bell", action = "alarm", msg = "A bell rings." }
region { name = "a damp grotto", min_depth = 1, max_depth = 8, weight = 50, shapes = { "caves" }, dark = true }
vault { name = "cell", rows = [[
#####
#.1.#
#####]], min_depth = 1, max_depth = 20, weight = 30 }
room { shape = "cross", weight = 40 }
shop { region = "a damp grotto", keeper = "kobold", classes = { "potion" }, stock = 3, min_depth = 1,
       max_depth = 5, chance = 50, services = { heal = 20 } }
special_level { name = "the grotto", depth = 2, region = "a damp grotto", water = 6, rubble = 3,
                creature = "kobold", extra = 4, msg = "Water drips everywhere." }
