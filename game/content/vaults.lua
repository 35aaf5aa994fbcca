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
vault { name = "twin cells", min_depth = 1, max_depth = 12, weight = 7, rows = [[
#########
#a.#.#.b#
#..+.+..#
###...###
  #.1.#  
  ##+##  ]] }
vault { name = "guard post", min_depth = 1, max_depth = 10, weight = 8, rows = [[
#######
#1...2#
#.###.#
+.#a#.+
#.#+#.#
#.....#
###+###]] }
vault { name = "spiral stair", min_depth = 3, max_depth = 20, weight = 5, rows = [[
###########
#.........#
#.#######.#
#.#a....#.#
#.#####.#.#
#1......#.#
#########+#]] }
vault { name = "flooded chapel", min_depth = 3, max_depth = 20, weight = 5, rows = [[
  #######  
 ##~~~~~## 
##~~.a.~~##
+~..1.2..~+
##~~...~~##
 ##~~~~~## 
  ###+###  ]] }
vault { name = "rubble-choked store", min_depth = 2, max_depth = 16, weight = 6, rows = [[
#########
#a:.:.:b#
#.:.:.:.#
#:.:1:.:#
#.:.:.:.#
####+####]] }
vault { name = "island cache", min_depth = 5, max_depth = 20, weight = 4, rows = [[
###########
#WWWWWWWWW#
#WW.....WW#
+~~.a.b.~~+
#WW..1..WW#
#WWWWWWWWW#
###########]] }
vault { name = "checkerboard hall", min_depth = 4, max_depth = 20, weight = 5, rows = [[
#############
#.#.#.#.#.#.#
+...1...2...+
#.#.#a#.#.#.#
#...3...b...#
#.#.#.#.#.#.#
######+######]] }
vault { name = "barracks", min_depth = 5, max_depth = 15, weight = 5, rows = [[
#############
#1.2.#3.4.5.#
#....+......#
##+###...####
#a..b#...+c.#
#############]] }
vault { name = "hidden library", min_depth = 6, max_depth = 20, weight = 4, rows = [[
###########
#a.b.c.d.e#
#.#.#.#.#.#
#....1....#
#.#.#.#.#.#
#....2....#
#####'#####]] }
vault { name = "crossroads shrine", min_depth = 2, max_depth = 20, weight = 6, rows = [[
   ##+##   
   #...#   
####.1.####
+...:a:...+
####...####
   #...#   
   ##+##   ]] }
vault { name = "troll bridge", min_depth = 8, max_depth = 20, weight = 4, rows = [[
#############
#WWWWW.WWWWW#
+.....1.....+
#WWWWW.WWWWW#
#a...#.#...b#
######+######]] }
vault { name = "nested rooms", min_depth = 7, max_depth = 20, weight = 4, rows = [[
#############
#1..........#
#.#########.#
#.#2.....3#.#
#.#.#####.#.#
#.#.+.a.#.#.#
#.#######.#.#
#.....+.....#
######+######]] }
vault { name = "burial niches", min_depth = 6, max_depth = 20, weight = 5, rows = [[
#############
#a#1#b#2#c#3#
#.#.#.#.#.#.#
+...........+
#.#.#.#.#.#.#
#4#d#5#e#6#f#
#############]] }
vault { name = "cistern", min_depth = 4, max_depth = 20, weight = 5, rows = [[
 ######### 
##~~~~~~~##
#~~WWWWW~~#
+~WWWaWWW~+
#~~WWWWW~~#
##~~1~2~~##
 ####+#### ]] }
vault { name = "warden's antechamber", min_depth = 16, max_depth = 20, weight = 4, rows = [[
###############
#1.....#.....2#
#.:::..#..:::.#
#.:a:..+..:b:.#
#.:::..#..:::.#
#3.....#.....4#
#######+#######]] }
vault { name = "kobold larder", min_depth = 1, max_depth = 7, weight = 7, legend = "K.", rows = [[
 ######  
##a:.b## 
#..K...##
+.:..K..+
##..:..##
 ###+### ]] }
