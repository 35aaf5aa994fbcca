-- Timed effects; hooks are the engine's, by name.
effect { name = "poison", tag = "Poison", stacking = "add", interval = 100,
         start = "poison_start", tick = "poison_tick", finish = "poison_end" }
