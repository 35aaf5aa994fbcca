-- More creatures, with the abilities of ability.h besides blows and spells:
-- breath = "cone" or "line" (breath_dtype, breath_dice, breath_range in
-- cells; recharge: turns before it breathes or casts again), buff (an
-- effect of effects.lua it puts on itself before a fight), summon (a
-- creature kind it calls to its side, never while summon_max of them are
-- on the level), blink (hops away from a foe beside it when hurt, or when
-- it does better from afar), and the "pack" flag (a pack spreads out
-- round its foe). The sorts undead, orc, giant, dragon and demon are what
-- slaying weapons slay. Powers of a kind's own are its `on` handlers
-- (game/verb.h: e.steal("gold") after a wounding blow takes gold unless
-- you make a Ref save, then the thief hops away and flees; e.engulf,
-- e.split, e.disguise, e.status...); disguise = {name, glyph, fg} is
-- what a kind passes for until its handler gives it away.

-- depths 1-5
creature { name = "wild dog", glyph = "d", fg = 6, speed = 120, hp = "1d6+1", attack = "1d3", hits = "bite<s:Actor>",
           to_hit = 1, defence = 2, size = "small", level = 1, pack = 2, flags = { "animal", "pack" },
           desc = "A mangy dog gone feral in the burrows, never far from the rest of its pack." }
creature { name = "cave lizard", glyph = ":", fg = 2, speed = 90, hp = "1d6+2", attack = "1d4", hits = "bite<s:Actor>",
           to_hit = 1, defence = 3, size = "small", level = 1, flags = { "animal" },
           desc = "A blunt-headed lizard that basks on warm stones in the dark." }
creature { name = "cutpurse", glyph = "p", fg = 6, gender = 1, speed = 110, hp = "2d6", attack = "1d3",
           hits = "jostle<s:Actor>", to_hit = 3, defence = 4, size = "medium", level = 2, flags = { "coward" },
           perception = 2,
           on = { damage = function(e) -- a wounding blow in hand: a hand in the purse
               if e.me == "actor" and e.phase == "post" and e.dealt > 0 and e.melee() and e.player("other")
                  and e.hp("other") > 0 then e.steal("gold") end
           end },
           desc = "A quick-fingered youth from the town above who found the Warren's visitors easier marks." }
creature { name = "goblin sneak", glyph = "g", fg = 8, gender = 1, speed = 110, hp = "2d6", attack = "1d4",
           to_hit = 2, defence = 4, size = "small", level = 2, flags = { "coward" },
           on = { damage = function(e) -- a wounding blow in hand: a hand in the purse
               if e.me == "actor" and e.phase == "post" and e.dealt > 0 and e.melee() and e.player("other")
                  and e.hp("other") > 0 then e.steal("item") end
           end },
           desc = "A goblin with long fingers and a longer list of things that are now his." }
creature { name = "apprentice", glyph = "p", fg = 13, gender = 2, hp = "2d6", attack = "1d4", to_hit = 1,
           defence = 3, size = "medium", level = 3, spells = { "magic missile" }, blink = true,
           desc = "A runaway wizard's apprentice who learnt two tricks: the missile and the exit." }
creature { name = "kobold chieftain", glyph = "k", fg = 12, gender = 1, hp = "4d6", attack = "1d6+1", to_hit = 3,
           defence = 4, armour = 1, size = "small", level = 4, summon = "kobold", summon_max = 4,
           desc = "A kobold in a dented helmet, forever yapping orders at kobolds that come running." }
creature { name = "hobgoblin", glyph = "g", fg = 9, gender = 1, hp = "3d8", attack = "1d8", to_hit = 3, defence = 4,
           armour = 2, size = "medium", level = 3, pack = 2,
           desc = "A big, disciplined cousin of the goblin, in lacquered leather." }
creature { name = "giant wasp", glyph = "a", fg = 11, speed = 150, hp = "2d8", attack = "1d4", hits = "sting<s:Actor>",
           to_hit = 4, defence = 5, size = "small", level = 4, handlers = { "poison_bite" }, flags = { "animal" },
           desc = "A wasp as long as a hand, its sting a drop of fire." }
