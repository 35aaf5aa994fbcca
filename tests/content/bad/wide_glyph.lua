-- a glyph two columns wide has no fallback either
creature { name = "wide", glyph = "中" }
