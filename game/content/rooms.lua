-- How often a room takes each shape.
room { shape = "rect", weight = 30 }
room { shape = "octagon", weight = 12 }
room { shape = "cross", weight = 12 }
room { shape = "circle", weight = 10 }
room { shape = "pillared", weight = 10 }
room { shape = "overlap", weight = 12 }
