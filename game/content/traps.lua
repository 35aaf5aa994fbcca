-- Traps: each level hides a few (more the deeper), found by searching
-- (waiting searches the cells around you) or by a glance as you pass.
-- A trap springs when the player steps on it; a known one may be stepped
-- over (a Reflex save). action: damage (dice of dtype), effect (the named
-- timed effect for dice turns; its own save resists), teleport (somewhere
-- else on the level), fall (through to the level below), alarm (wakes the
-- level). msg is what the player reads as it springs.
trap { name = "dart trap", action = "damage", dtype = "hit", dice = "1d4", min_depth = 1,
       weight = 20, msg = "A little dart shoots out at you!" }
trap { name = "poison needle", action = "effect", effect = "poison", dice = "1d6", min_depth = 1,
       weight = 12, msg = "A poisoned needle pricks you!" }
trap { name = "pit", action = "damage", dtype = "hit", dice = "1d6", min_depth = 1, weight = 20,
       msg = "You fall into a pit!" }
trap { name = "alarm trap", action = "alarm", min_depth = 1, weight = 10,
       msg = "A shrill alarm rings through the level!" }
trap { name = "teleport trap", action = "teleport", min_depth = 2, weight = 10,
       msg = "The floor flashes with light." }
trap { name = "trap door", action = "fall", min_depth = 2, max_depth = 19, weight = 8,
       msg = "A trap door opens under you!" }
trap { name = "flash rune", action = "effect", effect = "blindness", dice = "2d4", min_depth = 3,
       weight = 10, msg = "A rune flares in your eyes!" }
trap { name = "confusion gas trap", action = "effect", effect = "confusion", dice = "1d6", min_depth = 3,
       weight = 10, msg = "A cloud of purple gas billows up!" }
trap { name = "spiked pit", action = "damage", dtype = "hit", dice = "2d6", min_depth = 5,
       weight = 12, msg = "You fall onto spikes!" }
trap { name = "fire rune", action = "damage", dtype = "fire", dice = "3d6", min_depth = 6,
       weight = 10, msg = "The floor bursts into flame!" }
trap { name = "frost rune", action = "damage", dtype = "cold", dice = "3d6", min_depth = 8,
       weight = 8, msg = "A blast of frost engulfs you!" }
trap { name = "acid trap", action = "damage", dtype = "acid", dice = "4d6", min_depth = 11,
       weight = 8, msg = "Acid sprays from the walls!" }
trap { name = "slowing rune", action = "effect", effect = "slowness", dice = "3d4", min_depth = 9,
       weight = 8, msg = "Your limbs grow heavy." }
