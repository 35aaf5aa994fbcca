-- Item kinds. weight: tenths of a pound; duration: turns; power: damage dice (weapons, wands),
-- hit points (healing), coins (gold); freq: generation weight between
-- min_depth and max_depth. Potions, scrolls, wands, rings and amulets get a
-- random flavour per game until identified; "obvious" ones identify
-- themselves when used where the player can see.

-- weapons ("throw": made for throwing too, t or f: its own dice, no penalty)
item { name = "short sword", class = "weapon", slot = "weapon", glyph = ")", fg = 7, weight = 50,
       power = "1d6", dtype = "slash", min_depth = 1, freq = 12 }
item { name = "dagger", like = "short sword", weight = 10, power = "1d4", dtype = "pierce", to_hit = 1,
       flags = { "throw" }, freq = 12 }
item { name = "club", like = "short sword", weight = 30, power = "1d6", dtype = "blunt", to_hit = 0, freq = 10 }
item { name = "spear", like = "short sword", weight = 50, power = "1d8", dtype = "pierce", to_hit = 0, range = 6,
       flags = { "throw" }, freq = 10 }
item { name = "mace", like = "short sword", weight = 80, power = "1d8+1", dtype = "blunt", to_hit = 0, min_depth = 2,
       freq = 8 }
item { name = "long sword", like = "short sword", weight = 40, power = "1d10", dtype = "slash", to_hit = 0,
       min_depth = 3, freq = 8 }
item { name = "battle axe", like = "short sword", weight = 70, power = "1d12", dtype = "slash", to_hit = -1,
       min_depth = 4, freq = 6 }
item { name = "war hammer", like = "short sword", weight = 90, power = "2d6", dtype = "blunt", to_hit = -1,
       min_depth = 5, freq = 5 }
item { name = "morning star", like = "short sword", weight = 100, power = "2d5+1", dtype = "blunt", to_hit = 0,
       min_depth = 7, freq = 4 }
item { name = "great sword", like = "short sword", weight = 150, power = "2d8", dtype = "slash", to_hit = -1,
       min_depth = 9, freq = 3 }
item { name = "rune blade", like = "short sword", weight = 40, power = "2d6+2", dtype = "slash", to_hit = 3,
       min_depth = 12, freq = 2 }

-- launchers (slot "launcher": beside the weapon in hand) fire their `ammo`
-- (f, from the quiver); a shot's damage is the missile's dice plus the
-- launcher's damage; range in steps
item { name = "sling", class = "weapon", slot = "launcher", glyph = "}", fg = 3, weight = 5, ammo = "stone",
       power = "0", damage = 1, range = 8, min_depth = 1, freq = 6 }
item { name = "short bow", like = "sling", fg = 3, weight = 30, ammo = "arrow", damage = 2, range = 10,
       min_depth = 1, freq = 6 }
item { name = "long bow", like = "sling", fg = 6, weight = 30, ammo = "arrow", damage = 3, to_hit = 1, range = 12,
       min_depth = 4, freq = 4 }
item { name = "light crossbow", like = "sling", fg = 7, weight = 60, ammo = "bolt", damage = 4, range = 11,
       min_depth = 3, freq = 4 }
item { name = "heavy crossbow", like = "sling", fg = 8, weight = 120, ammo = "bolt", damage = 6, to_hit = -1,
       range = 12, min_depth = 8, freq = 2 }

