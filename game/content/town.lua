-- Shops and services. A shop is a keeper (a peaceful creature: it stays
-- put and trades until someone steals from it) in a region: the town's
-- buildings take the town shops (min_depth 0) in this order; a dungeon
-- shop takes a room of a level within its depths, on `chance` percent of
-- levels. classes: what it sells and buys; stock: things on its floor
-- when made, of kinds found no deeper than stock_depth; services: gold
-- for healing, lifting curses, identifying one thing, and passage (gold
-- per day of travel) from a town's inn to the towns its roads and water
-- routes reach (voyage.c). Every price is then set by the buyer's Charisma.
-- Keepers are all `@` (no monster is) in a colour of their own, never the
-- player's white or grey.

creature { name = "shopkeeper", glyph = "@", fg = 11, gender = 2, hp = "20d10", attack = "3d6",
           to_hit = 12, defence = 16, armour = 4, size = "medium", level = 14, flags = { "peaceful" },
           desc = "Brisa keeps the general store of Burrowmouth with a ledger, a scale and a cudgel under the counter." }
creature { name = "priest", like = "shopkeeper", fg = 14, gender = 1,
           desc = "Old Hathren, priest of the temple, smells of incense and lamp oil and forgets no face." }
creature { name = "sage", like = "shopkeeper", fg = 13, gender = 3,
           desc = "The sage peers at everything through thick green lenses and knows what most of it is." }
creature { name = "kobold trader", like = "shopkeeper", fg = 10, gender = 1, hp = "12d10",
           attack = "2d6", level = 10,
           desc = "A fat kobold in a tinker's coat, sitting on a pile of things other people lost down here." }
creature { name = "innkeeper", like = "shopkeeper", fg = 12, gender = 1,
           desc = "The innkeeper knows every road and every ship's master, and what a seat on either costs." }
creature { name = "hermit", like = "shopkeeper", fg = 3, gender = 1, hp = "10d10", level = 9,
           desc = "A hermit who chose the dark long ago. For a coin he still tends to the wounded." }

shop { region = "the general store", keeper = "shopkeeper", stock = 14, stock_depth = 4,
       classes = { "weapon", "armour", "shield", "helm", "potion", "scroll", "food" } }
shop { region = "the temple", keeper = "priest", services = { heal = 30, uncurse = 80 } }
shop { region = "the sage's house", keeper = "sage", services = { identify = 60 },
       stock = 4, stock_depth = 3, classes = { "scroll", "potion" } }
shop { region = "the travellers' inn", keeper = "innkeeper", services = { passage = 10 } }
shop { region = "a trader's den", keeper = "kobold trader", min_depth = 3, max_depth = 16, chance = 12,
       stock = 8, stock_depth = 12, classes = { "weapon", "armour", "potion", "scroll", "wand", "ring", "amulet" } }
shop { region = "a hermit's chapel", keeper = "hermit", min_depth = 6, max_depth = 18, chance = 8,
       services = { heal = 60, uncurse = 120 } }

-- What things are worth (gold): a kind's own `value` if it has one, else
-- its class's base, per_depth percent more for each level of the kind's
-- shallowest depth, per_plus for each point of enchantment. Shops pay
-- `sell` percent (an unidentified thing only its class's base). A new
-- character starts with start_gold.
prices { base = { weapon = 12, armour = 20, shield = 10, helm = 8, potion = 25, scroll = 30, wand = 90,
                  ring = 100, amulet = 110, food = 3, gold = 0 },
         per_depth = 15, per_plus = 35, sell = 40, start_gold = 120 }
