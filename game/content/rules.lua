-- What the rules look up: the player's kind, the effects the rules apply,
-- and the engine's built-in handlers by name.
rules { version = "warren-lua-10", player = "you", poison = "poison", slow = "slow",
        creature_builtin = "creature", map_builtin = "map" }
