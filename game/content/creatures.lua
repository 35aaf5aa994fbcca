-- Creatures. The player's kind comes first. Fields: glyph, fg (colour),
-- gender (0 it, 1 he, 2 she, 3 they), speed (percent), hp and attack
-- (dice), hits (the verb of its attack, for "<Actor> bite<s:Actor> you"),
-- dtype (damage type of the attack), to_hit, defence, armour (damage it
-- absorbs: up to this much a blow), size (tiny small medium large huge),
-- level (experience and danger), flags (unique, proper, mindless, coward,
-- warden, animal: a beast's mind, keen-sensed, that uses no items;
-- mindless: no fear, sleep, confusion or items), resist / immune / vuln
-- (damage types), pack (up to this many more of its kind come along),
-- spells (of spells.lua, cast by purpose: hexes and bolts and breath at
-- you from afar, cures when hurt), drain (the ability its blows may
-- drain: str dex con int wis cha; the potion of restore abilities gives
-- it back), perception (added to its rolls to notice you), desc (what
-- look shows).
creature { name = "you", glyph = "@", fg = 15, speed = 100, hp = "0d1+20", attack = "1d6+1",
           to_hit = 3, defence = 3, size = "medium", desc = "That is you." }

-- depths 1-3
creature { name = "jackal", glyph = "d", fg = 3, speed = 150, hp = "1d4+1", attack = "1d2", hits = "bite<s:Actor>",
           to_hit = 0, defence = 1, size = "small", level = 1, pack = 2,
           flags = { "pack", "animal" },
           desc = "A lean yellow scavenger that hunts the burrow mouths in yapping packs." }
creature { name = "kobold", glyph = "k", fg = 2, gender = 1, hp = "2d4", attack = "1d4",
           to_hit = 1, defence = 2, size = "small", level = 1,
           desc = "A small scaly dog-faced thing with a rusty knife and a grudge against everything taller." }
creature { name = "cave spider", glyph = "s", fg = 8, speed = 120, hp = "1d3+1", attack = "1d2", hits = "bite<s:Actor>",
           to_hit = 1, defence = 2, size = "tiny", level = 1, handlers = { "poison_bite" }, pack = 2,
           flags = { "animal" }, desc = "A pale spider the size of a fist. Its bite burns for a long while." }
creature { name = "giant newt", glyph = ":", fg = 11, speed = 50, hp = "1d4+2", attack = "1d3", hits = "bite<s:Actor>",
           size = "small", level = 1, flags = { "mindless" },
           desc = "A slow, damp, yellow newt as long as your arm." }
creature { name = "giant rat", glyph = "r", fg = 3, speed = 110, hp = "1d4", attack = "1d3", hits = "bite<s:Actor>",
           to_hit = 0, defence = 2, size = "tiny", level = 1, pack = 4, flags = { "animal", "coward" },
           desc = "A rat grown fat on what falls down the burrows." }
creature { name = "cave bat", glyph = "b", fg = 8, speed = 180, hp = "1d6", attack = "1d3", hits = "bite<s:Actor>",
           to_hit = 2, defence = 4, size = "tiny", level = 2,
           flags = { "animal" }, on = { turn = function(e) -- it never flies straight
               if e.phase == "main" and e.aware() and e.rand(3) == 0 then
                   e.flit()
                   return "done"
               end
           end },
           desc = "A leathery flutter in the dark, quicker than your eye." }
creature { name = "green slime", glyph = "j", fg = 10, speed = 60, hp = "3d6", attack = "1d6", hits = "burn<s:Actor>",
           dtype = "acid", to_hit = 1, defence = 0, size = "medium", level = 2, flags = { "mindless" },
           immune = { "acid", "poison" }, on = { damage = function(e) -- what it touches it eats
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.rand(2) == 0 then
                   e.corrode()
               end
           end },
           desc = "A quivering green mass that dissolves what it touches, armour first." }
creature { name = "goblin", glyph = "g", fg = 10, gender = 1, hp = "2d6", attack = "1d6", to_hit = 2, defence = 3,
           armour = 1, size = "small", level = 2, pack = 2,
           desc = "A wiry goblin in scraps of leather, all teeth and bad intentions." }