creature { name = "Nimble Jack", glyph = "p", fg = 14, gender = 1, speed = 130, hp = "5d8", attack = "1d6+1",
           hits = "cut<s:Actor>", to_hit = 5, defence = 7, size = "medium", level = 5,
           flags = { "unique", "proper", "coward" },  blink = true, perception = 3,
           on = { damage = function(e) -- a wounding blow in hand: a hand in the purse
               if e.me == "actor" and e.phase == "post" and e.dealt > 0 and e.melee() and e.player("other")
                  and e.hp("other") > 0 then e.steal("gold") end
           end },
           desc = "The town's most wanted man, who has never once been caught, and says so." }
creature { name = "wererat", glyph = "r", fg = 8, gender = 1, hp = "3d8", attack = "1d6", hits = "bite<s:Actor>",
           to_hit = 3, defence = 4, size = "medium", level = 4, summon = "giant rat", summon_max = 5,
           desc = "A hunched man with a rat's face, who squeaks, and is answered." }

-- depths 4-10
creature { name = "orc shaman", glyph = "o", fg = 13, gender = 1, hp = "3d8", attack = "1d6", to_hit = 3, defence = 4,
           armour = 1, size = "medium", level = 4, flags = { "orc" }, spells = { "magic missile", "cure wounds" },
           buff = "might",
           desc = "An orc daubed in ash who chants the war-songs that make orcs bolder." }
creature { name = "bandit", glyph = "p", fg = 3, gender = 1, hp = "3d8", attack = "1d8", to_hit = 4, defence = 5,
           armour = 1, size = "medium", level = 4, pack = 1, 
           on = { damage = function(e) -- a wounding blow in hand: a hand in the purse
               if e.me == "actor" and e.phase == "post" and e.dealt > 0 and e.melee() and e.player("other")
                  and e.hp("other") > 0 then e.steal("gold") end
           end },
           desc = "A cutthroat in a patched cloak; the purse first, the throat if you argue." }
creature { name = "warg", glyph = "C", fg = 3, speed = 130, hp = "4d8", attack = "1d8", hits = "bite<s:Actor>",
           to_hit = 5, defence = 5, size = "medium", level = 5, pack = 2, flags = { "animal", "pack" },
           desc = "A cunning wolf of evil mind that hunts in circles round its prey." }
creature { name = "imp", glyph = "u", fg = 9, speed = 130, hp = "3d8", attack = "1d4", hits = "claw<s:Actor>",
           dtype = "fire", to_hit = 5, defence = 7, size = "tiny", level = 5, flags = { "demon" }, immune = { "fire" },
           spells = { "fire bolt" }, blink = true,
           desc = "A spiteful red devil the size of a cat, flickering about on bat wings." }
creature { name = "baby green dragon", glyph = "d", fg = 10, hp = "5d10", attack = "1d8", hits = "bite<s:Actor>",
           to_hit = 5, defence = 6, armour = 2, size = "medium", level = 6, flags = { "dragon" }, immune = { "poison" },
           breath = "cone", breath_dtype = "poison", breath_dice = "2d6", breath_range = 4, recharge = 8,
           desc = "A dragon hatchling the size of a pony, wheezing clouds of green gas." }
creature { name = "gnoll chieftain", glyph = "h", fg = 11, gender = 1, hp = "6d8", attack = "2d4+2", to_hit = 5,
           defence = 5, armour = 2, size = "medium", level = 6, summon = "gnoll", summon_max = 4,
           desc = "A gnoll hung with skulls whose barking laugh calls the clan." }
creature { name = "phase spider", glyph = "S", fg = 13, speed = 120, hp = "5d8", attack = "1d8", hits = "bite<s:Actor>",
           to_hit = 6, defence = 7, size = "medium", level = 7, handlers = { "poison_bite" }, flags = { "animal" },
           blink = true, desc = "A violet spider that steps out of the world and back in where you are not looking." }
creature { name = "ghast", glyph = "z", fg = 5, hp = "5d8", attack = "1d8", hits = "claw<s:Actor>", to_hit = 6,
           defence = 6, size = "medium", level = 7, handlers = { "poison_bite" }, flags = { "undead" },
           immune = { "poison" }, resist = { "cold" },
           on = { turn = function(e) -- the stench
               if e.phase == "main" and e.aware() and e.dist() <= 1 and not e.has("other", "nausea")
                  and e.rand(3) == 0 then e.status("other", "nausea", 3 + e.rand(3)) end
           end },
           desc = "A ghoul grown stronger and fouler; the stench alone turns the stomach." }

