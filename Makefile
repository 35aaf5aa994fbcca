# Warren — build, run, test.
#   make deps     install the Debian packages (root)
#   make          build bin/ (release)
#   make run      start warrend with defaults (ARGS="--telnet ..." adds flags)
#   make run-hosted  the same with Debian's NetHack (and Crawl) in var/hosted
#   make test     sanitizer build + every suite
#   make test-pg  every integration suite on PostgreSQL (a private cluster)
#   make test-cluster  the cluster scenarios in network namespaces (root)
#   make fuzz     run each fuzz target for FUZZ_SECONDS (default 60)
#   make bench    print BENCH lines
# B=DIR puts every build output under DIR (default: build/ and bin/).

SHELL    := /bin/bash
B        ?= .
OBJ      := $(B)/build
BIN      := $(B)/bin
CC       ?= cc
PKGS     := libuv sqlite3 libpq lua5.4 libsodium zlib libtelnet libwebsockets vterm libcap \
            libpcre2-8 libseccomp
# the content a build loads when no --content is given: this tree's
CONTENT_DIR := $(abspath game/content)
WARN     := -std=c11 -Wall -Wextra -Werror -Wno-missing-field-initializers -D_GNU_SOURCE \
            -DWARREN_CONTENT_DIR='"$(CONTENT_DIR)"' 
