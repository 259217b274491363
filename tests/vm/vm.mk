# SPDX-License-Identifier: GPL-2.0-or-later
#
# The VM test bed (tests/vm/README.md). Included by the top-level Makefile,
# which defines KVER, KDIR and BUILD.
#
#   make testdrv                 the test drivers (tests/vm/testdrv), part
#                                of "all"; add C=1 W=1 for sparse and W=1
#   make vm-check                every scenario, in one boot
#   make vm-scenario S=NAME      one scenario (NAME with or without NN-)
#   make vm-shell                the VM with everything loaded, a shell on
#                                the console (Ctrl-A x quits QEMU)
#   make vm-demo                 the VM running tests/vm/demo.sh
#   make vm-systemd-check        "make install" into BUILD/vm/sysroot, then
#                                the VM with systemd as init running
#                                tests/vm/systemd-scenarios (S= selects)
#   make vm-initramfs            just the initramfs
#
# VM_TIMEOUT (seconds, default 2400) bounds the whole VM run on the host;
# VM_SYSTEMD_TIMEOUT (default 900) the systemd mode's.

VM_DIR       := tests/vm
VM_TIMEOUT   ?= 2400
VM_INITRAMFS := $(BUILD)/vm/initramfs-$(KVER).cpio.gz
VM_RUN       := $(VM_DIR)/run --build $(BUILD) --kver $(KVER) --timeout $(VM_TIMEOUT)
AER_INJECT   := $(BUILD)/aer-inject
JSON_CHECK   := $(BUILD)/json-check
BLKPAT       := $(BUILD)/blkpat
UDP_STREAM   := $(BUILD)/udp-stream
VM_SYSTEMD_TIMEOUT ?= 900
VM_SYSROOT   := $(BUILD)/vm/sysroot
# what the guest needs from the rest of the tree (pcierrd once
# daemon/daemon.mk, which has its rule, is there)
VM_DEPS      := module testdrv $(BUILD)/pcierr-nl $(AER_INJECT) $(UDP_STREAM) $(VM_INITRAMFS) \
	$(if $(wildcard daemon/daemon.mk),$(BUILD)/pcierrd)

.PHONY: testdrv testdrv-check testdrv-clean vm-initramfs vm-check vm-scenario vm-shell vm-demo \
	vm-systemd-check

all: testdrv $(AER_INJECT) $(JSON_CHECK) $(BLKPAT) $(UDP_STREAM)

# the kernel's AER software injector's client (tests/tools/aer-inject.c)
$(AER_INJECT): tests/tools/aer-inject.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# the driver suite's disk pattern and UDP stream (tests/tools/blkpat.c,
# tests/tools/udp-stream.c; docs/drivers.md)
$(BLKPAT): tests/tools/blkpat.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(UDP_STREAM): tests/tools/udp-stream.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# a strict JSON validator and value picker for the VM tests
# (tests/tools/json-check.c, on the parser the ctl unit suite uses too):
# jq and python are not among the deps
$(JSON_CHECK): tests/tools/json-check.c tests/tools/json-parse.c tests/tools/json-parse.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ tests/tools/json-check.c tests/tools/json-parse.c

testdrv:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(VM_DIR)/testdrv modules

# sparse (C=2: every source) and W=1; any diagnostic fails
testdrv-check:
	@$(MAKE) -C $(KDIR) M=$(CURDIR)/$(VM_DIR)/testdrv C=2 W=1 modules \
		> $(BUILD)/testdrv-check.log 2>&1; rc=$$?; \
	cat $(BUILD)/testdrv-check.log; \
	if grep -qE '(warning|error):' $(BUILD)/testdrv-check.log; then \
		echo "testdrv check: diagnostics above" >&2; rc=1; fi; exit $$rc

testdrv-clean:
	cd $(VM_DIR)/testdrv && rm -f *.o *.ko *.mod *.mod.c .*.cmd \
		modules.order Module.symvers

clean: testdrv-clean

$(VM_INITRAMFS): $(VM_DIR)/mkinitramfs $(VM_DIR)/guest/init
	$(VM_DIR)/mkinitramfs $(KVER) $@

vm-initramfs: $(VM_INITRAMFS)

