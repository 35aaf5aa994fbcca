-- a handler that would keep state in a module local
local hits = 0
creature { name = "counter", glyph = "c", on = { damage = function(e) hits = hits + 1 end } }
