-- an ego says what it comes on
ego { name = "of nothing", brand = "fire" }