-- depths 8-15
creature { name = "gelatinous cube", glyph = "j", fg = 14, speed = 80, hp = "8d10", attack = "1d8", hits = "touch<es:Actor>",
           dtype = "acid", to_hit = 7, defence = 2, size = "large", level = 9, flags = { "mindless" },
           immune = { "acid", "poison", "lightning" },
           on = { damage = function(e) -- a touch, and then you are inside it
                      if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.hp("other") > 0
                         and not e.holding() then
                          e.say("<Actor> engulf<s:Actor> <victim>!")
                          e.engulf(3 + e.rand(3))
                      end
                  end,
                  turn = function(e) -- what is inside it, it digests
                      if e.phase == "main" and e.holding() then
                          e.say("<Actor> digest<s:Actor> <victim>.")
                          e.hurt("other", 2 + e.rand(6) + e.rand(6), "acid")
                          return "done"
                      end
                  end },
           desc = "A clear, quivering cube that fills the passage; what it touches it takes inside and digests." }
creature { name = "mimic", glyph = "m", fg = 3, speed = 90, hp = "7d8", attack = "2d4", hits = "bite<s:Actor>",
           to_hit = 7, defence = 6, armour = 2, size = "medium", level = 8, flags = { "mindless" },
           disguise = { name = "chest", glyph = "~", fg = 3 },
           on = { turn = function(e) -- a chest until a hand comes near
                      if e.phase == "main" and e.disguised() then
                          if e.dist() > 1 then return "done" end
                          e.disguise(false)
                          e.attack()
                          return "done"
                      end
                  end,
                  damage = function(e)
                      if e.me == "victim" and e.phase == "pre" and e.disguised() then e.disguise(false) end
                      if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.hp("other") > 0
                         and not e.holding() then
                          e.say("<Actor> stick<s:Actor> to <victim>!")
                          e.engulf(2 + e.rand(3))
                      end
                  end },
           desc = "A chest with teeth, and glue where the lock should be." }
creature { name = "hill giant", glyph = "P", fg = 3, gender = 1, hp = "8d10", attack = "2d8", hits = "club<s:Actor>",
           to_hit = 7, defence = 5, armour = 3, size = "huge", level = 8, flags = { "giant" },
           desc = "A dim, enormous giant with a boulder for a hat and a tree for a club." }
creature { name = "master thief", glyph = "p", fg = 8, gender = 2, speed = 130, hp = "6d8", attack = "1d8+2",
           hits = "stab<s:Actor>", to_hit = 8, defence = 9, size = "medium", level = 9, flags = { "coward" },
            blink = true, perception = 4,
           on = { damage = function(e) -- a wounding blow in hand: a hand in the purse
               if e.me == "actor" and e.phase == "post" and e.dealt > 0 and e.melee() and e.player("other")
                  and e.hp("other") > 0 then e.steal("item") end
           end },
           desc = "A thief in grey silk; you notice her when she wants, and your pack is lighter after." }
creature { name = "ogre mage", glyph = "O", fg = 12, gender = 1, hp = "7d10", attack = "2d6", to_hit = 7, defence = 6,
           armour = 2, size = "large", level = 9, flags = { "giant" }, spells = { "frost bolt", "cure wounds" },
           buff = "haste", blink = true,
           desc = "A blue-skinned ogre of uncommon wit who learnt sorcery from the wizards it ate." }
creature { name = "winter wolf", glyph = "C", fg = 15, speed = 130, hp = "6d8", attack = "2d4", hits = "bite<s:Actor>",
           dtype = "cold", to_hit = 7, defence = 6, size = "large", level = 9, pack = 2,
           flags = { "animal", "pack" }, immune = { "cold" }, vuln = { "fire" },
           breath = "cone", breath_dtype = "cold", breath_dice = "3d6", breath_range = 3, recharge = 8,
           desc = "A white wolf whose breath frosts the stones; its pack howls in answer." }
creature { name = "necromancer", glyph = "p", fg = 5, gender = 1, hp = "6d8", attack = "1d6", to_hit = 6,
           defence = 6, size = "medium", level = 10, spells = { "magic missile", "cure wounds", "scare" },
           summon = "skeleton", summon_max = 4, blink = true,
           desc = "A gaunt sorcerer in funeral black, his bones rattling servants never far away." }
