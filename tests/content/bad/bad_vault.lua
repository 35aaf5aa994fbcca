-- A vault with a glyph the generator does not know.
vault { name = "odd", weight = 3, rows = [[
#####
#.%.#
#####]] }
