-- kinds whose handlers fail at run time, in the order the tests use them
creature { name = "faulty", glyph = "f", on = { damage = function(e)
    return e.nothing.here
end } }
creature { name = "runaway", glyph = "r", on = { damage = function(e)
    while true do end
end } }
creature { name = "glutton", glyph = "g", on = { damage = function(e)
    local t = {}
    for i = 1, 1e9 do t[i] = string.rep("x", 64) .. i end
end } }
creature { name = "io", glyph = "1", on = { damage = function(e) io.open("/etc/passwd") end } }
creature { name = "os", glyph = "2", on = { damage = function(e) os.exit(1) end } }
creature { name = "require", glyph = "3", on = { damage = function(e) require("os") end } }
creature { name = "load", glyph = "4", on = { damage = function(e) load("return 1")() end } }
creature { name = "debug", glyph = "5", on = { damage = function(e) debug.getinfo(1) end } }
creature { name = "dump", glyph = "6", on = { damage = function(e) string.dump(print) end } }
creature { name = "global", glyph = "7", on = { damage = function(e)
    counter = (counter or 0) + 1
end } }
creature { name = "libwrite", glyph = "8", on = { damage = function(e) math.pi = 3 end } }
creature { name = "strmeta", glyph = "9", on = { damage = function(e)
    getmetatable("").__index.x = 1
end } }
creature { name = "pcall", glyph = "0", on = { damage = function(e)
    pcall(function() end)
end } }
creature { name = "catcher", glyph = "C", on = { damage = function(e)
    e.amount = 7
    error("after a change")
end } }
-- a variant: a copy of an earlier kind, handlers included, with changes
creature { name = "faulty twin", like = "faulty", glyph = "F", speed = 130 }
