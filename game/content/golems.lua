-- The flesh golem (Incursion): lightning heals it, fire and cold slow it,
-- every other direct spell fails against it. Weapons hurt it as usual.
creature {
    name = "flesh golem", glyph = "'", fg = 9, speed = 90, hp = "9d8", attack = "2d8",
    to_hit = 4, defence = 4,
    on = {
        damage = function(e)
            if e.dtype == "lightning" then
                e.heal = e.amount // 3
                e.amount = 0
                return "done"
            elseif e.dtype == "fire" or e.dtype == "cold" then
                e.slow = 2 + e.rand(4)
                e.amount = 0
                return "done"
            elseif e.spell then
                e.amount = 0
                return "done"
            end
        end,
    },
}
oddment { creature = "flesh golem", min_depth = 8, weight = 5 }
