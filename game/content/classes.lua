-- Player races: ability adjustments (Str Dex Con Int Wis Cha), to_hit and
-- defence bonuses, resistances, size (medium unless said: what can
-- swallow them).
race { name = "human", str = 1, dex = 1, con = 1, int = 1, wis = 1, cha = 1,
       desc = "Humans are good at everything and best at nothing." }
race { name = "dwarf", con = 2, wis = 1, dex = -1, cha = -2, resist = { "poison" },
       desc = "Stout, stubborn and hard to poison." }
race { name = "elf", dex = 2, int = 2, con = -2, resist = { "magic" }, defence = 1,
       desc = "Quick and clever, and frail for it; old magic slides off them." }
race { name = "halfling", dex = 2, cha = 1, str = -2, to_hit = 1, defence = 2, size = "small",
       desc = "Small, lucky and hard to hit." }

-- Classes: hit die, attack bonus per level (percent), good saves, prime
-- (the ability the best of the six rolls goes to), finesse (aims with Dex
-- when it is better than Str), dodge (a point of defence every that many
-- levels), starting
-- kit (weapon dice and names for the rules; kit: item kinds the item rules
-- hand out at creation, "24 arrow" for a stack of 24), the great sneak attack (everyone else strikes an
-- unaware foe a little harder), stealth (added to Dex, less worn armour,
-- against monsters' perception), mana per level and spells (of
-- spells.lua: known from the start, and learnable: a caster picks one at
-- each experience level among those its level allows, and books teach
-- them too).
class { name = "fighter", hit_die = 10, bab = 100, saves = { "fort" }, armour = 4, stealth = 0, prime = "str",
        weapon = "1d8", weapon_name = "long sword", armour_name = "chain mail",
        kit = { "long sword", "chain mail", "potion of healing", "short bow", "24 arrow" },
        desc = "Fighters hit hardest and last longest." }
class { name = "rogue", hit_die = 8, bab = 75, saves = { "ref" }, armour = 2, sneak = true, stealth = 6,
        prime = "dex", finesse = true, dodge = 2,
        weapon = "1d6", weapon_name = "short sword", armour_name = "leather armour",
        kit = { "short sword", "leather armour", "potion of healing", "sling", "20 sling stone", "12 dart" },
        desc = "Rogues strike unaware foes for dreadful wounds." }
class { name = "wizard", hit_die = 4, bab = 50, saves = { "will" }, armour = 0, mana = 4, stealth = 2, prime = "int",
        weapon = "1d4", weapon_name = "dagger", armour_name = "robe",
        kit = { "dagger", "robe", "potion of healing", "12 dart" },
        spells = { "magic missile" },
        learns = { "fire bolt", "frost bolt", "lightning bolt", "confuse", "stinking cloud", "fireball",
                   "ice storm", "shield", "haste self", "slow", "identify", "clairvoyance", "blink",
                   "chain lightning", "cone of cold" },
        desc = "Wizards cast bolts with mana, sparks without; they break easily." }
class { name = "cleric", hit_die = 8, bab = 75, saves = { "fort", "will" }, armour = 3, mana = 2, stealth = 1,
        prime = "wis",
        weapon = "1d6+1", weapon_name = "mace", armour_name = "scale mail",
        kit = { "mace", "scale mail", "buckler", "potion of healing", "sling", "20 sling stone" },
        spells = { "cure wounds" },
        learns = { "smite", "scare", "hold", "heal wounds", "bless", "remove curse", "call light",
                   "find traps", "holy fire", "cure poison", "holy word", "restoration" },
        desc = "Clerics heal themselves and smite the wicked." }