# -iquote: project headers (game/sched.h, ...) must not shadow system ones (<sched.h>).
# Each layer sees only its own and lower layers' headers, so an upward
# include (db.h in game/) fails to compile: protocol <- game <- db <- server.
INC_protocol := -iquote protocol
INC_game     := $(INC_protocol) -iquote game
INC_db       := $(INC_game) -iquote db
# server/ is layered the same way, a folder per layer (docs/ARCHITECTURE.md):
#   core <- screens <- gateways (telnet, web) <- hosted <- records
#                                             <- admin
# and main.c with the route table (server/*.c) on top, seeing everything.
# Only the core and the records see the engine (game/): the screens, the
# gateways, hosted games and admin know a game through session.h alone.
# Headers keep plain names, found through one path per folder.
SERVER_DIRS  := server $(patsubst %/,%,$(sort $(dir $(wildcard server/*/*.[ch]))))
INC_server   := $(INC_db) $(addprefix -iquote ,$(SERVER_DIRS))
INC_server_core    := $(INC_db) -iquote server/core
INC_server_screens := $(INC_protocol) -iquote db -iquote server/core -iquote server/screens
INC_server_telnet  := $(INC_server_screens) -iquote server/telnet
INC_server_web     := $(INC_server_screens) -iquote server/web
INC_server_hosted  := $(INC_server_screens) -iquote server/telnet -iquote server/web \
                      -iquote server/hosted
INC_server_records := $(INC_server_hosted) -iquote game -iquote server/records
INC_server_admin   := $(INC_server_screens) -iquote server/telnet -iquote server/web \
                      -iquote server/admin
SERVER_LAYERS := core screens telnet web hosted records admin
INC_client-term := -iquote client-term $(INC_protocol)
INC_admin    := -iquote admin $(INC_server_core)
# tests, benchmarks, tools and the engine's command-line tool
INC          := -iquote . $(INC_server) -iquote client-term
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
REL_FLAGS  := -O2 -g
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60
# make test runs every fuzz target briefly too
TEST_FUZZ_SECONDS ?= 10
# every C source and header of the project, for make format / format-check
FORMAT_SRC = $(shell find protocol game db server client-term admin tests tools \
               -name '*.[ch]' -not -path '*/node_modules/*' 2>/dev/null)
# seconds per unit test before Check calls it a failure (sanitizer builds on 2 cores)
UNIT_TIMEOUT ?= 60
PYTHON   := /usr/bin/python3

LAYERS := protocol game db server
protocol_SRC := $(wildcard protocol/*.c)
game_SRC     := $(wildcard game/*.c)
db_SRC       := $(wildcard db/*.c)
server_SRC   := $(filter-out server/main.c,$(wildcard $(addsuffix /*.c,$(SERVER_DIRS))))
client_SRC   := $(filter-out client-term/main.c,$(wildcard client-term/*.c))
UNIT_SRC     := $(wildcard tests/unit/*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/*.c)
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(BIN)/fuzz/%,$(FUZZ_SRC))

.PHONY: all deps build run run-hosted test test-loops test-pg test-cluster test-cluster-short unit fuzz format format-check bench bench-protocol bench-engine bench-server \
        bench-server-figures bench-spectators bench-hosted1k bench-diskcap \
        golden clean client-web install
all: build

# every compile and the web build wait for deps (order-only), so `make -j`
# on a fresh clone installs the headers and node before it needs them
deps:
	@./tools/deps.sh
client-web: | deps

# ---- object rules for both modes -------------------------------------------
$(OBJ)/rel/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(REL_FLAGS) $(INC) $(PKGCFLAGS) -MMD -MP -c $< -o $@
$(OBJ)/asan/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(ASAN_FLAGS) $(INC) $(PKGCFLAGS) -MMD -MP -c $< -o $@
# a layer's objects get that layer's include path (game/tool/ is a program)
$(foreach m,rel asan fuzz,$(foreach l,$(LAYERS) client-term admin,\
  $(eval $(OBJ)/$(m)/$(l)/%.o: INC = $(INC_$(l)))))
$(foreach m,rel asan fuzz,$(eval $(OBJ)/$(m)/game/tool/%.o: INC = -iquote game/tool $(INC_game)))
# server/'s folders: the more specific pattern wins over server/%.o
$(foreach m,rel asan fuzz,$(foreach l,$(SERVER_LAYERS),\
  $(eval $(OBJ)/$(m)/server/$(l)/%.o: INC = $(INC_server_$(l)))))

define layer_lib
$(OBJ)/$(1)/lib$(2).a: $$(patsubst %.c,$(OBJ)/$(1)/%.o,$$($(2)_SRC))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach m,rel asan,$(foreach l,$(LAYERS) client,$(eval $(call layer_lib,$(m),$(l)))))

# link order: higher layers first
LIBS_rel  := $(foreach l,server db game protocol,$(OBJ)/rel/lib$(l).a)
LIBS_asan := $(foreach l,server db game protocol,$(OBJ)/asan/lib$(l).a)

# ---- programs ----------------------------------------------------------------
ALLPROGS := warrend warren warren-admin warren-engine bench-protocol warren-load warren-spectate
warrend_MAIN       := server/main.c
warren_MAIN        := $(wildcard client-term/*.c)
warren-admin_MAIN  := $(wildcard admin/*.c)
warren-engine_MAIN := $(wildcard game/tool/*.c)
bench-protocol_MAIN := tests/bench/protocol_bench.c
warren-load_MAIN   := $(wildcard tests/load/*.c)
warren-spectate_MAIN := tests/spectate/spectate.c tests/load/vt.c

define prog
$(BIN)/$(3)$(2): $$(patsubst %.c,$(OBJ)/$(1)/%.o,$$($(2)_MAIN)) $$(LIBS_$(1))
	@mkdir -p $$(dir $$@)
	$(CC) $$($(4)) -o $$@ $$^ $$(PKGLIBS)
endef
# a program is built once its main source exists
PROGS := $(foreach p,$(ALLPROGS),$(if $(wildcard $($(p)_MAIN)),$(p)))
$(foreach p,$(PROGS),$(eval $(call prog,rel,$(p),,REL_FLAGS)))
$(foreach p,$(PROGS),$(eval $(call prog,asan,$(p),asan/,ASAN_FLAGS)))

# test helper programs: each tests/tools/NAME.c becomes bin/tools/NAME
TOOL_SRC := $(wildcard tests/tools/*.c)
$(BIN)/tools/%: $(OBJ)/rel/tests/tools/%.o $(LIBS_rel)
	@mkdir -p $(dir $@)
	$(CC) $(REL_FLAGS) -o $@ $^ $(PKGLIBS)
$(BIN)/asan/tools/%: $(OBJ)/asan/tests/tools/%.o $(LIBS_asan)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_FLAGS) -o $@ $^ $(PKGLIBS)
TOOLS      := $(patsubst tests/tools/%.c,$(BIN)/tools/%,$(TOOL_SRC))
TOOLS_ASAN := $(patsubst tests/tools/%.c,$(BIN)/asan/tools/%,$(TOOL_SRC))

build: deps $(addprefix $(BIN)/,$(PROGS)) $(TOOLS) client-web
build-asan: deps $(addprefix $(BIN)/asan/,$(PROGS)) $(TOOLS_ASAN) $(BIN)/asan/unit

# ---- unit tests: every tests/unit/*.c defines Suite *suite_NAME(void) ----------
$(OBJ)/suites.inc: $(UNIT_SRC)
	@mkdir -p $(dir $@)
	@grep -ho '^Suite \*suite_[A-Za-z0-9_]*(void)' $(UNIT_SRC) | sed 's/^Suite \*\(suite_[A-Za-z0-9_]*\)(void)/SUITE(\1)/' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
$(OBJ)/asan/tests/unit_main.o: tests/unit_main.c $(OBJ)/suites.inc | deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(ASAN_FLAGS) $(INC) -I$(OBJ) $(PKGCFLAGS) $(shell pkg-config --cflags check) -c $< -o $@
$(BIN)/asan/unit: $(OBJ)/asan/tests/unit_main.o $(patsubst %.c,$(OBJ)/asan/%.o,$(UNIT_SRC)) $(LIBS_asan) \
                  $(OBJ)/asan/libclient.a
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_FLAGS) -Wl,--wrap=_mark_point -o $@ $^ $(shell pkg-config --libs check) $(PKGLIBS)
# hosted-game tests run the release ptytoy: no sanitizer runtime in the child
$(BIN)/asan/unit: | $(BIN)/tools/ptytoy

# ---- the browser client (client-web/) --------------------------------------------------------------
client-web:
	@if [ -f client-web/Makefile ]; then $(MAKE) -C client-web; fi

# ---- run, test, fuzz, bench ---------------------------------------------------
# run and run-hosted build with JOBS compiles at once (default: one per
# core) unless make was given -j itself; ARGS are warrend's flags
# (`make run ARGS="--telnet 127.0.0.1:2424 --http 127.0.0.1:8081"`).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PARALLEL = $(call jobs,$(JOBS))
jobs = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(1))
run:
	@$(MAKE) --no-print-directory $(PARALLEL) build
	mkdir -p var
	$(BIN)/warrend $(ARGS)

# A private playground: RUN_DIR holds the config, database, players'
# directories and NetHack's files (tools/run-hosted.sh says how).
RUN_DIR ?= var/hosted
run-hosted:
	@$(MAKE) --no-print-directory $(PARALLEL) build
	./tools/run-hosted.sh $(abspath $(BIN)) $(abspath $(RUN_DIR)) $(ARGS)

# Suites run in this order. The suites of LOOPS_SUITES run a second time
# with Warren's games over two loops (WARREN_LOOPS=2 adds --loops 2 to every
# daemon), those of PG_SUITES a third time on PostgreSQL (WARREN_DB=pg: each
# daemon in a schema of its own on a private cluster the run starts); both
# are a part that stands for the rest (test_loops.py and test_nodes.py are
# about loops and PostgreSQL themselves): test-loops and test-pg run every
# suite that way.
LOOPS_SUITES := test_community.py test_web_daemon.py test_admin.py test_admin_people.py \
                test_server.py::test_takeover test_server.py::test_sigterm_saves_and_restart_resumes \
                test_storage_faults.py::test_full_database_pauses_and_loses_nothing \
                test_read_budget.py test_watch_order.py
PG_SUITES := test_nodes.py test_admin.py test_community.py test_recovery_rebuild.py \
             test_server.py::test_register_play_quit_resume test_server.py::test_takeover \
             test_server.py::test_sigterm_saves_and_restart_resumes test_server.py::test_crash_at_level_change \
             test_watch_nodes.py test_watch_moved.py test_hosted_nodes.py test_hosted_survive.py \
             test_kick_nodes.py test_logout_nodes.py test_mail_relogin.py test_node_events.py \
             test_notify_forged.py test_peer_attack.py test_peer_versions.py test_storage_pg.py \
             test_delete_nodes.py test_db_conflict.py test_db_lock_wait.py
# The integration suites run as TEST_WORKERS pytest processes at once
# (pytest-xdist; default: one per core): most of their time is spent
# waiting on sockets. Each worker has its own temporary directories, ports
# and PostgreSQL cluster; tests marked `alone` (they time themselves) run
# with no other test beside them (tests/integration/conftest.py).
TEST_WORKERS ?= $(JOBS)
PYTEST_N = $(PYTHON) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS)
test: format-check
	@$(MAKE) --no-print-directory $(PARALLEL) build build-asan
	$(MAKE) --no-print-directory $(PARALLEL) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)
	WARREN_BIN=$(abspath $(BIN)) $(PYTEST_N) tests/integration
	WARREN_LOOPS=2 WARREN_BIN=$(abspath $(BIN)) $(PYTEST_N) $(addprefix tests/integration/,$(LOOPS_SUITES))
	WARREN_DB=pg WARREN_BIN=$(abspath $(BIN)) $(PYTEST_N) $(addprefix tests/integration/,$(PG_SUITES))
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory test-cluster-short

test-pg: build build-asan
	WARREN_DB=pg WARREN_BIN=$(abspath $(BIN)) $(PYTEST_N) tests/integration

# tests/cluster/ builds PostgreSQL primary + standby, HAProxy and warrend
# nodes from network namespaces it makes (root); it prints BENCH lines.
# test-cluster-short (part of make test): the harness's cleanup and the
# combined run small (40 players, 6 watchers on another node than their
# game; a node killed, one drained, the database failed over, in turn),
# the benchmarks' network mode (tests/load/netpair.py) short, and a hosted
# game watched from another node, then its node killed (40 keys).
# test-cluster: every scenario, the combined run with 300 players.
CLUSTER_PYTEST = WARREN_BIN=$(abspath $(BIN)) $(PYTHON) -m pytest -q -s -p no:cacheprovider
test-cluster: build
	WARREN_CLUSTER_PLAYERS=100 WARREN_CLUSTER_SECONDS=60 WARREN_CLUSTER_KILL_PLAYERS=12 \
	    WARREN_CLUSTER_WATCH_PLAYERS=270 WARREN_CLUSTER_WATCHERS=30 WARREN_CLUSTER_WATCH_SECONDS=30 \
	    WARREN_CLUSTER_COMBINED_PLAYERS=300 WARREN_CLUSTER_COMBINED_WATCHERS=30 \
	    WARREN_CLUSTER_STEP_SECONDS=20 WARREN_CLUSTER_HOSTED_KEYS=400 $(CLUSTER_PYTEST) tests/cluster
test-cluster-short: build
	$(CLUSTER_PYTEST) tests/cluster/test_harness.py tests/cluster/test_bench_net.py \
	    tests/cluster/test_combined.py tests/cluster/test_hosted_cross.py

test-loops: build build-asan
	WARREN_LOOPS=2 WARREN_BIN=$(abspath $(BIN)) $(PYTEST_N) tests/integration

# The unit runner as UNIT_JOBS processes at once (default: one per core),
# each taking the next suite as it finishes one
UNIT_JOBS ?= $(JOBS)
unit: build-asan
	CK_FORK=yes CK_DEFAULT_TIMEOUT=$(UNIT_TIMEOUT) $(BIN)/asan/unit -j $(UNIT_JOBS)

# Fuzz targets link every layer and the client (less its main) as archives
# built with the sanitizers: a target pulls in only the objects it uses.
FUZZ_CC   := clang
FUZZ_SAN  := -g -O1 -fno-sanitize-recover=all
FUZZ_FLAGS := $(FUZZ_SAN) -fsanitize=fuzzer,address,undefined
$(OBJ)/fuzz/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined $(INC) \
	  $(PKGCFLAGS) -MMD -MP -c $< -o $@
$(foreach l,$(LAYERS) client,$(eval $(call layer_lib,fuzz,$(l))))
LIBS_fuzz := $(foreach l,server db game protocol client,$(OBJ)/fuzz/lib$(l).a)
$(BIN)/fuzz/%: $(OBJ)/fuzz/tests/fuzz/%.o $(LIBS_fuzz)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ $(PKGLIBS)
# Each target runs from its seeds (if any) for FUZZ_SECONDS; any crash, leak
# or sanitizer report fails the run and shows the end of its log. A target
# is one thread: FUZZ_JOBS of them run at once (default: one per core; make's
# own -j when given), each one's lines kept together.
FUZZ_JOBS ?= $(JOBS)
FUZZ_RUNS := $(patsubst tests/fuzz/%.c,fuzz-run-%,$(FUZZ_SRC))
.PHONY: $(FUZZ_RUNS)
fuzz: deps $(FUZZ_BINS)
	@$(MAKE) --no-print-directory -Otarget $(call jobs,$(FUZZ_JOBS)) $(FUZZ_RUNS)
$(FUZZ_RUNS): fuzz-run-%: $(BIN)/fuzz/%
	@n=$*; out=$(OBJ)/fuzz-out; mkdir -p $(OBJ)/corpus/$$n $$out; \
	  seeds=tests/fuzz/seeds/$$n; [ -d $$seeds ] || seeds=; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	  if $< -max_total_time=$(FUZZ_SECONDS) -detect_leaks=1 -artifact_prefix=$$out/$$n- \
	       $(OBJ)/corpus/$$n $$seeds > $$out/$$n.log 2>&1; then tail -n 1 $$out/$$n.log; \
	  else tail -n 40 $$out/$$n.log; echo "fuzz: $$n FAILED (log: $$out/$$n.log)"; exit 1; fi

# bench and bench-server measure the machine first and print each time
# also as a ratio to it (tests/bench/calibrated.py)
CALIBRATED = $(PYTHON) tests/bench/calibrated.py $(BIN) -- $(MAKE) -s --no-print-directory
bench: build
	@$(CALIBRATED) bench-protocol bench-engine bench-server-figures
bench-protocol: build
	$(BIN)/bench-protocol
bench-engine: build
	$(BIN)/warren-engine bench
	$(BIN)/tools/script_bench
	@# NetHack's bytes per key on the same kinds of play as walk.bytes_per_key.KIND
	@if [ -x /usr/games/nethack ]; then for k in explore travel menus messages fight; do \
	  $(PYTHON) tests/bench/nethack_walk.py --kind $$k --cells --runs 5 | grep -v 'rss\|private'; done; fi
bench-server: build
	@$(CALIBRATED) bench-server-figures
# 10,000 browser spectators over 100 games, then 5,000 on one (tests/web/spectators.py)
bench-spectators: build
	@$(PYTHON) tests/web/spectators.py $(BIN) 10000 100 5000
bench-server-figures: build
	@if [ -x tests/load/bench-server.sh ]; then tests/load/bench-server.sh $(BIN); fi
	$(BIN)/tools/replay_bench
	$(BIN)/tools/db_bench
	$(BIN)/tools/hosted_bench
	@if [ -x /usr/games/nethack ]; then /usr/bin/python3 tests/load/pty_watch.py $(BIN); fi
	/usr/bin/python3 tests/load/hosted_key_path.py $(BIN)
	@$(MAKE) -s --no-print-directory bench-hosted1k
# 1,000 hosted NetHack games played at a key a second over telnet, 10 watched
# (tests/load/bench_hosted1k.py: as root, NetHack's MAXPLAYERS lifted in a
# mount namespace of the daemon's own)
HOSTED1K_N ?= 1000
bench-hosted1k: build
	@if [ "$$(id -u)" != 0 ]; then echo "bench-hosted1k: skipped: it needs root (a mount namespace)"; \
	elif [ -x /usr/games/nethack ]; then $(PYTHON) tests/load/bench_hosted1k.py $(BIN) --n $(HOSTED1K_N); fi
# what the hosted games' disk caps cost the spawner with DISKCAP_N idle boxed
# games, then how far past its cap a hostile program gets, 5 times
# (tests/load/bench_diskcap.py: as root, the games switch users)
DISKCAP_N ?= 200
bench-diskcap: build
	@if [ "$$(id -u)" != 0 ]; then echo "bench-diskcap: skipped: it needs root (boxed games)"; \
	else $(PYTHON) tests/load/bench_diskcap.py $(BIN) --n $(DISKCAP_N) && \
	  $(PYTHON) tests/load/bench_diskcap.py $(BIN) --overrun 5; fi

# one dialect: .clang-format
format: deps
	clang-format -i $(FORMAT_SRC)
format-check: deps
	@clang-format --dry-run --Werror $(FORMAT_SRC) 2>&1 | head -n 40; \
	  if ! clang-format --dry-run --Werror $(FORMAT_SRC) >/dev/null 2>&1; then \
	    echo "format-check: the code above does not follow .clang-format; run 'make format'"; exit 1; fi; \
	  echo "format-check: $(words $(FORMAT_SRC)) files follow .clang-format"

# regenerate committed golden files on purpose
golden: build
	@for g in tests/golden/*.sh; do [ -x "$$g" ] && "$$g" $(abspath $(BIN)); done; true

install: build
	@./deploy/install.sh

clean:
	rm -rf $(OBJ) $(BIN)

# a variable's value, for the tests that check the build (test_layers.py)
print-%:
	@echo '$($*)'

# keep intermediate objects (tools) so nothing prints after the test summary
.SECONDARY:

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
