-- More item kinds (fields as in items.lua; resist: elements halved while
-- equipped), and the artifacts: named, one of a kind, made at most once a
-- game (flag "artifact"), each with its ego of egos.lua for good.

-- weapons
item { name = "hand axe", like = "dagger", weight = 50, power = "1d6", dtype = "slash", to_hit = 0, min_depth = 1,
       freq = 8 }
item { name = "quarterstaff", like = "dagger", weight = 40, power = "1d6", dtype = "blunt", to_hit = 1,
       min_depth = 1, freq = 8 }
item { name = "rapier", like = "dagger", weight = 25, power = "1d6", dtype = "pierce", to_hit = 2, min_depth = 2,
       freq = 6 }
item { name = "scimitar", like = "dagger", weight = 40, power = "1d8", dtype = "slash", to_hit = 0, min_depth = 2,
       freq = 6 }
item { name = "flail", like = "dagger", weight = 70, power = "1d8+1", dtype = "blunt", to_hit = 0, min_depth = 3,
       freq = 6 }
item { name = "trident", like = "dagger", weight = 70, power = "1d10", dtype = "pierce", to_hit = -1,
       min_depth = 4, freq = 4 }
item { name = "bastard sword", like = "dagger", weight = 60, power = "1d12", dtype = "slash", to_hit = 0,
       min_depth = 6, freq = 4 }
item { name = "halberd", like = "dagger", weight = 150, power = "2d6+1", dtype = "slash", to_hit = -1,
       min_depth = 7, freq = 3 }
item { name = "great axe", like = "dagger", weight = 160, power = "2d7", dtype = "slash", to_hit = -2,
       min_depth = 9, freq = 3 }
item { name = "mithril sword", like = "dagger", fg = 15, weight = 30, power = "2d6", dtype = "slash", to_hit = 2,
       min_depth = 11, freq = 2 }

-- armour, shields, helms
item { name = "padded armour", like = "leather armour", fg = 7, weight = 100, defence = 1, absorb = 1,
       min_depth = 1, freq = 8 }
item { name = "hide armour", like = "leather armour", weight = 250, defence = 3, absorb = 2, min_depth = 2,
       freq = 6 }
item { name = "banded mail", like = "leather armour", fg = 7, weight = 380, defence = 5, absorb = 4,
       min_depth = 8, freq = 3 }
item { name = "mithril mail", like = "leather armour", fg = 15, weight = 150, defence = 6, absorb = 4,
       min_depth = 14, freq = 1 }
item { name = "kite shield", like = "buckler", fg = 7, weight = 90, defence = 2, min_depth = 2, freq = 5 }
item { name = "great helm", like = "leather cap", fg = 7, weight = 80, defence = 3, absorb = 1, min_depth = 7,
       freq = 3 }

-- potions
-- The healing potions differ in more than strength: cure light wounds
-- mends (a little, and poison ends), healing heals and clears the eyes and
-- head, extra healing heals past full into more hit points and ends every
-- ailment, full healing makes whole (every hit point, every ailment,
-- drained abilities) -- spell effects of spellfx.h, `does`.
item { name = "potion of cure light wounds", plural = "potions of cure light wounds", like = "potion of healing",
       use = "cast", does = "mend", power = "2d8", min_depth = 1, freq = 15 }
item { name = "potion of full healing", plural = "potions of full healing", like = "potion of healing",
       use = "cast", does = "renew", power = "0", min_depth = 12, freq = 3 }
-- heroism: steady nerves (no fear) and a keener eye; berserk strength: harder
-- blows, no fear, and no thought for defence
item { name = "potion of heroism", plural = "potions of heroism", like = "potion of might", effect = "heroism",
       duration = "1d10+15", min_depth = 2, freq = 5 }
item { name = "potion of berserk strength", plural = "potions of berserk strength",
       like = "potion of combat mastery", effect = "berserk", duration = "1d10+15", min_depth = 4, freq = 4 }
item { name = "potion of slowness", plural = "potions of slowness", like = "potion of regeneration",
       effect = "slowness", duration = "1d10+10", min_depth = 1, freq = 5 }
item { name = "potion of poison", plural = "potions of poison", like = "potion of regeneration",
       effect = "poison", duration = "1d6+4", magnitude = 2, min_depth = 1, freq = 5 }

-- scrolls
-- blessing: a blessing on you; holy chant: a word that burns the undead
-- and demons in sight and puts them to flight; slow monsters: everything in
-- sight slowed (a Will save each); darkness: everything that sees you
-- loses track of you
item { name = "scroll of blessing", plural = "scrolls of blessing", like = "scroll of identify", use = "effect",
       effect = "blessing", duration = "1d10+20", flags = { "stack", "obvious" }, min_depth = 1, freq = 6 }
item { name = "scroll of holy chant", plural = "scrolls of holy chant", like = "scroll of teleportation",
       use = "cast", does = "holy", dtype = "magic", power = "3d8", min_depth = 4, freq = 4 }
