-- an artifact is worn or wielded
item { name = "Everfull Cup", class = "food", flags = { "artifact" } }
