# SPDX-License-Identifier: GPL-2.0-or-later
#
# ppc64le pseries (docs/pseries.md), included by the top-level Makefile.
#
#   make ppc-check         cross-build pcierr_shim.ko for ppc64le against
#                          Debian's linux-headers-*-powerpc64le with W=1
#                          (any warning fails) and the static test client
#   make ppc-boot-check    then boot it: qemu-system-ppc64 -M pseries,
#                          tests/ppc/run (about a minute here)
#
# scripts/install-deps unpacks the ppc64el kernel, headers and busybox
# under PPC_ROOT. The module is built in BUILD/ppc/shim (a copy of the
# sources: the amd64 objects next to them stay as they are).

PPC_ROOT    ?= /var/cache/pcierr-tests/ppc64el
PPC_KDIR    ?= $(lastword $(sort $(wildcard $(PPC_ROOT)/usr/src/linux-headers-*-powerpc64le)))
PPC_CROSS   ?= powerpc64le-linux-gnu-
PPC_BUILD   := $(BUILD)/ppc
PPC_SHIM    := $(PPC_BUILD)/shim
PPC_CLIENT  := $(PPC_BUILD)/pcierr-ppc
PPC_TESTDRV := $(PPC_BUILD)/testdrv

.PHONY: ppc-check ppc-module ppc-testdrv ppc-boot-check

# $(call ppc_kbuild,DIR,LOG): kbuild DIR for ppc64le with W=1; any
# warning or error fails
ppc_kbuild = rc=0; $(MAKE) -C $(PPC_KDIR) M=$(abspath $(1)) ARCH=powerpc \
	CROSS_COMPILE=$(PPC_CROSS) W=1 modules > $(2) 2>&1 || rc=$$?; \
	cat $(2); \
	if grep -qE '(warning|error):' $(2); then \
		echo "ppc-check: diagnostics above" >&2; rc=1; fi; exit $$rc

ppc-module:
	@test -n "$(PPC_KDIR)" || { echo "ppc: no headers under $(PPC_ROOT): run scripts/install-deps" >&2; exit 1; }
	@mkdir -p $(PPC_SHIM)/uapi/linux
	cp -p kernel/pcierr_shim/*.c kernel/pcierr_shim/*.h kernel/pcierr_shim/Kbuild \
		kernel/pcierr_shim/compat-probe $(PPC_SHIM)/
	cp -rp kernel/pcierr_shim/probes $(PPC_SHIM)/
	rm -f $(PPC_SHIM)/pcierr-features.h
	cp -p kernel/pcierr_shim/uapi/linux/pcierr.h $(PPC_SHIM)/uapi/linux/
	@$(call ppc_kbuild,$(PPC_SHIM),$(PPC_BUILD)/module.log)
	cp $(PPC_SHIM)/pcierr_shim.ko $(PPC_BUILD)/pcierr_shim.ko

$(PPC_CLIENT): tests/ppc/pcierr-ppc.c kernel/pcierr_shim/uapi/linux/pcierr.h
	@mkdir -p $(@D)
	$(PPC_CROSS)gcc -static -O2 -std=gnu11 $(WARNFLAGS) \
		-I$(CURDIR)/kernel/pcierr_shim/uapi -o $@ $<

# the VM test bed's test driver (pcierr_check_value() on demand), too
ppc-testdrv: ppc-module
	@mkdir -p $(PPC_TESTDRV)
	cp -p tests/vm/testdrv/pcierr_testdrv.c $(PPC_TESTDRV)/
	printf 'obj-m := pcierr_testdrv.o\nccflags-y += -I%s -I%s/uapi\n' \
		$(abspath $(PPC_SHIM)) $(abspath $(PPC_SHIM)) > $(PPC_TESTDRV)/Kbuild
	@$(call ppc_kbuild,$(PPC_TESTDRV),$(PPC_BUILD)/testdrv.log)
	cp $(PPC_TESTDRV)/pcierr_testdrv.ko $(PPC_BUILD)/pcierr_testdrv.ko

ppc-check: ppc-module ppc-testdrv $(PPC_CLIENT)

ppc-boot-check: ppc-check
	tests/ppc/run $(BUILD)
