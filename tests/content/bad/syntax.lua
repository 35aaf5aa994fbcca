-- a creature whose table never closes
creature { name = "broken", glyph = "b",
  hp = "1d4"
oddment { creature = "broken", weight = 1 }