creature { name = "orc warlord", glyph = "o", fg = 14, gender = 1, hp = "8d8", attack = "1d12+3", to_hit = 8,
           defence = 8, armour = 4, size = "medium", level = 10, flags = { "orc" }, summon = "orc", summon_max = 5,
           buff = "might", desc = "A scarred orc in a wolf-pelt cloak whose horn brings every orc in earshot." }
creature { name = "will-o'-wisp", glyph = "*", fg = 14, speed = 150, hp = "6d8", attack = "2d6", hits = "shock<s:Actor>",
           dtype = "lightning", to_hit = 8, defence = 12, size = "tiny", level = 10, flags = { "mindless" },
           immune = { "lightning", "poison" }, blink = true,
           desc = "A pale light that bobs ahead of you in the dark, patient as a drowning." }
creature { name = "wyvern", glyph = "d", fg = 2, speed = 120, hp = "8d10", attack = "2d6", hits = "sting<s:Actor>",
           to_hit = 9, defence = 8, armour = 3, size = "large", level = 11, handlers = { "poison_bite" },
           flags = { "animal", "dragon" }, immune = { "poison" },
           desc = "A two-legged lesser dragon with a scorpion's tail." }
creature { name = "cave troll", like = "troll", fg = 8, hp = "9d10", attack = "2d8+3", to_hit = 9,
           armour = 4, level = 11, pack = 1, -- and a troll's knitting flesh
           desc = "A squat black troll of the deep caves, tough as the rock; only fire stops its wounds closing." }

-- depths 12-20
creature { name = "young white dragon", glyph = "D", fg = 15, speed = 110, hp = "14d10", attack = "2d10",
           hits = "rake<s:Actor>", dtype = "cold", to_hit = 11, defence = 10, armour = 5, size = "huge", level = 13,
           flags = { "dragon" }, immune = { "cold" }, vuln = { "fire" },
           breath = "cone", breath_dtype = "cold", breath_dice = "5d6", breath_range = 5, recharge = 10,
           desc = "A dragon white as a glacier's heart, breathing a blizzard." }
creature { name = "chimera", glyph = "H", fg = 9, speed = 110, hp = "10d10", attack = "2d8", hits = "gore<s:Actor>",
           to_hit = 11, defence = 8, armour = 3, size = "large", level = 13, flags = { "animal" }, immune = { "fire" },
           breath = "cone", breath_dtype = "fire", breath_dice = "4d6", breath_range = 4, recharge = 8,
           desc = "Lion, goat and dragon in one body, and the dragon's head does the talking." }
creature { name = "young blue dragon", glyph = "D", fg = 12, speed = 110, hp = "15d10", attack = "2d10",
           hits = "rake<s:Actor>", dtype = "lightning", to_hit = 12, defence = 11, armour = 5, size = "huge",
           level = 14, flags = { "dragon" }, immune = { "lightning" },
           breath = "line", breath_dtype = "lightning", breath_dice = "6d6", breath_range = 8, recharge = 10,
           desc = "A blue dragon crackling with static; its breath is a lightning stroke." }
creature { name = "spirit naga", glyph = "n", fg = 13, gender = 2, hp = "12d8", attack = "2d8", hits = "crush<es:Actor>",
           to_hit = 11, defence = 10, armour = 3, size = "large", level = 14, resist = { "magic" },
           spells = { "lightning bolt", "cure wounds", "confuse" }, buff = "haste", blink = true,
           desc = "A serpent with a woman's face, wise and cruel, wreathed in glimmering wards." }
creature { name = "dread", glyph = "W", fg = 5, speed = 120, hp = "10d8", attack = "2d6+2", hits = "touch<es:Actor>",
           dtype = "cold", to_hit = 11, defence = 11, size = "medium", level = 15, flags = { "undead" },
           immune = { "poison", "cold" }, resist = { "hit" }, drain = "wis", blink = true,
           desc = "A hooded shadow that flickers from place to place, draining the will to go on." }
creature { name = "storm giant", glyph = "P", fg = 11, gender = 1, hp = "15d10", attack = "3d8+3", dtype = "lightning",
           to_hit = 12, defence = 10, armour = 5, size = "huge", level = 17, flags = { "giant" },
           immune = { "lightning" }, spells = { "lightning bolt" },
           desc = "A giant with storm-grey skin and hair that stands on end; thunder follows it." }
