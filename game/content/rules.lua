-- What the rules look up: the player's kind, the effects the rules apply,
-- and the engine's built-in handlers by name.
rules { version = "warren-lua-1", player = "you", poison = "poison",
        creature_builtin = "creature", map_builtin = "map" }