creature { name = "kobold shaman", glyph = "k", fg = 13, gender = 1, hp = "2d6", attack = "1d4+1", hits = "zap<s:Actor>",
           dtype = "magic", to_hit = 3, defence = 3, size = "small", level = 3, flags = { "coward" },
           spells = { "magic missile", "scare" },
           desc = "A kobold hung with bones and feathers; sparks crawl over its claws." }
creature { name = "Skarg the Kobold King", glyph = "K", fg = 11, gender = 1, hp = "6d8", attack = "2d4+1",
           to_hit = 4, defence = 5, armour = 2, size = "medium", level = 5, flags = { "unique", "proper" },
           desc = "Fat, crowned with a bent copper pot, Skarg rules the upper burrows by biting hardest." }

-- depths 3-6
creature { name = "orc", glyph = "o", fg = 2, gender = 1, hp = "3d8", attack = "1d8", to_hit = 3, defence = 4,
           armour = 2, size = "medium", level = 3, pack = 2,
           flags = { "orc" }, desc = "A heavy-browed orc in blackened mail, smelling of smoke and old meat." }
creature { name = "giant centipede", glyph = "c", fg = 3, speed = 120, hp = "3d6", attack = "1d6", hits = "sting<s:Actor>",
           to_hit = 3, defence = 4, size = "medium", level = 3, handlers = { "poison_bite" }, flags = { "mindless" },
           desc = "Forty legs, two feelers and a venomous pair of jaws." }
creature { name = "wolf", glyph = "C", fg = 7, speed = 130, hp = "3d6", attack = "1d6+1", hits = "bite<s:Actor>",
           to_hit = 3, defence = 4, size = "medium", level = 3, pack = 3,
           flags = { "pack", "animal" }, desc = "A grey wolf; where there is one there are more." }
creature { name = "skeleton", glyph = "z", fg = 15, hp = "3d8", attack = "1d6", to_hit = 2, defence = 4, armour = 2,
           size = "medium", level = 4,
           flags = { "undead", "mindless" }, resist = { "cold", "hit" }, immune = { "poison" },
           desc = "Old bones held together by an older spite." }
creature { name = "zombie", glyph = "z", fg = 2, speed = 60, hp = "4d8", attack = "1d8", hits = "claw<s:Actor>",
           to_hit = 1, defence = 1, size = "medium", level = 3, flags = { "undead", "mindless" }, immune = { "poison" },
           vuln = { "fire" }, desc = "A shambling corpse, patient as the grave it left." }
creature { name = "gnoll", glyph = "h", fg = 3, gender = 1, hp = "4d8", attack = "2d4", to_hit = 3, defence = 4, armour = 1,
           size = "medium", level = 4, pack = 2, desc = "A hyena-headed brute that laughs as it fights." }
creature { name = "fire beetle", glyph = "a", fg = 9, hp = "3d8", attack = "2d4", hits = "bite<s:Actor>", dtype = "fire",
           to_hit = 3, defence = 6, armour = 3, size = "small", level = 4, flags = { "mindless" }, immune = { "fire" },
           desc = "A beetle whose glands glow red through its shell." }
creature { name = "giant frog", glyph = "F", fg = 10, speed = 110, hp = "3d8", attack = "1d8", hits = "bite<s:Actor>",
           to_hit = 3, defence = 3, size = "medium", level = 3, flags = { "animal" },
           on = { damage = function(e) -- a tongue's snap: the small go down whole
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.hp("other") > 0
                  and e.size("other") <= 1 and not e.holding() then
                   e.say("<Actor> swallow<s:Actor> <victim> whole!")
                   e.engulf(2 + e.rand(3))
               end
           end,
           turn = function(e)
               if e.phase == "main" and e.holding() then
                   e.hurt("other", 1 + e.rand(6), "acid")
                   return "done"
               end
           end },
           desc = "A frog that could swallow a halfling, and has." }
creature { name = "Ulfang the Black", glyph = "O", fg = 8, gender = 1, hp = "10d8", attack = "2d6+2",
           to_hit = 7, defence = 8, armour = 4, size = "medium", level = 8, flags = { "orc", "unique", "proper" },
           desc = "The orc warlord of the middle halls, in black plate taken from a dead knight." }

