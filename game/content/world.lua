-- The surface world (game/worldmap.c): the continent the town lies on.
-- width, height: the map in cells (a cell is about twice as tall as wide);
-- land: percent of the map above the sea; territories, towns (per
-- territory), rivers: {at least, at most}; home: the player's town;
-- wilds, streets: the region kinds of the overland and of other towns.
-- Names are syllables: onset + vowel, one to three times, a coda, then an
-- ending by what is named. An empty string is a syllable that adds nothing.
world {
  width = 56, height = 21, land = 42,
  territories = { 6, 10 }, towns = { 1, 3 }, rivers = { 4, 8 },
  home = "Burrowmouth", wilds = "the wilds", streets = "a market town",
  onsets = { "b", "br", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "r", "s", "sk",
             "st", "t", "th", "v", "w", "", "" },
  vowels = { "a", "e", "i", "o", "u", "a", "e", "o", "ae", "ou", "y" },
  codas = { "", "", "", "n", "r", "l", "th", "m", "nd", "rn", "sk", "ck" },
  territory_ends = { "ia", "land", "mark", "reach", "moor", "dale", "vale", "shire", "" },
  town_ends = { "ford", "holm", "wick", "by", "stead", "ton", "burg", "ham", "gate", "well" },
  river_ends = { "", "", "water", "burn", "wash", "rill" },
}
