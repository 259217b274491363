# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libpcierr unit tests (Check); included by the top-level Makefile.
# They link the library's objects statically (build/lib/libpcierr.a) to
# reach the internal parsers, which the shared library does not export.
#
#   make unit-check       build build/tests/check-all and run it
#   make unit-valgrind    the same under valgrind --leak-check=full

UNIT_DIR   := tests/unit
UNIT_SRCS  := $(UNIT_DIR)/check-all.c $(UNIT_DIR)/ckutil.c \
	$(filter-out $(UNIT_DIR)/cksuite-manager.c $(UNIT_DIR)/cksuite-status.c $(UNIT_DIR)/cksuite-hold.c,$(sort $(wildcard $(UNIT_DIR)/cksuite-*.c)))
# the parts of the daemon that its suites test (cksuite-policy.c, ...)
# (the bus layer's: cksuite-bus.c fakes the manager_*() and recovery_*()
# methods it calls; manager.c and recovery*.c are never linked here)
UNIT_DAEMON_SRCS := daemon/policy.c daemon/config.c daemon/state.c \
	daemon/metrics.c daemon/uevent.c \
	daemon/bus-manager.c daemon/bus-slot.c daemon/bus-device.c \
	daemon/bus-util.c daemon/bus-polkit.c daemon/bus-status.c daemon/pci-names.c \
	daemon/state-writer.c daemon/log.c daemon/observer.c \
	daemon/verify.c daemon/verify-sysfs.c
# pcierrctl's pure parts (cksuite-ctl.c; not its main(), nor the bus code)
UNIT_CTL_SRCS := tools/pcierrctl/json.c tools/pcierrctl/format.c tools/pcierrctl/pager.c \
	tools/pcierrctl/model.c tools/pcierrctl/output.c
# the tests' strict JSON parser (cksuite-ctl.c; also build/json-check)
UNIT_TOOL_SRCS := tests/tools/json-parse.c
# the shim's pure pseries part (cksuite-pseries.c)
UNIT_SHIM_SRCS := kernel/pcierr_shim/pseries-rtas.c
UNIT_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(UNIT_SRCS) $(UNIT_TOOL_SRCS)) \
	$(patsubst daemon/%.c,$(BUILD)/$(UNIT_DIR)/daemon/%.o,$(UNIT_DAEMON_SRCS)) \
	$(patsubst tools/pcierrctl/%.c,$(BUILD)/$(UNIT_DIR)/pcierrctl/%.o,$(UNIT_CTL_SRCS)) \
	$(patsubst kernel/pcierr_shim/%.c,$(BUILD)/$(UNIT_DIR)/shim/%.o,$(UNIT_SHIM_SRCS))
UNIT_BIN   := $(BUILD)/tests/check-all
UNIT_CFLAGS := $(CFLAGS) $(NL_CFLAGS) $(CHECK_CFLAGS) $(SQLITE_CFLAGS) $(SYSTEMD_CFLAGS) -I$(CURDIR)/$(LIBPCIERR_DIR) -MMD -MP

VALGRIND ?= valgrind
VALGRIND_FLAGS ?= --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 -q

.PHONY: unit-check unit-valgrind