-- depths 6-10
creature { name = "ogre", glyph = "O", fg = 3, gender = 1, hp = "6d10", attack = "2d8", hits = "club<s:Actor>",
           to_hit = 5, defence = 4, armour = 2, size = "large", level = 6,
           desc = "Ten feet of hunger with a tree trunk for a club." }
creature { name = "orc captain", glyph = "o", fg = 9, gender = 1, hp = "6d8", attack = "1d10+2", to_hit = 6, defence = 6,
           armour = 4, size = "medium", level = 6, pack = 1, summon = "orc", summon_max = 3,
           flags = { "orc" }, desc = "An orc with a whistle, a scar and soldiers." }
creature { name = "dire wolf", glyph = "C", fg = 8, speed = 140, hp = "6d8", attack = "2d6", hits = "bite<s:Actor>",
           to_hit = 6, defence = 6, size = "large", level = 7, pack = 2, flags = { "pack", "animal" },
           desc = "A wolf the size of a pony." }
creature { name = "ghoul", glyph = "z", fg = 11, hp = "5d8", attack = "1d8", hits = "claw<s:Actor>", dtype = "cold",
           to_hit = 5, defence = 5, size = "medium", level = 6, immune = { "poison" }, resist = { "cold" },
           drain = "dex",
           flags = { "undead" }, on = { damage = function(e) -- the numbing touch
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.hp("other") > 0
                  and e.rand(3) == 0 then e.status("other", "paralysis", 1 + e.rand(2)) end
           end },
           desc = "A grey-skinned eater of the dead with a cold and numbing touch." }
creature { name = "giant scorpion", glyph = "S", fg = 1, hp = "6d8", attack = "1d10", hits = "sting<s:Actor>",
           to_hit = 6, defence = 7, armour = 3, size = "large", level = 7, handlers = { "poison_bite" },
           flags = { "mindless" }, desc = "Black armour, a raised tail and a drop of venom on its tip." }
creature { name = "dark elf", glyph = "h", fg = 5, gender = 2, speed = 110, hp = "5d8", attack = "1d8+1",
           to_hit = 7, defence = 8, armour = 1, size = "medium", level = 7, pack = 2, resist = { "magic" },
           spells = { "magic missile", "cure wounds", "confuse" }, perception = 2,
           desc = "A pale-eyed elf of the deep roads, silent and quick." }
creature { name = "wight", glyph = "W", fg = 7, hp = "6d8", attack = "1d8+2", hits = "touch<es:Actor>", dtype = "cold",
           to_hit = 6, defence = 6, size = "medium", level = 8, immune = { "poison", "cold" },
           drain = "con",
           flags = { "undead" }, desc = "A barrow-dweller whose touch carries the chill of the grave." }
creature { name = "hell hound", glyph = "C", fg = 9, speed = 130, hp = "6d8", attack = "2d6", hits = "bite<s:Actor>",
           dtype = "fire", to_hit = 6, defence = 6, size = "medium", level = 8, pack = 2, immune = { "fire" },
           vuln = { "cold" }, flags = { "pack", "animal" }, spells = { "fire breath" },
           desc = "A black hound with embers for eyes and a furnace in its throat." }
creature { name = "Old Mother Gnash", glyph = "Z", fg = 13, gender = 2, hp = "12d8", attack = "2d8", hits = "claw<s:Actor>",
           dtype = "cold", to_hit = 8, defence = 8, size = "medium", level = 10, flags = { "undead", "unique", "proper" },
           immune = { "poison" }, resist = { "cold" },
           summon = "ghoul", summon_max = 3, on = { damage = function(e) -- the numbing touch
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 and e.hp("other") > 0
                  and e.rand(3) == 0 then e.status("other", "paralysis", 1 + e.rand(2)) end
           end },
           desc = "The oldest ghoul of the crypts, mother of the hungry dead, grinning with iron teeth." }

-- depths 10-15
creature { name = "troll", glyph = "T", fg = 2, gender = 1, hp = "8d10", attack = "2d8+2", hits = "claw<s:Actor>",
           to_hit = 8, defence = 6, armour = 3, size = "large", level = 10, vuln = { "fire" },
           on = { turn = function(e) -- its flesh knits, unless fire has seared it
               if e.phase == "main" and e.hp("self") < e.hpmax("self") and not e.has("self", "seared") then
                   e.heal = 1 + e.hpmax("self") // 60
               end
           end,
           damage = function(e)
               if e.me == "victim" and e.phase == "post" and e.dtype == "fire" and e.dealt > 0 then
                   e.status("self", "seared", 6)
               end
           end },
           desc = "A green-grey troll, all knuckles and appetite; its wounds close as you watch, unless burnt." }
