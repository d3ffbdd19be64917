# ptxtile - one flat Makefile.  Outputs go to $(O) (default build/).
#   make             libptxtile.a/.so, libptxtile_rt.a/.so, build/ptxtile
#   make test        everything that needs no GPU; ends "N passed, N failed"
#   make asan        the same suite under ASan+UBSan in build-asan/
#   make fuzz        libFuzzer targets (clang), FUZZ_SECONDS each
#   make fuzz-smoke  the same, 60 s each (CI)
#   make fuzz-mutate structure-aware mutants, "accepted => ptxas accepts"
#   make demo        build, compile every example; run them on the GPU, or
#                    without one in the PTX emulator (host-checked)
#   make test-gpu    GPU tests (a skip, exit 0, when no driver)
#   make test-tirx   compare tile instructions with apache-tvm-tirx (optional)
#   make bench-frontend  front-end timing per example (bench/README.md)
#   make lint        style check of every C file (clang-format but for
#                    tools/lint-pending.txt; trailing whitespace)
#   make install PREFIX=/usr/local
O ?= build
CC ?= cc
PREFIX ?= /usr/local
WERROR ?= $(if $(CI),-Werror,)
OPT ?= -O2 -g
SAN ?=
CFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) -fPIC \
	-fvisibility=hidden -Wall -Wextra -Wshadow -Wundef -Wwrite-strings \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	$(WERROR) -Iinclude -Isrc -MMD -MP $(CFLAGS)
LDLIBS_ALL = -lm -ldl $(LDLIBS)

