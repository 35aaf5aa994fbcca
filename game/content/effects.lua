-- Timed effects; hooks are the engine's, by name.
effect { name = "poison", tag = "Poison", stacking = "add", interval = 100,
         start = "poison_start", tick = "poison_tick", finish = "poison_end" }
-- What potions, scrolls, wands and spells put on a creature. The "status"
-- hook prints start_msg and end_msg (about <Actor>, the one affected) and
-- heals `heal` hit points a tick; the bonuses, speed (added, in percent
-- points) and speed_pct (a multiplier, in percent) and the conditions
-- (flags) are read by the rules while it lasts, so several compose and
-- wear off exactly. save: what resists it when something else puts it on
-- you (fort, ref or will; none when you drink it).
-- Slowed: half speed while it lasts (fire and cold on a flesh golem).
effect { name = "slow", tag = "Slow", stacking = "refresh", interval = 100, start = "status",
         tick = "status", finish = "status", speed_pct = 50,
         start_msg = "<Actor> slow<s:Actor> down.", end_msg = "<Actor> speed<s:Actor> up again." }
effect { name = "regeneration", tag = "Regen", interval = 100, start = "status", tick = "status",
         finish = "status", heal = 1, start_msg = "<Actor> feel<s:Actor> <his:Actor> wounds knitting.",
         end_msg = "<Actor> <v:Actor:stops/stop> regenerating." }
effect { name = "haste", tag = "Fast", interval = 100, start = "status", tick = "status", finish = "status",
         speed = 100, start_msg = "<Actor> <v:Actor:speeds/speed> up.", end_msg = "<Actor> slow<s:Actor> down." }
effect { name = "free action", tag = "Free", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "free_action" },
         start_msg = "<Actor> feel<s:Actor> unhindered.", end_msg = "<Actor> feel<s:Actor> less nimble." }
effect { name = "might", tag = "Mighty", interval = 100, start = "status", tick = "status", finish = "status",
         damage = 4, to_hit = 2, start_msg = "<Actor> feel<s:Actor> mighty.",
         end_msg = "<Actor> feel<s:Actor> <his:Actor> strength ebb." }
effect { name = "reflexes", tag = "Quick", interval = 100, start = "status", tick = "status",
         finish = "status", defence = 4, start_msg = "<Actor> feel<s:Actor> light on <his:Actor> feet.",
         end_msg = "<Actor> feel<s:Actor> clumsy again." }
effect { name = "combat mastery", tag = "Master", interval = 100, start = "status", tick = "status",
         finish = "status", to_hit = 5, damage = 2, defence = 2,
         start_msg = "<Actor> feel<s:Actor> like a seasoned warrior.",
         end_msg = "<Actor> <v:Actor:loses/lose> <his:Actor> fighting edge." }
effect { name = "blindness", tag = "Blind", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "blind" }, to_hit = -4, save = "fort",
         start_msg = "<Actor> <is:Actor> blinded!", end_msg = "<Actor> can see again." }
effect { name = "confusion", tag = "Confused", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "confused" }, save = "will", start_msg = "<Actor> <is:Actor> confused.",
         end_msg = "<Actor> <v:Actor:feels/feel> less confused." }
effect { name = "paralysis", tag = "Paralysed", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "paralysed" }, save = "will", start_msg = "<Actor> <is:Actor> paralysed!",
         end_msg = "<Actor> can move again." }
effect { name = "fear", tag = "Afraid", interval = 100, start = "status", tick = "status", finish = "status",
         flags = { "afraid" }, save = "will", start_msg = "<Actor> <is:Actor> terrified!",
         end_msg = "<Actor> <v:Actor:regains/regain> <his:Actor> courage." }
effect { name = "slowness", tag = "Slowed", interval = 100, start = "status", tick = "status",
         finish = "status", speed_pct = 50, save = "will",
         start_msg = "<Actor> <v:Actor:slows/slow> down.",
         end_msg = "<Actor> <v:Actor:speeds/speed> up again." }
-- What buff spells put on the caster.
effect { name = "shield", tag = "Shield", interval = 100, start = "status", tick = "status", finish = "status",
         defence = 4, start_msg = "<Actor> <is:Actor> wrapped in a shimmering shield.",
         end_msg = "<Actor> <v:Actor:loses/lose> <his:Actor> shimmering shield." }
effect { name = "blessing", tag = "Blessed", interval = 100, start = "status", tick = "status", finish = "status",
         to_hit = 2, defence = 2, start_msg = "<Actor> feel<s:Actor> righteous.",
         end_msg = "<Actor> feel<s:Actor> less righteous." }
-- What monsters' own scripts put on you (their `on` handlers, verb.h).
-- A basilisk's gaze: stone creeping into the limbs (free action keeps them moving).
effect { name = "petrifying", tag = "Stone", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "paralysed" }, save = "fort",
         start_msg = "<Actor> <is:Actor> turning to stone!", end_msg = "<Actor> can move again." }
-- Held fast: engulfed by a cube, swallowed by a frog, stuck to a mimic.
-- Each step away is a Ref save against the holder, and the hold ends
-- when the holder is gone.
effect { name = "held", tag = "Held", interval = 100, start = "status", tick = "status",
         finish = "status", flags = { "held" }, start_msg = "<Actor> <is:Actor> held fast!",
         end_msg = "<Actor> <is:Actor> free again." }
-- A troll's flesh that fire has seared does not knit for a while.
effect { name = "seared", tag = "Seared", interval = 100, start = "status", tick = "status",
         finish = "status" }
-- A ghast's stench.
effect { name = "nausea", tag = "Sick", interval = 100, start = "status", tick = "status",
         finish = "status", to_hit = -3, defence = -2, save = "fort",
         start_msg = "<Actor> retch<es:Actor> at the stench.", end_msg = "<Actor> feel<s:Actor> less queasy." }
-- A minotaur's charge: the weight of the run behind one blow.
effect { name = "charging", tag = "Charge", interval = 100, start = "status", tick = "status",
         finish = "status", to_hit = 2, damage = 3 }
-- What the potions of heroism and berserk strength put on you: both end
-- fear and keep it off (brave).
effect { name = "heroism", tag = "Hero", interval = 100, start = "status", tick = "status", finish = "status",
         to_hit = 3, flags = { "brave" }, start_msg = "<Actor> feel<s:Actor> like a hero.",
         end_msg = "<Actor> feel<s:Actor> ordinary again." }
effect { name = "berserk", tag = "Berserk", interval = 100, start = "status", tick = "status", finish = "status",
         to_hit = 2, damage = 5, defence = -5, flags = { "brave" },
         start_msg = "<Actor> <v:Actor:flies/fly> into a berserk rage!", end_msg = "<Actor> calm<s:Actor> down." }