creature { name = "stone giant", glyph = "P", fg = 7, gender = 1, speed = 90, hp = "10d10", attack = "3d6",
           hits = "pound<s:Actor>", to_hit = 9, defence = 8, armour = 5, size = "huge", level = 12,
           flags = { "giant" }, desc = "A giant whose skin is the grey of the rock it sleeps in." }
creature { name = "basilisk", glyph = "R", fg = 2, speed = 80, hp = "8d10", attack = "2d6", hits = "bite<s:Actor>",
           to_hit = 8, defence = 9, armour = 4, size = "large", level = 11, resist = { "poison" },
           flags = { "animal" }, on = { turn = function(e) -- its gaze: the foe that meets it turns slowly to stone
               if e.phase == "main" and e.aware() and e.dist() >= 2 and e.dist() <= 6 and e.sees("other")
                  and not e.has("other", "petrifying") and e.rand(3) == 0 then
                   e.say("<Actor> fix<es:Actor> <victim> with a stony gaze.")
                   e.status("other", "petrifying", 2 + e.rand(2))
                   return "done"
               end
           end },
           desc = "An eight-legged lizard whose gaze you would rather not meet: it turns flesh to stone." }
creature { name = "wraith", glyph = "W", fg = 8, speed = 110, hp = "8d8", attack = "2d6", hits = "touch<es:Actor>",
           dtype = "cold", to_hit = 9, defence = 9, size = "medium", level = 12, immune = { "poison", "cold" },
           resist = { "hit" }, drain = "str",
           flags = { "undead" }, desc = "A shadow shaped like a man, with the cold of the void in its hands." }
creature { name = "minotaur", glyph = "H", fg = 3, gender = 1, speed = 110, hp = "10d10", attack = "3d6",
           hits = "gore<s:Actor>", to_hit = 10, defence = 7, armour = 3, size = "large", level = 12,
           on = { turn = function(e) -- a charge down the passage, horns first
               if e.phase == "main" and e.aware() and e.dist() >= 2 and e.dist() <= 5 and e.sees("self")
                  and e.rand(3) == 0 then
                   e.say("<Actor> lower<s:Actor> <his:Actor> horns and charge<s:Actor>!")
                   e.rush(5)
                   e.status("self", "charging", 1)
                   e.attack()
                   return "done"
               end
           end },
           desc = "A bull-headed giant of the labyrinths, snorting and stamping before it charges." }
creature { name = "gargoyle", glyph = "g", fg = 8, hp = "8d8", attack = "2d6", hits = "claw<s:Actor>",
           to_hit = 8, defence = 10, armour = 6, size = "medium", level = 11, flags = { "mindless" },
           immune = { "poison" }, disguise = { name = "statue", glyph = "'", fg = 7 },
           on = { turn = function(e) -- a statue until its prey is beside it
                      if e.phase == "main" and e.disguised() then
                          if e.dist() > 1 then return "done" end
                          e.disguise(false)
                          e.attack()
                          return "done"
                      end
                  end,
                  damage = function(e) -- a blow gives it away
                      if e.me == "victim" and e.phase == "pre" and e.disguised() then e.disguise(false) end
                  end },
           desc = "A statue that was not one: it waits among the others for someone to pass close." }
creature { name = "salamander", glyph = "n", fg = 9, speed = 120, hp = "8d8", attack = "2d8", hits = "burn<s:Actor>",
           dtype = "fire", to_hit = 9, defence = 8, size = "medium", level = 12, immune = { "fire" }, vuln = { "cold" },
           spells = { "fire bolt" },
           on = { damage = function(e) -- its flames burn what strikes it
               if e.me == "victim" and e.phase == "post" and e.melee() and e.dealt > 0 and e.dist() <= 1
                  and e.hp("other") > 0 then
                   e.say("Flames from <actor> lick at <victim>.")
                   e.hurt("other", 1 + e.rand(6), "fire")
               end
           end },
           desc = "A serpent of living flame; what strikes it gets burnt." }
