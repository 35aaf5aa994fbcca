-- A region kind with a shape the generator does not know.
region { name = "a hexagonal hall", weight = 2, shapes = { "hexagon" } }
