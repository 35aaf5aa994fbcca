-- A world whose syllables are not small letters.
world { territories = { 4, 6 }, towns = { 1, 2 }, rivers = { 1, 3 },
        onsets = { "b", "Dr" }, vowels = { "a" }, codas = { "" },
        territory_ends = { "" }, town_ends = { "" }, river_ends = { "" } }
