-- Prefab vaults (rotated and mirrored by the generator). '#' wall, '.'
-- floor, '+' closed door, "'" open door, '~' water, 'W' deep water,
-- ':' rubble, ' ' not part of the vault. Digits mark spots for monsters,
-- letters spots for treasure; legend maps extra glyphs ("K." : K is a
-- floor spot).
vault { name = "closet of treasures", min_depth = 1, max_depth = 20, weight = 10, rows = [[
#######
#a...b#
#.###.#
#.#c#.#
#.#+#.#
#..1..#
###+###]] }
vault { name = "pillared shrine", min_depth = 2, max_depth = 20, weight = 8, rows = [[
  #####  
 ##...## 
##.#.#.##
+...1...+
##.#a#.##
 ##...## 
  ##+##  ]] }
vault { name = "moated keep", min_depth = 4, max_depth = 20, weight = 5, rows = [[
WWWWWWWWWWWWW
W###########W
W#2.......3#W
W#...a.b...#W
W#####+#####W
WWWWWW~WWWWWW]] }
vault { name = "kobold den", min_depth = 1, max_depth = 9, weight = 8, legend = "K.", rows = [[
  ####### 
 ##1...2##
##..:..:.#
+...3.K..+
##..:....#
 ###...###
   ##+##  ]] }
vault { name = "flooded cell block", min_depth = 6, max_depth = 20, weight = 4, rows = [[
###########
#1#2#3#4#5#
#+#+#+#+#+#
+~~~~~~~~~+
#+#+#+#+#+#
#a#.#b#.#c#
###########]] }