RT_SRC  := $(sort $(wildcard src/rt/*.c))
LIB_SRC := $(sort $(filter-out $(RT_SRC),$(wildcard src/*.c src/*/*.c src/tile/patterns/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
RT_OBJ  := $(RT_SRC:%.c=$(O)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(O)/%.o)
# The runtime reuses the base helpers (arena, JSON) of the compiler library.
RT_BASE_OBJ := $(filter $(O)/src/base/%,$(LIB_OBJ))

all: $(O)/libptxtile.a $(O)/libptxtile.so $(O)/libptxtile_rt.a \
	$(O)/libptxtile_rt.so $(O)/ptxtile $(O)/vcopy_host

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(O)/libptxtile.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(O)/libptxtile.so: $(LIB_OBJ)
	$(CC) $(SAN) -shared -o $@ $^ $(LDLIBS_ALL)
$(O)/libptxtile_rt.a: $(RT_OBJ) $(RT_BASE_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(O)/libptxtile_rt.so: $(RT_OBJ) $(RT_BASE_OBJ)
	$(CC) $(SAN) -shared -o $@ $^ $(LDLIBS_ALL)
# `ptxtile run --emulate` (tools/ptxtile_run.c) uses the emulator in
# libptxtile (src/emu/) and the runtime's launch planner.
$(O)/ptxtile: $(O)/tools/ptxtile.o $(O)/tools/ptxtile_run.o $(O)/libptxtile.a $(O)/libptxtile_rt.a
	$(CC) $(SAN) -o $@ $< $(O)/tools/ptxtile_run.o $(O)/libptxtile.a $(RT_OBJ) $(LDLIBS_ALL)

# The C host example (examples/host/): the runtime library and libdl only.
$(O)/vcopy_host: examples/host/vcopy_host.c $(O)/libptxtile_rt.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(O)/libptxtile_rt.a $(LDLIBS_ALL)

# The emulator rounds in the PTX modes through fesetround around the one
# host operation: the compiler may move or fold float arithmetic across
# the mode change (at -O1, make asan's level, add.rz.f32.f16 of 1.5 *
# 2^-24 and 1 gave 1 + 2^-23), which -frounding-math and volatile
# operands and results (src/emu/alu.c f32_apply) prevent.
$(O)/src/emu/%.o: CFLAGS_ALL += -frounding-math

# Unit tests: every TEST(name) in tests/unit/*.c is registered by name.
$(O)/unit_list.h: $(UNIT_SRC)
	@mkdir -p $(O)
	@grep -ho '^TEST([a-z0-9_]*)' $(UNIT_SRC) | sed 's/TEST(\(.*\))/X(\1)/' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
$(O)/tests/unit/main.o: $(O)/unit_list.h
$(O)/tests/unit/%.o: CFLAGS_ALL += -I$(O) -Itests/unit
$(O)/unit_tests: $(UNIT_OBJ) $(O)/libptxtile.a $(RT_OBJ)
	$(CC) $(SAN) -o $@ $(UNIT_OBJ) $(O)/libptxtile.a $(RT_OBJ) $(LDLIBS_ALL)

# Differential PTX spelling test tool (tests/suites/ptx_diff.sh).
$(O)/ptxdiff: $(O)/tools/ptxdiff.o $(O)/libptxtile.a
	$(CC) $(SAN) -o $@ $< $(O)/libptxtile.a $(LDLIBS_ALL)
# Every emitted instruction line is a form row (tests/suites/vocab.sh).
$(O)/ptxvocab: $(O)/tools/ptxvocab.o $(O)/libptxtile.a
	$(CC) $(SAN) -o $@ $< $(O)/libptxtile.a $(LDLIBS_ALL)

test: all $(O)/unit_tests $(O)/ptxdiff $(O)/ptxvocab $(O)/stubcuda/libcuda.so.1
	@BUILD=$(O) sh tests/run.sh

asan:
	$(MAKE) O=build-asan CC=$(if $(filter cc,$(CC)),gcc,$(CC)) OPT="-O1 -g" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" test

FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
# UBSan does not recover: undefined behaviour fails the run like a crash.
FUZZ_SAN := address,undefined -fno-sanitize-recover=all
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		$(MAKE) --no-print-directory O=build-fuzz CC=clang OPT="-O1 -g" \
			SAN="-fsanitize=fuzzer-no-link,$(FUZZ_SAN)" all || exit 1; \
		clang -fsanitize=fuzzer,$(FUZZ_SAN) -O1 -g -Iinclude -Isrc \
			tests/fuzz/$$t.c build-fuzz/src/rt/*.o build-fuzz/libptxtile.a -lm -ldl \
			-o build-fuzz/$$t || exit 1; \
		mkdir -p tests/fuzz/corpus/$$t tests/fuzz/crashes build-fuzz/corpus-$$t; \
		build-fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=tests/fuzz/crashes/ \
			$$([ -f tests/fuzz/$$t.dict ] && echo -dict=tests/fuzz/$$t.dict) \
			build-fuzz/corpus-$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# Every fuzz target for FUZZ_SMOKE_SECONDS (CI); skipped with a note when
# clang cannot link libFuzzer.
FUZZ_SMOKE_SECONDS ?= 60
fuzz-smoke:
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}' | \
		clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then \
		$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS); \
	else echo "fuzz-smoke: SKIPPED, clang cannot link -fsanitize=fuzzer"; fi

# Structure-aware mutation campaign (tools/mutate_examples.py): scripts
# and IR JSON of the examples mutated, "accepted => ptxas accepts" checked
# on every compiled mutant; MUTANTS per run, nice'd (a shared machine).
# Breaking mutants land in MUTATE_CORPUS (tests/property/corpus is what
# make test replays).  With O=build-asan each mutant is compiled by the
# ASan+UBSan CLI, and a sanitizer report counts as a crash.
MUTANTS ?= 2000
MUTATE_SEED ?= 1
MUTATE_CORPUS ?= build/mutants
fuzz-mutate: all
	PTXTILE_LIB_DIR=$(abspath $(O)) nice -n 10 python3 tools/mutate_examples.py -n $(MUTANTS) \
		--seed $(MUTATE_SEED) --ptxtile $(O)/ptxtile --corpus $(MUTATE_CORPUS) \
		$(if $(filter build-asan,$(O)),--cli,)

demo: all $(O)/unit_tests
	@BUILD=$(O) sh tools/demo.sh

# Front-end benchmark (bench/README.md): parse + lower + print per example.
$(O)/bench_frontend: bench/frontend.c $(O)/libptxtile.a $(RT_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ bench/frontend.c $(O)/libptxtile.a $(RT_OBJ) $(LDLIBS_ALL)
bench-frontend: all $(O)/bench_frontend
	$(O)/bench_frontend examples/*.py

# A stand-in libcuda.so.1 (tests/stubcuda/stubcuda.c): every driver call
# succeeds and does nothing, so the runtime's own per-launch cost can be
# timed and its driver calls counted without a GPU
# (LD_LIBRARY_PATH=$(O)/stubcuda; bench/launch_stub.py, bench/README.md).
$(O)/stubcuda/libcuda.so.1: tests/stubcuda/stubcuda.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fvisibility=hidden -MMD -MP,$(CFLAGS_ALL)) -shared \
		-Wl,-soname,libcuda.so.1 -o $@ $<
bench-launch-stub: all $(O)/stubcuda/libcuda.so.1
	@LD_LIBRARY_PATH=$(O)/stubcuda PTXTILE_LIB_DIR=$(O) PYTHONPATH=python python3 bench/launch_stub.py

# exit 77 (no driver or GPU) is a skip, reported by run.sh, not an error
test-gpu: all
	@BUILD=$(O) sh tests/gpu/run.sh; rc=$$?; [ $$rc -eq 77 ] || exit $$rc

# Optional differential test against apache-tvm-tirx (black box,
# tools/tirx_diff.py): every line SKIP when the package is absent.
test-tirx: all
	@python3 tools/tirx_diff.py --build $(O) examples/*.py tests/tirx/*.py

# Emulator speed on one GEMM tile (bench/README.md).
bench-emu: all
	@BUILD=$(O) sh bench/emu_gemm.sh

$(O)/compile_latency: bench/compile_latency.c $(O)/libptxtile.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(O)/libptxtile.a $(LDLIBS_ALL)

bench-compile: all $(O)/compile_latency
	@BUILD=$(O) sh bench/compile_latency.sh

# Byte-for-byte check of everything the compiler emits (issue 21):
# REF absent, it is written; present, a fresh copy is compared with it.
REF ?= build/ptx_identical_ref
ptx-identical: all $(O)/ptxdiff
	@if [ -e "$(REF)" ]; then rm -rf "$(O)/ptx_identical_new" && \
		BUILD=$(O) sh tools/ptx_identical.sh "$(O)/ptx_identical_new" "$(REF)"; \
	else BUILD=$(O) sh tools/ptx_identical.sh "$(REF)"; fi

# Style check of every C source and header: no trailing whitespace in
# any, and .clang-format for all but the files of tools/lint-pending.txt
# (those not yet formatted; the list only shrinks).
LINT_FILES ?= $(shell find src include tools bench examples tests \
	-name '*.[ch]' | LC_ALL=C sort)
LINT_PENDING ?= tools/lint-pending.txt
LINT_FORMATTED = $(filter-out $(shell sed -e 's/\#.*//' $(LINT_PENDING)), \
	$(LINT_FILES))
lint:
	@! grep -n '[[:space:]]$$' $(LINT_FILES) /dev/null || \
		{ echo "lint: error: trailing whitespace (above)"; exit 1; }
	clang-format --style=file --dry-run --Werror $(LINT_FORMATTED)

install: all
	install -d $(DESTDIR)$(PREFIX)/include/ptxtile/codes $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/ptxtile.h include/ptxtile_rt.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/ptxtile/codes.def $(DESTDIR)$(PREFIX)/include/ptxtile/
	install -m 644 include/ptxtile/codes/*.def $(DESTDIR)$(PREFIX)/include/ptxtile/codes/
	install -m 644 $(O)/libptxtile.a $(O)/libptxtile.so $(O)/libptxtile_rt.a $(O)/libptxtile_rt.so $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(O)/ptxtile $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' tools/ptxtile.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ptxtile.pc

clean:
	rm -rf build build-asan build-fuzz

.PHONY: bench-launch-stub
.PHONY: all test asan fuzz fuzz-smoke fuzz-mutate demo test-gpu test-tirx bench-compile bench-frontend bench-emu lint install clean ptx-identical
-include $(LIB_OBJ:.o=.d) $(RT_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(O)/tools/ptxtile.d $(O)/tools/ptxdiff.d $(O)/tools/ptxvocab.d

# The Python package (python/ptxtile, issue 13): the shared libraries it
# ships (setup.py runs this), and its CPU tests alone.
pylib: $(O)/libptxtile.so $(O)/libptxtile_rt.so
test-python: pylib $(O)/stubcuda/libcuda.so.1
	@BUILD=$(O) sh tests/suites/python.sh
.PHONY: pylib test-python