creature { name = "ice troll", glyph = "T", fg = 12, gender = 1, hp = "10d10", attack = "2d8+3", hits = "claw<s:Actor>",
           dtype = "cold", to_hit = 10, defence = 7, armour = 4, size = "large", level = 13, immune = { "cold" },
           vuln = { "fire" }, breath = "cone", breath_dtype = "cold", breath_dice = "3d6", breath_range = 3, recharge = 12, on = { turn = function(e) -- its flesh knits, unless fire has seared it
               if e.phase == "main" and e.hp("self") < e.hpmax("self") and not e.has("self", "seared") then
                   e.heal = 1 + e.hpmax("self") // 60
               end
           end,
           damage = function(e)
               if e.me == "victim" and e.phase == "post" and e.dtype == "fire" and e.dealt > 0 then
                   e.status("self", "seared", 6)
               end
           end },
           desc = "A troll white as old snow, breathing frost." }
creature { name = "Mazrak the Flayer", glyph = "h", fg = 13, gender = 1, speed = 120, hp = "18d8", attack = "3d6+2",
           dtype = "magic", hits = "flay<s:Actor>", to_hit = 11, defence = 11, armour = 3, size = "medium", level = 15,
           flags = { "unique", "proper" }, resist = { "magic", "fire", "cold" },
           spells = { "magic missile", "cure wounds" },
           drain = "int", on = { turn = function(e) -- a blast of the mind from afar
               if e.phase == "main" and e.aware() and e.dist() >= 2 and e.dist() <= 6 and e.sees("self")
                  and not e.has("other", "confusion") and e.rand(4) == 0 then
                   e.say("<Actor> blast<s:Actor> <victim> with <his:Actor> mind!")
                   e.status("other", "confusion", 2 + e.rand(3))
                   return "done"
               end
           end },
           desc = "A mind flayer exiled from the deep cities, hungry for thought and skin alike." }

-- depths 15-20
creature { name = "vampire", glyph = "V", fg = 1, gender = 1, speed = 120, hp = "12d8", attack = "2d6+3",
           hits = "bite<s:Actor>", to_hit = 11, defence = 11, armour = 2, size = "medium", level = 15,
           immune = { "poison" }, resist = { "cold" }, vuln = { "fire" },
           drain = "con",
           flags = { "undead" }, on = { damage = function(e) -- it drinks what it draws
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 then
                   e.heal = e.dealt
                   e.say("<Actor> feed<s:Actor> on <victim>.")
               end
           end },
           desc = "A pale noble of the night, courteous until it is hungry." }
creature { name = "clay golem", glyph = "'", fg = 3, speed = 80, hp = "14d10", attack = "3d8", hits = "slam<s:Actor>",
           to_hit = 11, defence = 8, armour = 7, size = "large", level = 15, flags = { "mindless" },
           immune = { "poison", "magic" }, desc = "A giant of fired clay with a name written under its tongue." }
creature { name = "frost giant", glyph = "P", fg = 12, gender = 1, hp = "14d10", attack = "3d8+3", dtype = "cold",
           to_hit = 11, defence = 9, armour = 5, size = "huge", level = 16, immune = { "cold" }, vuln = { "fire" },
           flags = { "giant" }, desc = "A giant of the high glaciers, bearded with icicles." }
creature { name = "fire giant", glyph = "P", fg = 9, gender = 1, hp = "15d10", attack = "3d8+4", dtype = "fire",
           to_hit = 12, defence = 10, armour = 6, size = "huge", level = 17, immune = { "fire" }, vuln = { "cold" },
           flags = { "giant" }, desc = "A giant of the forges below, skin like cooling iron." }
creature { name = "black pudding", glyph = "j", fg = 8, speed = 70, hp = "16d10", attack = "3d8", hits = "dissolve<s:Actor>",
           dtype = "acid", to_hit = 10, defence = 5, size = "huge", level = 16, flags = { "mindless" },
           immune = { "acid", "poison", "cold", "lightning" }, on = { damage = function(e) -- a blade's cut only makes two of it
               if e.me == "victim" and e.phase == "post" and e.dtype == "hit" and e.dealt > 0
                  and e.hp("self") >= 10 and e.count() < 8 then e.split() end
           end },
           desc = "A lake of black hunger that flows uphill; cut it and there are two of it." }
