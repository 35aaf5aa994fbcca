-- Egos: runic properties some weapons and armour come with as treasure
-- (a chance of 3 % + 1 % a level, at most 20 %), and that artifacts have
-- for good. Fields: classes (the item classes it comes on), brand (an
-- element whose brand_dice every blow adds: none to what is immune to it,
-- half to what resists it, half again to what it harms more), slays
-- (creature sorts of creatures.lua: undead orc giant dragon demon animal)
-- and slay_dice (added to blows on them), resist (elements halved while
-- it is worn), to_hit, damage, defence, speed, stealth (bonuses while
-- equipped), min_depth and freq (generation weight from that depth down).
-- An ego is known when the item's enchantment is.

-- weapons
ego { name = "of flame", classes = { "weapon" }, brand = "fire", brand_dice = "1d6", min_depth = 3, freq = 10 }
ego { name = "of frost", classes = { "weapon" }, brand = "cold", brand_dice = "1d6", min_depth = 3, freq = 10 }
ego { name = "of shocking", classes = { "weapon" }, brand = "lightning", brand_dice = "1d8", min_depth = 5,
      freq = 8 }
ego { name = "of venom", classes = { "weapon" }, brand = "poison", brand_dice = "1d4", min_depth = 1, freq = 8 }
ego { name = "of slay undead", classes = { "weapon" }, slays = { "undead" }, slay_dice = "2d6", min_depth = 4,
      freq = 8 }
ego { name = "of slay orcs", classes = { "weapon" }, slays = { "orc" }, slay_dice = "2d6", min_depth = 1,
      freq = 8 }
ego { name = "of slay giants", classes = { "weapon" }, slays = { "giant" }, slay_dice = "3d6", min_depth = 8,
      freq = 6 }
ego { name = "of slay dragons", classes = { "weapon" }, slays = { "dragon" }, slay_dice = "3d6", min_depth = 10,
      freq = 5 }
ego { name = "of slay animals", classes = { "weapon" }, slays = { "animal" }, slay_dice = "1d8", min_depth = 1,
      freq = 8 }
ego { name = "of accuracy", classes = { "weapon" }, to_hit = 3, min_depth = 1, freq = 10 }
ego { name = "of power", classes = { "weapon" }, damage = 3, min_depth = 5, freq = 8 }

-- armour, shields and helms
ego { name = "of fire resistance", classes = { "armour", "shield", "helm" }, resist = { "fire" }, min_depth = 2,
      freq = 10 }
ego { name = "of cold resistance", classes = { "armour", "shield", "helm" }, resist = { "cold" }, min_depth = 2,
      freq = 10 }
ego { name = "of lightning resistance", classes = { "armour", "shield", "helm" }, resist = { "lightning" },
      min_depth = 4, freq = 8 }
ego { name = "of poison resistance", classes = { "armour", "helm" }, resist = { "poison" }, min_depth = 4,
      freq = 6 }
ego { name = "of resistance", classes = { "armour", "shield" }, resist = { "fire", "cold", "lightning", "acid" },
      min_depth = 10, freq = 4 }
ego { name = "of protection", classes = { "armour", "shield", "helm" }, defence = 3, min_depth = 1, freq = 10 }
ego { name = "of stealth", classes = { "armour" }, stealth = 3, min_depth = 3, freq = 6 }