item { name = "scroll of slow monsters", plural = "scrolls of slow monsters", like = "scroll of blessing",
       use = "cast", does = "mass_hex", effect = "slowness", duration = "1d10+10", min_depth = 5, freq = 3 }
item { name = "scroll of darkness", plural = "scrolls of darkness", like = "scroll of teleportation",
       use = "cast", does = "shroud", power = "0", min_depth = 1, freq = 4 }

-- wands
-- force throws what it strikes back (into the wall, harder), teleport
-- other sends it elsewhere on the level, sparks leap from one creature to
-- the next
item { name = "wand of force", like = "wand of magic missile", use = "cast", does = "push", dtype = "none",
       power = "3d6", charges = "1d4+3", min_depth = 6, freq = 3 }
item { name = "wand of teleport other", like = "wand of magic missile", use = "cast", does = "banish",
       dtype = "none", power = "0", charges = "1d4+2", min_depth = 3, freq = 4 }
item { name = "wand of sparks", like = "wand of magic missile", use = "cast", does = "chain", dtype = "lightning",
       power = "2d6", charges = "1d6+4", min_depth = 2, freq = 4 }
item { name = "wand of blindness", like = "wand of slowness", effect = "blindness", duration = "1d10+10",
       min_depth = 2, freq = 3 }
item { name = "wand of haste monster", like = "wand of slowness", effect = "haste", duration = "1d10+10",
       min_depth = 3, freq = 2 }

-- rings and amulets
item { name = "ring of fire resistance", like = "ring of protection", defence = 0, resist = { "fire" },
       min_depth = 3, freq = 4 }
item { name = "ring of cold resistance", like = "ring of protection", defence = 0, resist = { "cold" },
       min_depth = 3, freq = 4 }
item { name = "ring of lightning resistance", like = "ring of protection", defence = 0, resist = { "lightning" },
       min_depth = 5, freq = 3 }
item { name = "ring of poison resistance", like = "ring of protection", defence = 0, resist = { "poison" },
       min_depth = 4, freq = 3 }
item { name = "ring of power", like = "ring of protection", defence = 0, damage = 5, min_depth = 12, freq = 1 }
item { name = "ring of warding", like = "ring of protection", defence = 0, absorb = 2, min_depth = 6, freq = 2 }
item { name = "amulet of resistance", like = "amulet of warding", absorb = 0,
       resist = { "fire", "cold", "lightning", "acid" }, min_depth = 10, freq = 1 }
item { name = "amulet of the adder", like = "amulet of warding", absorb = 0, resist = { "poison" },
       min_depth = 3, freq = 2 }
item { name = "amulet of vitality", like = "amulet of warding", absorb = 1, defence = 2, min_depth = 6, freq = 2 }
item { name = "amulet of inertia", like = "amulet of warding", absorb = 0, speed = -20, flags = { "cursed" },
       min_depth = 3, freq = 2 }

-- food
item { name = "slime mold", like = "ration of food", fg = 10, weight = 5, nutrition = 1000, freq = 5 }
item { name = "elvish waybread", plural = "pieces of elvish waybread", like = "ration of food", fg = 15,
       weight = 3, nutrition = 4000, min_depth = 5, freq = 3 }
item { name = "dried fish", plural = "dried fish", like = "ration of food", fg = 7, weight = 4, nutrition = 900,
       freq = 5 }
item { name = "wedge of cheese", plural = "wedges of cheese", like = "ration of food", fg = 11, weight = 5,
       nutrition = 1200, freq = 5 }

-- artifacts: one of a kind, named, with an ego for good
item { name = "Emberfang", like = "long sword", fg = 9, flags = { "artifact" }, ego = "of flame", to_hit = 3,
       damage = 3, min_depth = 6, freq = 1, value = 500 }
item { name = "Orcbane", like = "short sword", fg = 10, flags = { "artifact" }, ego = "of slay orcs", to_hit = 2,
       damage = 2, min_depth = 3, freq = 1, value = 300 }
item { name = "Gravewarden", like = "mace", fg = 15, flags = { "artifact" }, ego = "of slay undead", to_hit = 2,
       damage = 4, min_depth = 8, freq = 1, value = 600 }
item { name = "Rimebiter", like = "battle axe", fg = 12, flags = { "artifact" }, ego = "of frost", to_hit = 2,
       damage = 4, min_depth = 9, freq = 1, value = 700 }
item { name = "Wyrmbreaker", like = "war hammer", fg = 14, flags = { "artifact" }, ego = "of slay dragons",
       to_hit = 3, damage = 5, min_depth = 13, freq = 1, value = 1000 }
item { name = "Duskmantle", like = "leather armour", fg = 8, flags = { "artifact" }, ego = "of stealth",
       defence = 5, absorb = 2, min_depth = 5, freq = 1, value = 500 }
item { name = "Stoneward", like = "tower shield", fg = 7, flags = { "artifact" }, ego = "of resistance",
       defence = 5, absorb = 2, min_depth = 11, freq = 1, value = 900 }
