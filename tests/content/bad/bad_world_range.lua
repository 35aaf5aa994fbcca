-- A world that wants at least more territories than at most.
world { territories = { 6, 3 }, towns = { 1, 2 }, rivers = { 1, 3 },
        onsets = { "b" }, vowels = { "a" }, codas = { "" },
        territory_ends = { "" }, town_ends = { "" }, river_ends = { "" } }