# Two scenarios of the reliability campaign fail today on pcierrd's
# responsiveness (docs/reliability.md): under 10,000 D-Bus calls (41) and
# under a 100,000-event storm (42) "pcierrctl status" took 2.7 s and 8.8 s
# at worst, where issue 11 asks for 1 s. They are not in make check, by
# name and in the open: "make soak" runs them and fails until pcierrd
# answers in time.
VM_SOAK_SCEN  := 41-pcierrd-bus-abuse 42-pcierrd-storm
# Fault scenarios of issue 11 that fail on a known defect go here, by name
# and in the open ("make vm-faults-defects" runs them and fails until they
# are mended), for each kernel series: the list of KVER's series is left
# out of vm-check. 26 and 29 pass since branch k-faults, 28 and 30 since
# branch d-faults, 31 since branch d-resync (the restarted pcierrd
# records the end of a RECOVER that ended while it was dead), 33 since
# branch load-id (the shim's load id). On 6.1 only: 48 (issue 22, review
# R3: the nvme holding swap, frozen under reclaim and recovered) fails
# after the shim's RECOVER has ended "recovered": Debian 6.1's nvme-pci
# loses the requests it sends again after the reset (QEMU 7.2's shadow
# doorbells, docs/drivers.md "03-nvme"), and the swapped-out pages with
# them. 44 (review R2: the owner timeout recovers the switch's PE by
# callbacks, the nvme's ext4 still mounted, with a writer) meets the same
# nvme defect: in the CI run of 2026-12-06 the shim's part held
# (recovered by callbacks, not removed, the PE's id kept, mounted) and a
# write after the freeze failed (the lost request's abort). 6.12's
# nvme-pci has the fix: there both pass (no nvme timeout, every byte
# right, kernel log clean; branch k612) and run in make check
# (VM_612_SCEN below) and in check-kernels' vm-check.
VM_FAULTS_DEFECTS_6.1 := 44-owner-timeout-switch-fs 48-swap-reclaim
VM_FAULTS_DEFECTS_6.12 :=
# KVER's series: 6.1.0-57-amd64 -> 6.1, 6.12.118+deb12-amd64 -> 6.12
vm_kseries = $(word 1,$(subst ., ,$(1))).$(word 2,$(subst ., ,$(1)))
VM_FAULTS_DEFECTS ?= $(VM_FAULTS_DEFECTS_$(call vm_kseries,$(KVER)))
VM_CHECK_SCEN = $(filter-out $(VM_SOAK_SCEN) $(VM_FAULTS_DEFECTS),$(sort $(basename $(notdir \
	$(wildcard $(VM_DIR)/scenarios/[0-9]*.sh)))))

vm-check: $(VM_DEPS)
	$(VM_RUN) $(VM_CHECK_SCEN)

.PHONY: soak
soak: $(VM_DEPS)
	$(VM_RUN) $(VM_SOAK_SCEN)

.PHONY: vm-faults-defects
vm-faults-defects: $(VM_DEPS)
	$(if $(VM_FAULTS_DEFECTS),$(VM_RUN) $(VM_FAULTS_DEFECTS),@echo "vm-faults-defects: no known fault defect on $(KVER)")

ifneq ($(filter vm-scenario,$(MAKECMDGOALS)),)
ifeq ($(S),)
$(error usage: make vm-scenario S=name (a file of tests/vm/scenarios, with or without NN- and .sh))
endif
endif

vm-scenario: $(VM_DEPS)
	$(VM_RUN) $(S)

vm-shell: $(VM_DEPS)
	$(VM_RUN) --shell

# the demo shows pcierrctl at work too
vm-demo: $(VM_DEPS) $(PCIERRCTL)
	$(VM_RUN) --demo

# The systemd mode: the tree as "make install" puts it (a fresh DESTDIR
# each time), booted with systemd as init (tests/vm/README.md).
vm-systemd-check: $(VM_DEPS) $(JSON_CHECK)
	rm -rf $(VM_SYSROOT)
	@mkdir -p $(BUILD)/vm
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(VM_SYSROOT)) PREFIX=/usr \
		> $(BUILD)/vm/sysroot-install.log 2>&1 || \
		{ cat $(BUILD)/vm/sysroot-install.log; exit 1; }
	$(VM_DIR)/run --systemd --sysroot $(VM_SYSROOT) --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_SYSTEMD_TIMEOUT) $(S)

