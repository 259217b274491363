# SPDX-License-Identifier: GPL-2.0-or-later
#
# libFuzzer targets for every parser of untrusted bytes in userspace
# (issue 11), built with Debian's clang (-fsanitize=fuzzer,address,undefined)
# into build/fuzz/; included by the top-level Makefile.
#
#   make fuzz-build   build build/fuzz/fuzz-{msg,addr,config,uevent,state}
#   make fuzz-check   replay tests/fuzz/regress/, then each target for
#                     FUZZ_CHECK_TIME seconds (default 25; part of make check)
#   make fuzz         each target for FUZZ_TIME seconds (default 600)
#   make fuzz-one T=msg FUZZ_TIME=60
#
# Corpora: tests/fuzz/corpus/TARGET/ (small, seeded from valid inputs,
# read-only); what a run adds goes to build/fuzz/corpus/TARGET/. A crash
# leaves build/fuzz/artifacts/TARGET/crash-*; once fixed it is copied into
# tests/fuzz/regress/TARGET/ and replayed by every fuzz-check.

FUZZ_CC ?= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null || echo clang)
FUZZ_DIR := tests/fuzz
FUZZ_OUT := $(BUILD)/fuzz
FUZZ_TARGETS := msg addr config uevent state
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# (clang, unlike gcc, warns of unused static inline cleanup helpers and
# of designated initialisers that leave fields zero: both on purpose here)
FUZZ_CFLAGS := -O1 -g -std=gnu11 -D_GNU_SOURCE $(WARNFLAGS) -Wno-unused-function -Wno-missing-field-initializers $(FUZZ_SAN) \
	-I$(CURDIR)/kernel/pcierr_shim/uapi -I$(CURDIR)/lib/libpcierr/include \
	-I$(CURDIR)/$(LIBPCIERR_DIR) -I$(CURDIR)/daemon \
	$(NL_CFLAGS) $(SQLITE_CFLAGS) $(SYSTEMD_CFLAGS) -MMD -MP
FUZZ_CHECK_TIME ?= 25
FUZZ_TIME ?= 600

# what each target links besides its harness (instrumented copies)
FUZZ_SRCS_msg    := lib/libpcierr/ctx.c lib/libpcierr/parse.c lib/libpcierr/names.c
FUZZ_SRCS_addr   := lib/libpcierr/names.c daemon/config.c
FUZZ_SRCS_config := daemon/config.c lib/libpcierr/names.c
FUZZ_SRCS_uevent := daemon/uevent.c daemon/config.c lib/libpcierr/names.c
FUZZ_SRCS_state  := daemon/state.c
FUZZ_LIBS_msg    := $(NL_LIBS)
FUZZ_LIBS_state  := $(SQLITE_LIBS)

FUZZ_BINS := $(addprefix $(FUZZ_OUT)/fuzz-,$(FUZZ_TARGETS))

.PHONY: fuzz-build fuzz-check fuzz fuzz-one
fuzz-build: $(FUZZ_BINS)

$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

define FUZZ_TARGET_RULE
$$(FUZZ_OUT)/fuzz-$(1): $$(FUZZ_OUT)/obj/$$(FUZZ_DIR)/fuzz-$(1).o \
		$$(patsubst %.c,$$(FUZZ_OUT)/obj/%.o,$$(FUZZ_SRCS_$(1)))
	$$(FUZZ_CC) $$(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $$(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULE,$(t))))

fuzz-check: $(FUZZ_BINS)
	$(FUZZ_DIR)/run-fuzz --build $(FUZZ_OUT) --time $(FUZZ_CHECK_TIME) $(FUZZ_TARGETS)

fuzz: $(FUZZ_BINS)
	$(FUZZ_DIR)/run-fuzz --build $(FUZZ_OUT) --time $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-one: $(FUZZ_BINS)
	$(FUZZ_DIR)/run-fuzz --build $(FUZZ_OUT) --time $(FUZZ_TIME) $(T)

-include $(shell find $(FUZZ_OUT)/obj -name '*.d' 2>/dev/null)

# The built seeds (tests/fuzz/mkseeds.c, with the unit tests' message
# builders and the daemon's state store): regenerate after an ABI or schema
# change, review, commit.
FUZZ_MKSEEDS := $(FUZZ_OUT)/mkseeds
$(FUZZ_MKSEEDS): $(FUZZ_DIR)/mkseeds.c $(UNIT_DIR)/ckutil.c daemon/state.c $(LIBPCIERR_A)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -I$(CURDIR)/$(UNIT_DIR) -I$(CURDIR)/daemon -o $@ \
		$(FUZZ_DIR)/mkseeds.c $(UNIT_DIR)/ckutil.c daemon/state.c $(LIBPCIERR_A) \
		$(CHECK_LIBS) $(NL_LIBS) $(SQLITE_LIBS)

.PHONY: fuzz-seeds
fuzz-seeds: $(FUZZ_MKSEEDS)
	mkdir -p $(FUZZ_DIR)/corpus/msg $(FUZZ_DIR)/corpus/state
	$(FUZZ_MKSEEDS) $(FUZZ_DIR)/corpus

# The netlink fuzzer of the shim (tests/fuzz/nl-fuzz.c), run in the VM by
# tests/vm/scenarios/40-nl-fuzz.sh; plain gcc, no libraries.
NL_FUZZ := $(BUILD)/nl-fuzz
all: $(NL_FUZZ)
vm-check vm-scenario vm-shell vm-sanitize: $(NL_FUZZ)
$(NL_FUZZ): $(FUZZ_DIR)/nl-fuzz.c kernel/pcierr_shim/uapi/linux/pcierr.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# pcierrd against hostile configuration and state files, on the host
# (tests/fuzz/abuse-check); part of make check.
.PHONY: abuse-check
abuse-check: $(PCIERRD)
	$(FUZZ_DIR)/abuse-check --build $(BUILD)

# Hostile D-Bus clients of pcierrd (tests/fuzz/bus-abuse.c), run in the VM
# by tests/vm/scenarios/41-pcierrd-bus-abuse.sh.
BUS_ABUSE := $(BUILD)/bus-abuse
all: $(BUS_ABUSE)
vm-check vm-scenario vm-shell vm-sanitize soak: $(BUS_ABUSE)
$(BUS_ABUSE): $(FUZZ_DIR)/bus-abuse.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SYSTEMD_CFLAGS) -o $@ $< $(SYSTEMD_LIBS)

# The INJECT half of the event storm (tests/fuzz/inject-storm.c), run in
# the VM by tests/vm/scenarios/42-pcierrd-storm.sh.
INJECT_STORM := $(BUILD)/inject-storm
all: $(INJECT_STORM)
vm-check vm-scenario vm-shell vm-sanitize soak: $(INJECT_STORM)
$(INJECT_STORM): $(FUZZ_DIR)/inject-storm.c $(LIBPCIERR_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NL_CFLAGS) -o $@ $< $(LIBPCIERR_A) $(NL_LIBS)