creature { name = "pit fiend", glyph = "U", fg = 1, gender = 1, hp = "16d10", attack = "3d8+2", hits = "claw<s:Actor>",
           dtype = "fire", to_hit = 13, defence = 12, armour = 5, size = "large", level = 18, flags = { "demon" },
           immune = { "fire", "poison" }, resist = { "magic" }, spells = { "fire bolt", "scare" },
           summon = "imp", summon_max = 4,
           desc = "A winged devil of the deepest fires, attended by a flock of imps." }
creature { name = "death knight", glyph = "W", fg = 1, gender = 1, hp = "15d10", attack = "3d8+4", hits = "cleave<s:Actor>",
           to_hit = 14, defence = 13, armour = 6, size = "medium", level = 18, flags = { "undead" },
           immune = { "poison", "cold" }, resist = { "fire", "magic" }, buff = "might",
           desc = "A fallen knight in black plate that no longer needs the body inside it." }

-- where they appear (min_depth, max_depth, weight)
oddment { creature = "wild dog", min_depth = 1, max_depth = 4, weight = 15 }
oddment { creature = "cave lizard", min_depth = 1, max_depth = 3, weight = 15 }
oddment { creature = "cutpurse", min_depth = 1, max_depth = 5, weight = 10 }
oddment { creature = "goblin sneak", min_depth = 2, max_depth = 6, weight = 10 }
oddment { creature = "apprentice", min_depth = 2, max_depth = 6, weight = 10 }
oddment { creature = "kobold chieftain", min_depth = 3, max_depth = 7, weight = 8 }
oddment { creature = "hobgoblin", min_depth = 3, max_depth = 8, weight = 15 }
oddment { creature = "giant wasp", min_depth = 3, max_depth = 8, weight = 10 }
oddment { creature = "Nimble Jack", min_depth = 4, max_depth = 9, weight = 6 }
oddment { creature = "wererat", min_depth = 4, max_depth = 9, weight = 8 }
oddment { creature = "orc shaman", min_depth = 4, max_depth = 10, weight = 10 }
oddment { creature = "bandit", min_depth = 4, max_depth = 10, weight = 10 }
oddment { creature = "warg", min_depth = 5, max_depth = 11, weight = 12 }
oddment { creature = "imp", min_depth = 5, max_depth = 12, weight = 8 }
oddment { creature = "baby green dragon", min_depth = 6, max_depth = 11, weight = 6 }
oddment { creature = "gnoll chieftain", min_depth = 6, max_depth = 11, weight = 6 }
oddment { creature = "phase spider", min_depth = 7, max_depth = 13, weight = 8 }
oddment { creature = "ghast", min_depth = 7, max_depth = 13, weight = 10 }
oddment { creature = "hill giant", min_depth = 8, max_depth = 14, weight = 10 }
oddment { creature = "gelatinous cube", min_depth = 8, max_depth = 15, weight = 6 }
oddment { creature = "mimic", min_depth = 5, max_depth = 14, weight = 5 }
oddment { creature = "master thief", min_depth = 8, max_depth = 15, weight = 6 }
oddment { creature = "ogre mage", min_depth = 9, max_depth = 15, weight = 6 }
oddment { creature = "winter wolf", min_depth = 9, max_depth = 15, weight = 8 }
oddment { creature = "necromancer", min_depth = 10, max_depth = 16, weight = 6 }
oddment { creature = "orc warlord", min_depth = 10, max_depth = 15, weight = 6 }
oddment { creature = "will-o'-wisp", min_depth = 10, max_depth = 16, weight = 6 }
oddment { creature = "wyvern", min_depth = 11, max_depth = 17, weight = 8 }
oddment { creature = "cave troll", min_depth = 11, max_depth = 18, weight = 10 }
oddment { creature = "young white dragon", min_depth = 12, max_depth = 18, weight = 5 }
oddment { creature = "chimera", min_depth = 13, max_depth = 19, weight = 6 }
oddment { creature = "young blue dragon", min_depth = 14, max_depth = 20, weight = 5 }
oddment { creature = "spirit naga", min_depth = 14, max_depth = 20, weight = 6 }
oddment { creature = "dread", min_depth = 15, max_depth = 20, weight = 6 }
oddment { creature = "storm giant", min_depth = 16, max_depth = 20, weight = 6 }
oddment { creature = "pit fiend", min_depth = 17, max_depth = 20, weight = 4 }
oddment { creature = "death knight", min_depth = 17, max_depth = 20, weight = 5 }