# pcierrd built with AddressSanitizer, LeakSanitizer and UBSan (any report
# is fatal: an error aborts, a leak makes its exit status non-zero), run
# through the pcierrd scenarios. Not part of "make check" (time).
VM_SAN_BUILD := $(BUILD)/sanitize
VM_SAN_CC    := $(CC) -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wno-stringop-truncation
# (not the soak's: their time and memory bounds mean nothing under ASan)
VM_SAN_SCEN  := $(filter-out $(VM_SOAK_SCEN),$(patsubst %.sh,%,$(notdir \
	$(wildcard $(VM_DIR)/scenarios/*-pcierrd-*.sh))))

.PHONY: vm-sanitize
vm-sanitize: $(VM_DEPS)
	$(MAKE) BUILD=$(VM_SAN_BUILD) CC="$(VM_SAN_CC)" $(VM_SAN_BUILD)/pcierrd
	$(VM_RUN) --pcierrd $(VM_SAN_BUILD)/pcierrd $(VM_SAN_SCEN)

# The driver suite (docs/drivers.md): real drivers (e100, e1000, e1000e,
# sym53c8xx_2, nvme, 8139cp, megaraid_sas; the ipr and ixgb profiles) with
# their I/O running, in a second topology (tests/vm/topology-drivers) and
# one boot of its own; scenarios in tests/vm/driver-scenarios. Part of
# "make check". VM_DRIVERS_TIMEOUT bounds the boot (default 2400 s: an
# upper bound on a loaded machine; about 6-8 min idle).
#
# One scenario fails today on a real defect (docs/drivers.md, "Known
# failures"): on 6.1 an NVMe I/O in flight across the freeze never completes
# (6.12's nvme-pci has the fix: 03-nvme runs in the 6.12 driver suite).
# It is not in make check, by name and in the open: "make
# vm-drivers-defects" runs it and fails until it is mended, with 98 (the
# kernel's own AER recovery of the nvme with I/O running: it passes, as
# QEMU's injected AER never cuts the device off; docs/drivers.md) and 97
# (the e1000 of the mixed slot losing its interrupt in its own
# error_detected, with the kernel's own AER recovery, no pcierr: it fails;
# pcierr's 90-mixed passes since the shipped list of broken callbacks
# routes the e1000 to the hotplug path, issue 25). 08-serial-verify: the
# verified recovery of a pci-serial as installed (the shipped list); 96,
# the same card through its own callbacks and pcierrd's escalation, is a
# defect: 8250_pci's resume reads a stale stack copy and now and then
# WARNs (CI run of 2026-12-06). 99 (megaraid_sas's removal
# waiting for a lost command while another slot recovers) runs last in
# make check: it reloads megaraid_sas with short timeouts.
VM_DRIVERS_TIMEOUT ?= 2400
VM_DRIVERS_SCEN ?= 00-inventory 01-nics 02-scsi 04-rtl8139-hotplug 05-nvme-reset-once \
	06-profiles 07-e1000-disable 08-serial-verify 90-mixed 99-megasas-hotplug
VM_DRIVERS_DEFECTS := 03-nvme 98-nvme-kernel-aer 97-mixed-kernel-aer 96-serial-callbacks-verify
.PHONY: vm-drivers-check vm-drivers-defects
vm-drivers-check: $(VM_DEPS) $(BLKPAT) $(UDP_STREAM) $(PCIERRCTL)
	$(VM_DIR)/run --topology drivers --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_DRIVERS_TIMEOUT) $(or $(S),$(VM_DRIVERS_SCEN))

vm-drivers-defects: $(VM_DEPS) $(BLKPAT) $(UDP_STREAM) $(PCIERRCTL)
	$(VM_DIR)/run --topology drivers --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_DRIVERS_TIMEOUT) $(VM_DRIVERS_DEFECTS)

# Issue 25: the device-class matrix (tests/vm/topology-matrix and
# topology-matrix-io, tests/vm/matrix-scenarios, docs/drivers.md "The
# device-class matrix"): one device of each class frozen with its I/O
# running, one row each, and the virtio-scsi freeze loop (no freeze
# hangs). vm-matrix-check is make check's part (one boot: the loop and
# virtio-blk); vm-matrix-full runs every device, in two boots (S= picks
# scenarios of the first boot, SIO= of the second).
VM_MATRIX_TIMEOUT ?= 2400
VM_MATRIX_SCEN ?= 01-virtio-scsi-loop 20-virtio-blk
VM_MATRIX_A := 01-virtio-scsi-loop 10-e1000 12-virtio-net 13-e1000e 16-vmxnet3 \
	20-virtio-blk 21-nvme 26-pvscsi 27-ich9-ahci 28-sdhci 30-qemu-xhci 31-usb-ehci \
	40-intel-hda 51-i6300esb 52-virtio-rng
VM_MATRIX_B := 11-pcnet 14-rtl8139 15-ne2k-pci 17-tulip 18-i82559er 22-megasas-gen2 \
	23-mptsas1068 24-lsi53c895a 25-am53c974 41-es1370 42-ac97 50-pci-serial
.PHONY: vm-matrix-check vm-matrix-full
vm-matrix-check: $(VM_DEPS) $(BLKPAT) $(UDP_STREAM) $(PCIERRCTL)
	$(VM_DIR)/run --topology matrix --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_MATRIX_TIMEOUT) $(or $(S),$(VM_MATRIX_SCEN))

vm-matrix-full: $(VM_DEPS) $(BLKPAT) $(UDP_STREAM) $(PCIERRCTL)
	rc=0; \
	$(VM_DIR)/run --topology matrix --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_MATRIX_TIMEOUT) $(or $(S),$(VM_MATRIX_A)) || rc=1; \
	$(VM_DIR)/run --topology matrix-io --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_MATRIX_TIMEOUT) $(or $(SIO),$(VM_MATRIX_B)) || rc=1; \
	exit $$rc

# The second kernel (docs/kernels.md): Debian 12's 6.12, whatever KVER
# says. make check runs on it, in two boots, the driver suite (with
# 03-nvme, which passes on 6.12: its nvme-pci re-enables the shadow
# doorbells before it restarts the queues) and the scenarios that
# exercise resets, hotplug and the switch, with 44 and 48 (the nvme's
# data across the owner timeout and under reclaim, which 6.1's nvme-pci
# loses: VM_FAULTS_DEFECTS_6.1); make check-kernels runs every suite on it.
VM_612_KVER = $(call kver_of,6.12)
# vm-check-6.12 is one boot: 6 min 19 s of wall time with the module's
# build (358 s the VM; load average 5.2 to 7.1, two other helpers' VMs;
# 6 min 56 s at 4.9 to 11.7;
# branch k612, docs/kernels.md has each scenario's time); an estimate for
# a quiet host is 5-6 min. Left to check-kernels (whose vm-check runs every scenario
# on 6.12), for time: 04 (the answers of the callbacks merged, 64 s: the
# shim's own logic, the same on both kernels; 51 proves what err.c changed
# in 6.12), 12 (pcierrd's freeze limit, 116 s: the daemon's policy; the
# DISABLE it ends with is 05's too) and 23 (a hot-unplug racing pcierrd's
# recovery, 67-116 s; its "gone" depends on which of pciehp's removal and
# the RECOVER's last steps wins: docs/kernels.md).
VM_612_SCEN ?= 02-inject 03-e1000e-recovery 05-remove-rescan 08-hot-remove \
	10-partial-hotplug 20-switch-subtree 29-hotplug-into-frozen-pe \
	35-switch-cards-gone 36-rescan-probe-waits 44-owner-timeout-switch-fs \
	48-swap-reclaim 51-slot-reset-state
# the host's bound for that boot: four times its time at load 5-12
VM_612_TIMEOUT ?= 1800
# (03-nvme after 05: 05's final pass wants the scratch chunks it did not
# write as the run's fill left them, and 03 writes there too)
VM_612_DRIVERS_SCEN ?= 00-inventory 01-nics 02-scsi 04-rtl8139-hotplug \
	05-nvme-reset-once 03-nvme 06-profiles 07-e1000-disable 99-megasas-hotplug
# the driver suite of each series for make check-kernels
VM_DRIVERS_SCEN_6.1 := $(VM_DRIVERS_SCEN)
VM_DRIVERS_SCEN_6.12 := $(VM_612_DRIVERS_SCEN)
.PHONY: vm-check-6.12 vm-drivers-check-6.12
# make check's two boots on 6.12: the driver suite (resets, hotplug,
# 03-nvme), and the scenarios of resets, hotplug and the switch (S= picks
# others)
vm-drivers-check-6.12:
	@test -n "$(VM_612_KVER)" || { echo "vm-drivers-check-6.12: no 6.12 kernel with headers (scripts/install-deps)" >&2; exit 1; }
	$(MAKE) --no-print-directory vm-drivers-check KVER=$(VM_612_KVER) \
		S="$(VM_612_DRIVERS_SCEN)"

vm-check-6.12:
	@test -n "$(VM_612_KVER)" || { echo "vm-check-6.12: no 6.12 kernel with headers (scripts/install-deps)" >&2; exit 1; }
	$(MAKE) --no-print-directory vm-scenario KVER=$(VM_612_KVER) \
		VM_TIMEOUT=$(VM_612_TIMEOUT) S="$(or $(S),$(VM_612_SCEN))"

# Issue 11 point 9, the VM-reset half: pcierrd's state on an ext4 virtio
# disk, the VM reset (QEMU system_reset) three times during recoveries,
# checked after each reboot (tests/vm/powercut-scenarios, run --topology
# powercut; docs/reliability.md). One QEMU, four boots.
VM_POWERCUT_TIMEOUT ?= 900
.PHONY: vm-powercut-check
vm-powercut-check: $(VM_DEPS)
	$(VM_DIR)/run --topology powercut --build $(BUILD) --kver $(KVER) \
		--timeout $(VM_POWERCUT_TIMEOUT) $(S)
# not in make check: four boots took 10-13 min of wall time on the shared
# host (load 7-9), far over the ~3 min make check can give it; in make soak
soak: vm-powercut-check