creature { name = "young red dragon", glyph = "D", fg = 9, speed = 110, hp = "18d10", attack = "3d10",
           hits = "rake<s:Actor>", dtype = "fire", to_hit = 13, defence = 12, armour = 6, size = "huge", level = 18,
           immune = { "fire" }, spells = { "fire breath" },
           flags = { "dragon" }, desc = "A dragon not yet grown, and already larger than a house." }
creature { name = "lich", glyph = "L", fg = 5, gender = 1, hp = "16d8", attack = "3d6", hits = "blast<s:Actor>",
           dtype = "magic", to_hit = 13, defence = 12, armour = 2, size = "medium", level = 18,
           immune = { "poison", "cold" }, resist = { "magic", "lightning" },
           spells = { "frost bolt", "lightning bolt", "hold" },
           flags = { "undead" }, desc = "A dead wizard who refused to stop, wrapped in rotting silk." }
creature { name = "Sethra the Pale", glyph = "V", fg = 13, gender = 2, speed = 130, hp = "24d8", attack = "3d8+3",
           hits = "bite<s:Actor>", to_hit = 14, defence = 14, armour = 4, size = "medium", level = 19,
           flags = { "undead", "unique", "proper" }, immune = { "poison" }, resist = { "cold", "magic" }, vuln = { "fire" },
           spells = { "cure wounds", "frost bolt", "scare" },
           on = { damage = function(e) -- it drinks what it draws
               if e.me == "actor" and e.phase == "post" and e.melee() and e.dealt > 0 then
                   e.heal = e.dealt
                   e.say("<Actor> feed<s:Actor> on <victim>.")
               end
           end },
           desc = "The vampire queen of the lower halls, older than the town above." }
creature { name = "Thrag, Warden of the Heartstone", glyph = "&", fg = 14, gender = 1, hp = "24d10",
           attack = "3d8+4", hits = "smite<s:Actor>", to_hit = 13, defence = 12, armour = 5, size = "huge", level = 20,
           flags = { "unique", "proper", "warden" }, resist = { "fire", "cold" },
           immune = { "poison" },
           desc = "A horned giant of black stone set to guard the Heartstone forever. It holds the stone in its chest." }

-- ranged attackers: they shoot along the same line a thrown dagger flies
-- (missile dice, range in steps, missile_dtype, the verb in `shoots`)
creature { name = "kobold archer", like = "kobold", fg = 6, hp = "2d4+1", missile = "1d6", range = 7,
           shoots = "shoot<s:Actor> an arrow",
           desc = "A kobold with a short bow of bent bone, happiest at a distance." }
creature { name = "goblin slinger", like = "goblin", fg = 2, pack = 1, missile = "1d4+1", range = 6,
           shoots = "sling<s:Actor> a stone", desc = "A goblin whirling a sling loaded with sharp pebbles." }
creature { name = "spitting cobra", glyph = "S", fg = 10, speed = 110, hp = "3d6", attack = "1d4", hits = "bite<s:Actor>",
           to_hit = 3, defence = 4, size = "small", level = 3, flags = { "animal" }, handlers = { "poison_bite" },
           missile = "1d6", range = 5, missile_dtype = "poison", shoots = "spit<s:Actor> venom",
           on = { damage = function(e) -- venom in the eyes
               if e.me == "actor" and e.phase == "post" and not e.melee() and e.dealt > 0
                  and e.hp("other") > 0 and e.rand(2) == 0 then e.status("other", "blindness", 2 + e.rand(3)) end
           end },
           desc = "A hooded snake that spits burning venom at the eyes from a safe distance." }
creature { name = "orc archer", like = "orc", fg = 3, missile = "1d8+1", range = 9, pack = 1,
           shoots = "loose<s:Actor> an arrow", desc = "An orc with a black longbow and a full quiver." }

