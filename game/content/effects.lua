-- Timed effects; hooks are the engine's, by name.
effect { name = "poison", tag = "Poison", stacking = "add", interval = 100,
         start = "poison_start", tick = "poison_tick", finish = "poison_end" }
-- Slowed: half speed while it lasts (fire and cold on a flesh golem).
effect { name = "slow", tag = "Slow", stacking = "refresh", interval = 100,
         start = "slow_start", tick = "slow_tick", finish = "slow_end" }