-- ammunition and darts (class "missile", glyph {): stacks; `breaks` is
-- the percent that break when they hit, the rest can be picked up again
item { name = "arrow", class = "missile", glyph = "{", fg = 3, weight = 1, ammo = "arrow", power = "1d6",
       dtype = "pierce", breaks = 35, flags = { "stack", "known" }, min_depth = 1, freq = 10 }
item { name = "silver arrow", like = "arrow", fg = 15, power = "1d8", to_hit = 2, breaks = 20, min_depth = 6,
       freq = 2 }
item { name = "crossbow bolt", like = "arrow", fg = 7, weight = 2, ammo = "bolt", power = "1d8", breaks = 25,
       min_depth = 3, freq = 6 }
item { name = "sling stone", like = "arrow", fg = 8, weight = 4, ammo = "stone", power = "1d4", dtype = "blunt",
       breaks = 10, freq = 8 }
item { name = "iron shot", like = "sling stone", fg = 7, power = "1d6", breaks = 5, min_depth = 4, freq = 3 }
item { name = "dart", like = "arrow", fg = 6, weight = 1, ammo = "none", power = "1d3", to_hit = 1, breaks = 20,
       range = 8, flags = { "stack", "known", "throw" }, freq = 8 }

-- armour, shields, helms
-- body armour is a mass noun ("some chain mail"), a robe is not
item { name = "leather armour", class = "armour", slot = "body", glyph = "[", fg = 3, weight = 150,
       defence = 2, absorb = 1, flags = { "mass" }, min_depth = 1, freq = 10 }
item { name = "studded leather armour", like = "leather armour", weight = 200, defence = 3, absorb = 1,
       freq = 8 }
item { name = "ring mail", like = "leather armour", fg = 7, weight = 250, defence = 3, absorb = 2,
       min_depth = 2, freq = 7 }
item { name = "chain mail", like = "leather armour", fg = 7, weight = 300, defence = 4, absorb = 3,
       min_depth = 4, freq = 5 }
item { name = "splint mail", like = "leather armour", fg = 7, weight = 400, defence = 5, absorb = 4,
       min_depth = 7, freq = 3 }
item { name = "plate armour", like = "leather armour", fg = 15, weight = 450, defence = 6, absorb = 5,
       min_depth = 10, freq = 2 }
item { name = "elven mail", like = "leather armour", fg = 14, weight = 150, defence = 5, absorb = 3,
       min_depth = 12, freq = 1 }
item { name = "buckler", class = "shield", slot = "shield", glyph = "[", fg = 3, weight = 50, defence = 1,
       min_depth = 1, freq = 8 }
item { name = "large shield", like = "buckler", fg = 7, weight = 120, defence = 2, absorb = 1, min_depth = 3,
       freq = 5 }
item { name = "tower shield", like = "buckler", fg = 15, weight = 200, defence = 3, absorb = 2, min_depth = 8,
       freq = 2 }
item { name = "robe", class = "armour", slot = "body", glyph = "[", fg = 5, weight = 20, defence = 1,
       min_depth = 1, freq = 4 }
item { name = "scale mail", like = "leather armour", fg = 7, weight = 350, defence = 4, absorb = 3,
       min_depth = 5, freq = 4 }
item { name = "leather cap", class = "helm", slot = "head", glyph = "[", fg = 3, weight = 15, defence = 1,
       min_depth = 1, freq = 8 }
item { name = "iron helm", like = "leather cap", fg = 7, weight = 50, defence = 2, min_depth = 4, freq = 4 }

-- potions
-- healing: its dice and magnitude hundredths of the drinker's most hit points
item { name = "potion of healing", plural = "potions of healing", class = "potion", glyph = "!", fg = 13,
       weight = 4, use = "heal", power = "4d8", magnitude = 20, flags = { "stack", "obvious" }, min_depth = 1,
       freq = 30 }
item { name = "potion of extra healing", like = "potion of healing", use = "cast", does = "vigour",
       power = "8d8+10", min_depth = 4, freq = 12 }
item { name = "potion of curing", like = "potion of healing", use = "cure", power = "1d8", min_depth = 1,
       freq = 10 }
item { name = "potion of restore abilities", like = "potion of healing", use = "restore", power = "0",
       min_depth = 3, freq = 5 }
item { name = "potion of regeneration", like = "potion of healing", use = "effect", effect = "regeneration",
       duration = "2d10+30", magnitude = 1, min_depth = 2, freq = 8 }
item { name = "potion of speed", like = "potion of regeneration", effect = "haste", duration = "1d10+20",
       min_depth = 3, freq = 6 }
item { name = "potion of free action", like = "potion of regeneration", effect = "free action",
       duration = "1d20+50", min_depth = 4, freq = 4 }
item { name = "potion of might", like = "potion of regeneration", effect = "might", duration = "1d10+25",
       min_depth = 3, freq = 5 }
item { name = "potion of reflexes", like = "potion of regeneration", effect = "reflexes",
       duration = "1d10+25", min_depth = 3, freq = 5 }
item { name = "potion of combat mastery", like = "potion of regeneration", effect = "combat mastery",
       duration = "1d10+25", min_depth = 6, freq = 3 }
item { name = "potion of blindness", like = "potion of regeneration", effect = "blindness",
       duration = "1d10+20", min_depth = 1, freq = 6 }
item { name = "potion of confusion", like = "potion of regeneration", effect = "confusion",
       duration = "1d6+8", min_depth = 1, freq = 6 }
item { name = "potion of paralysis", like = "potion of regeneration", effect = "paralysis",
       duration = "1d4+3", min_depth = 2, freq = 4 }

-- scrolls
item { name = "scroll of identify", plural = "scrolls of identify", class = "scroll", glyph = "?", fg = 15,
       weight = 5, use = "identify", flags = { "stack", "obvious" }, min_depth = 1, freq = 25 }
item { name = "scroll of teleportation", like = "scroll of identify", use = "teleport",
       flags = { "stack", "obvious" }, freq = 10 }
item { name = "scroll of magic mapping", like = "scroll of identify", use = "map", flags = { "stack", "obvious" },
       min_depth = 2, freq = 8 }
item { name = "scroll of enchant weapon", like = "scroll of identify", use = "enchant_weapon",
       flags = { "stack", "obvious" }, freq = 8 }
item { name = "scroll of enchant armour", like = "scroll of identify", use = "enchant_armour",
       flags = { "stack", "obvious" }, freq = 8 }
item { name = "scroll of remove curse", like = "scroll of identify", use = "remove_curse", min_depth = 2,
       flags = { "stack" }, freq = 6 }
item { name = "scroll of fear", like = "scroll of identify", use = "fear", flags = { "stack", "obvious" },
       effect = "fear", duration = "1d10+10", freq = 6 }
item { name = "scroll of light", like = "scroll of identify", use = "light", flags = { "stack", "obvious" },
       freq = 8 }
item { name = "scroll of curse", like = "scroll of identify", use = "curse", flags = { "stack" },
       min_depth = 3, freq = 3 }
item { name = "scroll of summoning", like = "scroll of identify", use = "summon", flags = { "stack", "obvious" },
       min_depth = 2, freq = 4 }

-- wands (zapped in a direction; charges)
item { name = "wand of magic missile", class = "wand", glyph = "-", fg = 14, weight = 7, use = "bolt",
       dtype = "magic", power = "3d4", charges = "1d6+4", flags = { "obvious" }, min_depth = 1, freq = 8 }
-- fire bursts in a ball round where it strikes, frost is a cone, lightning
-- a beam through everything on its line (spell effects, `does`)
item { name = "wand of fire", like = "wand of magic missile", use = "cast", does = "area", radius = 1,
       dtype = "fire", power = "5d6", charges = "1d4+3", min_depth = 5, freq = 4 }
item { name = "wand of frost", like = "wand of magic missile", use = "cast", does = "cone", radius = 4,
       dtype = "cold", power = "4d6", charges = "1d4+3", min_depth = 4, freq = 4 }
item { name = "wand of lightning", like = "wand of magic missile", use = "cast", does = "beam",
       dtype = "lightning", power = "4d8", charges = "1d4+3", min_depth = 6, freq = 3 }
item { name = "wand of slowness", like = "wand of magic missile", use = "bolt_effect", effect = "slowness",
       duration = "1d10+10", dtype = "none", power = "0", min_depth = 2, freq = 4 }
item { name = "wand of paralysis", like = "wand of slowness", effect = "paralysis", duration = "1d4+3",
       min_depth = 4, freq = 3 }
item { name = "wand of confusion", like = "wand of slowness", effect = "confusion", duration = "1d6+6",
       min_depth = 1, freq = 4 }
item { name = "wand of fear", like = "wand of slowness", effect = "fear", duration = "1d10+10",
       min_depth = 2, freq = 4 }

-- rings and amulets (bonuses while worn)
item { name = "ring of protection", class = "ring", slot = "ring", glyph = "=", fg = 11, weight = 1,
       defence = 3, min_depth = 2, freq = 5 }
item { name = "ring of accuracy", like = "ring of protection", defence = 0, to_hit = 3, freq = 5 }
item { name = "ring of damage", like = "ring of protection", defence = 0, damage = 3, min_depth = 4, freq = 4 }
item { name = "ring of speed", like = "ring of protection", defence = 0, speed = 30, min_depth = 10, freq = 1 }
item { name = "ring of weakness", like = "ring of protection", defence = 0, to_hit = -3, damage = -2,
       flags = { "cursed" }, min_depth = 1, freq = 4 }
item { name = "amulet of warding", class = "amulet", slot = "neck", glyph = '"', fg = 6, weight = 3,
       absorb = 2, min_depth = 3, freq = 3 }
item { name = "amulet of the warrior", like = "amulet of warding", absorb = 0, to_hit = 2, damage = 2,
       min_depth = 5, freq = 2 }
item { name = "amulet of clumsiness", like = "amulet of warding", absorb = 0, defence = -4,
       flags = { "cursed" }, min_depth = 2, freq = 3 }

-- food and money
item { name = "ration of food", plural = "rations of food", class = "food", glyph = "%", fg = 3, weight = 10,
       use = "eat", nutrition = 3000, flags = { "stack", "known" }, min_depth = 1, freq = 22 }
item { name = "loaf of bread", plural = "loaves of bread", like = "ration of food", weight = 6,
       nutrition = 1500, freq = 14 }
item { name = "strip of jerky", plural = "strips of jerky", like = "ration of food", fg = 1, weight = 2,
       nutrition = 700, freq = 8 }
item { name = "apple", like = "ration of food", fg = 10, weight = 3, nutrition = 400, freq = 6 }
item { name = "gold piece", plural = "gold pieces", class = "gold", glyph = "$", fg = 11, weight = 0,
       power = "3d10", flags = { "stack", "known" }, min_depth = 1, freq = 40 }
