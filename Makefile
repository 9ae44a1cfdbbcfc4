# elog-tui build: one flat Makefile. Output goes under build/ (or build/san-* for SAN=...).
#   make            build elog-tui and the synthetic log writer
#   make check      build and run every test (Check unit tests + end-to-end scripts)
#   make bench      performance benchmark (ratios against a bare-scan floor; builds
#                   build/elog-bench, the in-process timer it runs)
#   make bench-huge a 10 GB thread-churn log: open, stats, gc, threads (bench/huge.sh)
#   make SAN=address,undefined check   the same suite under ASan/UBSan
#   make fuzz       libFuzzer targets (clang), each run FUZZ_SECONDS (default 60)
#   make install    binary, man page and bash/zsh completions under $(DESTDIR)$(PREFIX)
#                   (PREFIX=/usr/local by default); make uninstall removes them

CC      ?= cc
SAN     ?=
PKGS    := ncursesw tickit
OPT     ?= -O2

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
           -Wno-format-nonliteral
CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) -g $(WARN) \
           -Iinclude -MMD -MP $(EXTRA_CFLAGS)
LDLIBS  := -lm -pthread

comma := ,
ifeq ($(SAN),)
BUILD   := build
else
BUILD   := build/san-$(subst $(comma),-,$(SAN))
CFLAGS  += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif

UI_CFLAGS    := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
UI_LIBS      := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

