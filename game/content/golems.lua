-- The flesh golem (Incursion): lightning heals it, fire and cold slow it,
-- every other direct spell fails against it. Weapons hurt it as usual.
creature {
    name = "flesh golem", glyph = "'", fg = 9, speed = 90, hp = "9d8", attack = "2d8",
    to_hit = 7, defence = 5, armour = 2, size = "large", level = 9, hits = "slam<s:Actor>",
    flags = { "mindless" }, immune = { "poison" },
    desc = "Stitched corpses animated by lightning; it lurches, and it does not tire.",
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
oddment { creature = "flesh golem", min_depth = 8, max_depth = 16, weight = 5 }
