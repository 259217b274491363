# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/kernel.mk: the pcierr_shim module, included by the top-level
# Makefile (which defines KDIR). Out-of-tree kbuild writes its objects
# next to the sources in kernel/pcierr_shim/.
#
#   make module          build kernel/pcierr_shim/pcierr_shim.ko
#   make module-check    rebuild with sparse (C=2) and W=1; fails on any
#                        warning
#   make module-clean

PCIERR_SHIM_DIR := $(CURDIR)/kernel/pcierr_shim
PCIERR_SHIM_KO  := $(PCIERR_SHIM_DIR)/pcierr_shim.ko

.PHONY: module module-check module-clean
all: module
clean: module-clean

module:
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) modules

module-check:
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) check

module-clean:
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) clean

# The module goes where Debian's depmod looks first for out-of-tree ones.
.PHONY: install-module
install: install-module
install-module: module
	install -d $(DESTDIR)/lib/modules/$(KVER)/updates
	install -m 0644 $(PCIERR_SHIM_KO) $(DESTDIR)/lib/modules/$(KVER)/updates/