CORE_SRC := $(wildcard src/*.c)
UI_SRC   := $(wildcard ui/*.c)
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
UI_OBJ   := $(UI_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

BIN      := $(BUILD)/elog-tui
SYNTH    := $(BUILD)/elog-synth
BENCHBIN := $(BUILD)/elog-bench
MMUBENCH := $(BUILD)/elog-mmu-bench
REPLAY   := $(BUILD)/elog-replay
LIVEBENCH := $(BUILD)/elog-livebench
TESTBIN  := $(BUILD)/elog-tests

.PHONY: all check bench bench-huge layers headers clean demo deps fuzz fuzz-build fuzz-deps \
        install uninstall FORCE

all: $(BIN) $(SYNTH) $(BENCHBIN) $(REPLAY) $(LIVEBENCH) layers

$(BUILD)/libelog.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libelogui.a: $(UI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/ui/%.o: ui/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(UI_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) $(UI_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The version `elog-tui --version` prints: `git describe` in a checkout (the VERSION
# file's number and the commit when the history has no tags), else the VERSION file.
# build/version.h is rewritten only when that text changes, so nothing rebuilds for it.
ELOG_VERSION = $(shell v=$$(git -C $(CURDIR) describe --tags --dirty 2>/dev/null) || \
                 { h=$$(git -C $(CURDIR) describe --always --dirty 2>/dev/null) && \
                   v="$$(cat $(CURDIR)/VERSION)-g$$h"; } || v=$$(cat $(CURDIR)/VERSION); \
                 echo "$$v")

$(BUILD)/version.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define ELOG_VERSION "%s"\n' '$(ELOG_VERSION)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/cli/main.o: $(BUILD)/version.h
$(BUILD)/cli/main.o: CFLAGS += -I$(BUILD)

$(BIN): $(CLI_OBJ) $(BUILD)/libelogui.a $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $(CLI_OBJ) $(BUILD)/libelogui.a $(BUILD)/libelog.a $(UI_LIBS) $(LDLIBS) -o $@

$(SYNTH): $(BUILD)/tools/elog-synth.o $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(REPLAY): $(BUILD)/tools/elog-replay.o
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(LIVEBENCH): $(BUILD)/tools/elog-livebench.o $(BUILD)/libelogui.a $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $^ $(UI_LIBS) $(LDLIBS) -o $@

$(BENCHBIN): $(BUILD)/tools/elog-bench.o $(BUILD)/libelogui.a $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $^ $(UI_LIBS) $(LDLIBS) -o $@

# What a focused thread costs the live viewer per swap (issue 13), built with everything.
FOCUSBENCH := $(BUILD)/elog-focusbench
all: $(FOCUSBENCH)
$(FOCUSBENCH): $(BUILD)/tools/elog-focusbench.o $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
-include $(BUILD)/tools/elog-focusbench.d

# The MMU's own timing step of `make bench` (issue 14), apart from elog-bench; built with
# everything so that it never rots.
all: $(MMUBENCH)
$(MMUBENCH): $(BUILD)/tools/elog-mmu-bench.o $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(TESTBIN): $(TEST_OBJ) $(BUILD)/libelogui.a $(BUILD)/libelog.a
	$(CC) $(LDFLAGS) $(TEST_OBJ) $(BUILD)/libelogui.a $(BUILD)/libelog.a $(CHECK_LIBS) $(UI_LIBS) $(LDLIBS) -o $@

# src/ and include/ must not know about terminals.
layers:
	@if grep -nE '#[[:space:]]*include[[:space:]]*[<"](n?curses|tickit)' src/*.c include/*.h; then \
	  echo "layering violation: src/ or include/ includes a terminal library" >&2; exit 1; fi

# Every header compiles on its own.
headers:
	@for h in include/*.h; do \
	  echo "#include \"$$(basename $$h)\"" | $(CC) -std=c11 -D_POSIX_C_SOURCE=200809L \
	    -D_DEFAULT_SOURCE $(WARN) -Iinclude -x c -fsyntax-only - || { echo "$$h is not self-contained" >&2; exit 1; }; \
	done

# The whole suite: Check unit/integration tests, then end-to-end scripts.
check: $(BIN) $(SYNTH) $(REPLAY) $(TESTBIN) layers headers
	ELOG_BIN=$(abspath $(BIN)) ELOG_SYNTH=$(abspath $(SYNTH)) ELOG_REPLAY=$(abspath $(REPLAY)) \
	  ELOG_SAN=$(SAN) $(TESTBIN)

bench: $(BIN) $(SYNTH) $(BENCHBIN) $(MMUBENCH) $(LIVEBENCH)
	BUILD=$(BUILD) bash bench/mmu.sh
	BUILD=$(BUILD) bash bench/run.sh

bench-huge: $(BIN) $(SYNTH) $(BENCHBIN)
	BUILD=$(BUILD) bash bench/huge.sh

deps:
	sh tools/deps.sh

# Fuzzing: the fuzz/ targets built with clang's libFuzzer, ASan and UBSan under
# build/fuzz/ (its own objects of src/ and ui/), then each run for FUZZ_SECONDS seeded
# from fixtures/, the ghc-events corpus and tests/regress/ (tools/fuzz.sh; the key
# decoder targets keys_* from fuzz/keys-seeds/). Long run: `make fuzz FUZZ_SECONDS=3600`
# (an hour per target); one target: `make fuzz FUZZ_TARGETS=keys_tickit`. Not part of
# `check` or CI. Needs clang and libclang-rt-14-dev (`make fuzz-deps`).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_TARGETS := header decode_show index keys_tickit keys_curses
FUZZ_CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g $(WARN) -Iinclude \
                -MMD -MP -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=all
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
FUZZ_CORE    := $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_UI      := $(UI_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/ui/%.o: ui/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(UI_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/fuzz/%.o: fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(UI_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/libelog.a: $(FUZZ_CORE)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/libelogui.a: $(FUZZ_UI)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_header $(FUZZ_BUILD)/fuzz_decode_show: $(FUZZ_BUILD)/fuzz_%: \
		$(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_BUILD)/libelog.a
	$(FUZZ_CC) $(FUZZ_LDFLAGS) $^ $(LDLIBS) -o $@

$(FUZZ_BUILD)/fuzz_index $(FUZZ_BUILD)/fuzz_keys_tickit $(FUZZ_BUILD)/fuzz_keys_curses: \
		$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_BUILD)/libelogui.a \
		$(FUZZ_BUILD)/libelog.a
	$(FUZZ_CC) $(FUZZ_LDFLAGS) $^ $(UI_LIBS) $(LDLIBS) -o $@

fuzz-deps:
	sh tools/deps.sh clang libclang-rt-14-dev

fuzz-build: fuzz-deps
	$(MAKE) $(FUZZ_BINS)

fuzz: fuzz-build
	sh tools/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Installing: the places Debian's man, bash-completion and zsh look.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
MAN1DIR     := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  := $(PREFIX)/share/zsh/site-functions

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/elog-tui
	install -m 644 docs/elog-tui.1 $(DESTDIR)$(MAN1DIR)/elog-tui.1
	install -m 644 completions/elog-tui.bash $(DESTDIR)$(BASHCOMPDIR)/elog-tui
	install -m 644 completions/_elog-tui $(DESTDIR)$(ZSHCOMPDIR)/_elog-tui

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/elog-tui $(DESTDIR)$(MAN1DIR)/elog-tui.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/elog-tui $(DESTDIR)$(ZSHCOMPDIR)/_elog-tui

# The viewer on the bundled demo log (q quits).
demo: $(BIN)
	$(BIN) fixtures/demo.eventlog

clean:
	rm -rf build

-include $(CORE_OBJ:.o=.d) $(UI_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/tools/elog-synth.d
-include $(wildcard $(FUZZ_BUILD)/*/*.d) \
	$(BUILD)/tools/elog-bench.d $(BUILD)/tools/elog-mmu-bench.d $(BUILD)/tools/elog-replay.d \
	$(BUILD)/tools/elog-livebench.d
