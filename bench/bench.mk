# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench (issue 12): pcierr against the kernel's own recovery,
# parallel slots, event storms against rasdaemon, footprint and scale, in
# one boot of the test VM (bench/README in docs/performance.md).
#
#   make bench              every benchmark, full counts
#   make bench QUICK=1      fewer rounds (under 10 minutes here)
#   make bench DRY=1        no VM: the report pipeline (tables, JSON, plot)
#                           on the recorded raw data in bench/fixture/,
#                           to prove the harness works (make bench-check)
#   make bench-check        part of make check: DRY=1 QUICK=1, asserts no
#                           time, only that each table, the JSON and the
#                           plot come out
#
# Results: bench/results/<time>/ (raw data, bench.json, ab.png, tables.txt)
# and bench/results/latest -> that directory.

BENCH_TOOL := $(BUILD)/pcierr-bench
BENCH_TIMEOUT ?= 3000

# benchmark 5's host side split into its parts (bench/host-scale.c): the
# daemon objects check-daemon links, d-core's fake kernel side and
# pcierrctl's own status query (ctl-bus.c, model.c, output.c)
HOST_SCALE := $(BUILD)/pcierr-host-scale
HOST_SCALE_OBJS := $(sort $(filter-out $(BUILD)/$(UNIT_DIR)/check-daemon.o $(BUILD)/$(UNIT_DIR)/cksuite-manager.o $(BUILD)/$(UNIT_DIR)/cksuite-status.o $(BUILD)/$(UNIT_DIR)/cksuite-hold.o,$(DAEMON_UNIT_OBJS)) \
	$(patsubst tools/pcierrctl/%.c,$(BUILD)/$(UNIT_DIR)/pcierrctl/%.o,$(UNIT_CTL_SRCS) tools/pcierrctl/ctl-bus.c))

.PHONY: bench bench-check

$(BENCH_TOOL): bench/pcierr-bench.c $(LIBPCIERR_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SYSTEMD_CFLAGS) -o $@.tmp $< $(LIBPCIERR_A) $(NL_LIBS) $(SYSTEMD_LIBS)
	mv -f $@.tmp $@

all: $(BENCH_TOOL)

bench: $(BENCH_TOOL) $(if $(DRY),,$(VM_DEPS) $(PCIERRCTL) $(DAEMON_UNIT_BIN) $(HOST_SCALE))
	BUILD=$(BUILD) KVER=$(KVER) QUICK=$(QUICK) DRY=$(DRY) \
		BENCH_TIMEOUT=$(BENCH_TIMEOUT) bench/run

bench-check: $(BENCH_TOOL) $(JSON_CHECK)
	BUILD=$(BUILD) QUICK=1 DRY=1 BENCH_CHECK=1 bench/run

$(BUILD)/bench/host-scale.o: bench/host-scale.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -I$(CURDIR)/daemon -I$(CURDIR)/tests/unit -I$(CURDIR)/tools/pcierrctl -c -o $@ $<

$(HOST_SCALE): $(BUILD)/bench/host-scale.o $(HOST_SCALE_OBJS) $(LIBPCIERR_A)
	$(CC) $(CFLAGS) -o $@ $^ $(NL_LIBS) $(SQLITE_LIBS) $(SYSTEMD_LIBS) \
		$(shell $(PKG_CONFIG) --libs libudev) -pthread

all: $(HOST_SCALE)
-include $(BUILD)/bench/host-scale.d

# scenario 42's storm on the host (bench/host-storm.c, issue 11 point 10):
# pcierrd's objects on the fake kernel, GetStatus every 50 ms meanwhile
HOST_STORM := $(BUILD)/pcierr-host-storm

$(BUILD)/bench/host-storm.o: bench/host-storm.c
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -I$(CURDIR)/daemon -I$(CURDIR)/tests/unit -I$(CURDIR)/tools/pcierrctl -c -o $@ $<

$(HOST_STORM): $(BUILD)/bench/host-storm.o $(HOST_SCALE_OBJS) $(LIBPCIERR_A)
	$(CC) $(CFLAGS) -o $@ $^ $(NL_LIBS) $(SQLITE_LIBS) $(SYSTEMD_LIBS) \
		$(shell $(PKG_CONFIG) --libs libudev) -pthread

all: $(HOST_STORM)
-include $(BUILD)/bench/host-storm.d
