-- Spell books: reading one teaches its spell to a class that may learn
-- it, once the reader's experience level is the spell's (spells.lua);
-- another class cannot make sense of it, and a book not yet understood
-- stays unread. Found from the spell's level down (a little before it),
-- sold in the town's store and by the sage.
item { name = "book of fire bolt", plural = "books of fire bolt", class = "scroll", glyph = "?", fg = 14, weight = 30,
       use = "learn", spell = "fire bolt", flags = { "known" }, min_depth = 1, freq = 2, value = 150 }
item { name = "book of frost bolt", plural = "books of frost bolt", like = "book of fire bolt", spell = "frost bolt", min_depth = 1,
       value = 150 }
item { name = "book of lightning bolt", plural = "books of lightning bolt", like = "book of fire bolt", spell = "lightning bolt", min_depth = 5,
       value = 270 }
item { name = "book of confuse", plural = "books of confuse", like = "book of fire bolt", spell = "confuse", min_depth = 1,
       value = 120 }
item { name = "book of stinking cloud", plural = "books of stinking cloud", like = "book of fire bolt", spell = "stinking cloud", min_depth = 2,
       value = 180 }
item { name = "book of fireball", plural = "books of fireball", like = "book of fire bolt", spell = "fireball", min_depth = 7,
       value = 330 }
item { name = "book of ice storm", plural = "books of ice storm", like = "book of fire bolt", spell = "ice storm", min_depth = 11,
       value = 450 }
item { name = "book of shield", plural = "books of shield", like = "book of fire bolt", spell = "shield", min_depth = 1,
       value = 120 }
item { name = "book of haste self", plural = "books of haste self", like = "book of fire bolt", spell = "haste self", min_depth = 9,
       value = 390 }
item { name = "book of slow", plural = "books of slow", like = "book of fire bolt", spell = "slow", min_depth = 3,
       value = 210 }
item { name = "book of identify", plural = "books of identify", like = "book of fire bolt", spell = "identify", min_depth = 3,
       value = 210 }
item { name = "book of clairvoyance", plural = "books of clairvoyance", like = "book of fire bolt", spell = "clairvoyance", min_depth = 6,
       value = 300 }
item { name = "book of blink", plural = "books of blink", like = "book of fire bolt", spell = "blink", min_depth = 4,
       value = 240 }
item { name = "book of chain lightning", plural = "books of chain lightning", like = "book of fire bolt", spell = "chain lightning", min_depth = 12,
       value = 480 }
item { name = "book of cone of cold", plural = "books of cone of cold", like = "book of fire bolt", spell = "cone of cold", min_depth = 14,
       value = 540 }
item { name = "book of smite", plural = "books of smite", like = "book of fire bolt", spell = "smite", min_depth = 1,
       value = 90 }
item { name = "book of scare", plural = "books of scare", like = "book of fire bolt", spell = "scare", min_depth = 1,
       value = 120 }
item { name = "book of hold", plural = "books of hold", like = "book of fire bolt", spell = "hold", min_depth = 4,
       value = 240 }
item { name = "book of heal wounds", plural = "books of heal wounds", like = "book of fire bolt", spell = "heal wounds", min_depth = 7,
       value = 330 }
item { name = "book of bless", plural = "books of bless", like = "book of fire bolt", spell = "bless", min_depth = 1,
       value = 150 }
item { name = "book of remove curse", plural = "books of remove curse", like = "book of fire bolt", spell = "remove curse", min_depth = 3,
       value = 210 }
item { name = "book of call light", plural = "books of call light", like = "book of fire bolt", spell = "call light", min_depth = 1,
       value = 90 }
item { name = "book of find traps", plural = "books of find traps", like = "book of fire bolt", spell = "find traps", min_depth = 1,
       value = 120 }
item { name = "book of holy fire", plural = "books of holy fire", like = "book of fire bolt", spell = "holy fire", min_depth = 6,
       value = 300 }
item { name = "book of cure poison", plural = "books of cure poison", like = "book of fire bolt", spell = "cure poison", min_depth = 1,
       value = 150 }
item { name = "book of holy word", plural = "books of holy word", like = "book of fire bolt", spell = "holy word", min_depth = 10,
       value = 420 }
item { name = "book of restoration", plural = "books of restoration", like = "book of fire bolt", spell = "restoration", min_depth = 14,
       value = 540 }
