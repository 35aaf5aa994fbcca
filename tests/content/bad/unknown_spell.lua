-- a class may only name declared spells
class { name = "bard", hit_die = 6, bab = 75, mana = 2, spells = { "lullaby" } }
