-- items, egos and an artifact, with handlers of both kinds
ego { name = "of sparks", classes = { "weapon" }, brand = "lightning", brand_dice = "1d4", min_depth = 1,
      freq = 20 }
item { name = "stiletto", like = "dagger", power = "1d3", to_hit = 2, freq = 30, min_depth = 1 }
item { name = "Needle", like = "dagger", flags = { "artifact", "unique" }, ego = "of sparks", min_depth = 1,
       on = { damage = function(e) e.amount = e.amount + e.rand(3) end } }
item { name = "ring of venom", like = "ring of protection", defence = 0, handlers = { "poison_bite" },
       resist = { "poison" } }
