-- a negative generation weight
oddment { creature = "jackal", min_depth = 1, weight = -5 }