-- where they appear (min_depth, max_depth, weight); uniques once a game
oddment { creature = "jackal", min_depth = 1, max_depth = 4, weight = 30 }
oddment { creature = "kobold", min_depth = 1, max_depth = 5, weight = 30 }
oddment { creature = "cave spider", min_depth = 1, max_depth = 6, weight = 20 }
oddment { creature = "giant newt", min_depth = 1, max_depth = 3, weight = 20 }
oddment { creature = "giant rat", min_depth = 1, max_depth = 5, weight = 20 }
oddment { creature = "cave bat", min_depth = 2, max_depth = 7, weight = 15 }
oddment { creature = "green slime", min_depth = 2, max_depth = 8, weight = 10 }
oddment { creature = "goblin", min_depth = 2, max_depth = 7, weight = 20 }
oddment { creature = "kobold shaman", min_depth = 2, max_depth = 7, weight = 12 }
oddment { creature = "Skarg the Kobold King", min_depth = 3, max_depth = 6, weight = 8 }
oddment { creature = "orc", min_depth = 3, max_depth = 10, weight = 25 }
oddment { creature = "giant centipede", min_depth = 3, max_depth = 9, weight = 15 }
oddment { creature = "wolf", min_depth = 3, max_depth = 9, weight = 15 }
oddment { creature = "skeleton", min_depth = 4, max_depth = 11, weight = 15 }
oddment { creature = "zombie", min_depth = 3, max_depth = 9, weight = 12 }
oddment { creature = "gnoll", min_depth = 4, max_depth = 10, weight = 15 }
oddment { creature = "fire beetle", min_depth = 4, max_depth = 10, weight = 12 }
oddment { creature = "giant frog", min_depth = 3, max_depth = 8, weight = 12 }
oddment { creature = "Ulfang the Black", min_depth = 6, max_depth = 10, weight = 6 }
oddment { creature = "ogre", min_depth = 6, max_depth = 13, weight = 15 }
oddment { creature = "orc captain", min_depth = 6, max_depth = 12, weight = 12 }
oddment { creature = "dire wolf", min_depth = 7, max_depth = 13, weight = 12 }
oddment { creature = "ghoul", min_depth = 6, max_depth = 13, weight = 15 }
oddment { creature = "giant scorpion", min_depth = 7, max_depth = 14, weight = 10 }
oddment { creature = "dark elf", min_depth = 7, max_depth = 14, weight = 12 }
oddment { creature = "wight", min_depth = 8, max_depth = 15, weight = 10 }
oddment { creature = "hell hound", min_depth = 8, max_depth = 15, weight = 10 }
oddment { creature = "Old Mother Gnash", min_depth = 9, max_depth = 13, weight = 6 }
oddment { creature = "troll", min_depth = 10, max_depth = 17, weight = 15 }
oddment { creature = "stone giant", min_depth = 11, max_depth = 18, weight = 10 }
oddment { creature = "basilisk", min_depth = 10, max_depth = 17, weight = 10 }
oddment { creature = "wraith", min_depth = 11, max_depth = 18, weight = 12 }
oddment { creature = "minotaur", min_depth = 11, max_depth = 18, weight = 10 }
oddment { creature = "gargoyle", min_depth = 10, max_depth = 17, weight = 10 }
oddment { creature = "salamander", min_depth = 11, max_depth = 18, weight = 10 }
oddment { creature = "ice troll", min_depth = 12, max_depth = 19, weight = 10 }
oddment { creature = "Mazrak the Flayer", min_depth = 12, max_depth = 16, weight = 5 }
oddment { creature = "vampire", min_depth = 15, max_depth = 20, weight = 10 }
oddment { creature = "clay golem", min_depth = 14, max_depth = 20, weight = 8 }
oddment { creature = "frost giant", min_depth = 15, max_depth = 20, weight = 10 }
oddment { creature = "fire giant", min_depth = 16, max_depth = 20, weight = 10 }
oddment { creature = "black pudding", min_depth = 15, max_depth = 20, weight = 8 }
oddment { creature = "young red dragon", min_depth = 17, max_depth = 20, weight = 6 }
oddment { creature = "lich", min_depth = 17, max_depth = 20, weight = 6 }
oddment { creature = "Sethra the Pale", min_depth = 16, max_depth = 19, weight = 5 }
oddment { creature = "kobold archer", min_depth = 1, max_depth = 6, weight = 12 }
oddment { creature = "goblin slinger", min_depth = 2, max_depth = 8, weight = 10 }
oddment { creature = "spitting cobra", min_depth = 3, max_depth = 9, weight = 8 }
oddment { creature = "orc archer", min_depth = 5, max_depth = 12, weight = 10 }
