-- Special levels: the level of `depth` is reshaped after the generator.
-- region: every room and cave takes this region kind; water, deep, lava,
-- chasm, rubble: blobs of that terrain (deep water, lava and chasm are
-- never laid where they would cut the level apart); creature and extra:
-- more of one kind; msg: read on first arrival.
special_level { name = "the kobold warren", depth = 3, region = "a kobold warren", rubble = 10, water = 2,
                creature = "kobold", extra = 10,
                msg = "The walls are scratched with kobold marks and the air stinks of wet fur. A warren!" }
special_level { name = "the drowned halls", depth = 7, region = "the drowned halls", water = 24, deep = 16,
                msg = "Black water stands in every hall here. Deep pools drag down anyone who swims laden." }
special_level { name = "the broken deeps", depth = 13, region = "the broken deeps", chasm = 14, rubble = 12,
                msg = "The floor here is split by chasms. Far below, something echoes." }
special_level { name = "the warden's lair", depth = 20, region = "the warden's lair", lava = 16, rubble = 6,
                msg = "Heat rolls over you: rivers of lava light a hall of black stone. The warden waits." }
