# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/kernel.mk: the pcierr_shim module, included by the top-level
# Makefile (which defines KDIR). Out-of-tree kbuild writes its objects
# next to the sources in kernel/pcierr_shim/.
#
#   make module          build kernel/pcierr_shim/pcierr_shim.ko
#   make module-check    rebuild with sparse (C=2) and W=1; fails on any
#                        warning; then the kernel's checkpatch.pl --strict
#                        (scripts/checkpatch-module, docs/checkpatch.md)
#   make module-rt-check the same build against the PREEMPT_RT headers;
#                        fails if the module takes a spinlock_t
#   make module-clean

PCIERR_SHIM_DIR := $(CURDIR)/kernel/pcierr_shim
PCIERR_SHIM_KO  := $(PCIERR_SHIM_DIR)/pcierr_shim.ko

# The kernel's own checkpatch.pl (and the files it reads), taken from
# Debian's linux-source-6.1 (scripts/install-deps) once per build dir.
LINUX_SOURCE_TAR ?= /usr/src/linux-source-6.1.tar.xz
CHECKPATCH_DIR   := $(BUILD)/checkpatch
CHECKPATCH       := $(CHECKPATCH_DIR)/scripts/checkpatch.pl

.PHONY: module module-check module-clean
all: module
clean: module-clean

module:
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) modules

module-check: $(CHECKPATCH)
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) check
	scripts/checkpatch-module $(CHECKPATCH) $(PCIERR_SHIM_DIR)

$(CHECKPATCH):
	@mkdir -p $(CHECKPATCH_DIR)
	tar -xJf $(LINUX_SOURCE_TAR) -C $(CHECKPATCH_DIR) --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	touch $@

module-clean:
	$(MAKE) -C $(PCIERR_SHIM_DIR) KDIR=$(KDIR) clean

# module-rt-check: the module built against Debian's PREEMPT_RT headers
# (linux-headers-rt-amd64, scripts/install-deps), in a copy under
# $(BUILD)/module-rt, with sparse and W=1 (warnings fail); then it must take
# no spinlock_t, which sleeps on RT, while the detection API may run in
# hard irq (review D26, docs/shim-mechanism.md): no rt_spin_lock* among
# the module's imports.
RT_KVER ?= $(patsubst %-amd64,%-rt-amd64,$(KVER))
RT_KDIR ?= /lib/modules/$(RT_KVER)/build
RT_BUILD := $(BUILD)/module-rt

.PHONY: module-rt-check
module-rt-check:
	@test -d $(RT_KDIR) || { echo "module-rt-check: no $(RT_KDIR) (scripts/install-deps)" >&2; exit 1; }
	rm -rf $(RT_BUILD) && mkdir -p $(RT_BUILD)
	cp -r $(PCIERR_SHIM_DIR)/Kbuild $(PCIERR_SHIM_DIR)/*.c \
		$(PCIERR_SHIM_DIR)/*.h $(PCIERR_SHIM_DIR)/uapi $(RT_BUILD)/
	$(MAKE) -C $(RT_BUILD) -f $(PCIERR_SHIM_DIR)/Makefile KDIR=$(RT_KDIR) check
	@if nm -u $(RT_BUILD)/pcierr_shim.ko | grep 'rt_spin_lock'; then \
		echo "module-rt-check: pcierr_shim takes a spinlock_t (above): a sleeping lock on PREEMPT_RT" >&2; \
		exit 1; fi
	@echo "module-rt-check: pcierr_shim built for $(RT_KVER) (PREEMPT_RT): no spinlock_t"

# The module goes where Debian's depmod looks first for out-of-tree ones.
.PHONY: install-module
install: install-module
install-module: module
	install -d $(DESTDIR)/lib/modules/$(KVER)/updates
	install -m 0644 $(PCIERR_SHIM_KO) $(DESTDIR)/lib/modules/$(KVER)/updates/