$(BUILD)/$(UNIT_DIR)/%.o: $(UNIT_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

# cksuite-bus.c compares the introspection with dbus/*.xml of this tree;
# cksuite-config.c loads the shipped configuration and drop-in
$(BUILD)/$(UNIT_DIR)/cksuite-bus.o $(BUILD)/$(UNIT_DIR)/cksuite-config.o: UNIT_CFLAGS += -DCK_SRCDIR='"$(CURDIR)"'

# cksuite-ctl.c runs build/pcierrctl against a fake pcierrd
$(BUILD)/$(UNIT_DIR)/cksuite-ctl.o: UNIT_CFLAGS += -DCK_PCIERRCTL='"$(abspath $(BUILD))/pcierrctl"'
unit-check unit-valgrind: $(PCIERRCTL)

$(BUILD)/tests/tools/%.o: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(BUILD)/$(UNIT_DIR)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(BUILD)/$(UNIT_DIR)/shim/%.o: kernel/pcierr_shim/%.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(BUILD)/$(UNIT_DIR)/pcierrctl/%.o: tools/pcierrctl/%.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(UNIT_BIN): $(UNIT_OBJS) $(LIBPCIERR_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(UNIT_OBJS) $(LIBPCIERR_A) $(CHECK_LIBS) $(NL_LIBS) $(SQLITE_LIBS) $(SYSTEMD_LIBS) -pthread

# The second runner: pcierrd's glue against the fake kernel side
# (cksuite-manager.c, fake-kernel.c); the manager_*() and recovery_*()
# there are the real ones, which cksuite-bus.c in check-all stands in for.
DAEMON_UNIT_BIN := $(BUILD)/tests/check-daemon
DAEMON_UNIT_DAEMON_SRCS := $(UNIT_DAEMON_SRCS) daemon/manager.c $(sort $(wildcard daemon/recovery*.c)) \
	daemon/kernel-source.c daemon/udev-source.c daemon/start.c daemon/metrics-observer.c daemon/metrics-writer.c \
	daemon/kernel-ops.c daemon/addrmap.c daemon/hold.c daemon/verify-slot.c daemon/aer-stats.c
DAEMON_UNIT_OBJS := $(BUILD)/$(UNIT_DIR)/check-daemon.o $(BUILD)/$(UNIT_DIR)/cksuite-manager.o \
	$(BUILD)/$(UNIT_DIR)/cksuite-status.o $(BUILD)/$(UNIT_DIR)/cksuite-hold.o \
	$(BUILD)/$(UNIT_DIR)/fake-kernel.o \
	$(patsubst tools/pcierrctl/%.c,$(BUILD)/$(UNIT_DIR)/pcierrctl/%.o,$(UNIT_CTL_SRCS) tools/pcierrctl/ctl-bus.c) \
	$(patsubst daemon/%.c,$(BUILD)/$(UNIT_DIR)/daemon/%.o,$(DAEMON_UNIT_DAEMON_SRCS)) \
	$(patsubst kernel/pcierr_shim/%.c,$(BUILD)/$(UNIT_DIR)/shim/%.o,$(UNIT_SHIM_SRCS))
$(BUILD)/$(UNIT_DIR)/cksuite-manager.o $(BUILD)/$(UNIT_DIR)/cksuite-hold.o \
$(BUILD)/$(UNIT_DIR)/fake-kernel.o: UNIT_CFLAGS += -I$(CURDIR)/daemon
# cksuite-status.c: pcierrctl's loaders against the real bus layer
$(BUILD)/$(UNIT_DIR)/cksuite-status.o: UNIT_CFLAGS += -I$(CURDIR)/daemon -I$(CURDIR)/tools/pcierrctl

$(DAEMON_UNIT_BIN): $(DAEMON_UNIT_OBJS) $(LIBPCIERR_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(DAEMON_UNIT_OBJS) $(LIBPCIERR_A) $(CHECK_LIBS) $(NL_LIBS) \
		$(SQLITE_LIBS) $(SYSTEMD_LIBS) $(shell $(PKG_CONFIG) --libs libudev) -pthread

unit-check: $(UNIT_BIN) $(DAEMON_UNIT_BIN)
	$(UNIT_BIN)
	$(DAEMON_UNIT_BIN)

# no fork: valgrind then follows every test in one process
unit-valgrind: $(UNIT_BIN) $(DAEMON_UNIT_BIN)
	CK_FORK=no $(VALGRIND) $(VALGRIND_FLAGS) $(UNIT_BIN)
	CK_FORK=no CK_RUN_CASE=fake-kernel $(VALGRIND) $(VALGRIND_FLAGS) $(DAEMON_UNIT_BIN)

-include $(UNIT_OBJS:.o=.d) $(DAEMON_UNIT_OBJS:.o=.d)

# The same unit runner (and the pcierrctl it drives) built with
# AddressSanitizer, LeakSanitizer and UBSan into build/asan/ (issue 11): any
# error aborts the test that hit it. Part of make check.
UNIT_ASAN_BUILD ?= $(BUILD)/asan
UNIT_ASAN_CFLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
.PHONY: unit-asan
unit-asan:
	CFLAGS='$(UNIT_ASAN_CFLAGS)' \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(MAKE) --no-print-directory BUILD=$(UNIT_ASAN_BUILD) unit-check
