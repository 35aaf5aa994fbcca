-- names a kind no earlier module declared
oddment { creature = "dragon", min_depth = 3, weight = 10 }
