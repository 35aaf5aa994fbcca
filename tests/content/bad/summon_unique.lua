-- a unique comes once a game: nobody calls it
creature { name = "herald", glyph = "h", summon = "Skarg the Kobold King" }
