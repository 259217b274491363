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
# (linux-headers-rt-amd64, linux-headers-6.12-rt-amd64: scripts/install-deps),
# in a copy under $(BUILD)/module-rt, with sparse and W=1 (warnings fail).
# What it protects (review D26, docs/kernels.md): the detection API may run
# in hard irq, where a spinlock_t (rt_spin_lock, a sleeping lock on RT)
# must never be taken. So no object may import rt_spin_lock* except
# compat.o, whose functions handle a device's driver_override in process
# context (each starts with might_sleep()): on 6.12.91+ the driver core
# keeps that field under a spinlock_t of its own, and the module must take
# it there. Any rt_spin_lock in another object fails.
RT_KVER ?= $(patsubst %-amd64,%-rt-amd64,$(KVER))
RT_KDIR ?= /lib/modules/$(RT_KVER)/build
RT_BUILD := $(BUILD)/module-rt
RT_PROCESS_CONTEXT_OBJS := compat.o

.PHONY: module-rt-check
module-rt-check:
	@test -d $(RT_KDIR) || { echo "module-rt-check: no $(RT_KDIR) (scripts/install-deps)" >&2; exit 1; }
	rm -rf $(RT_BUILD) && mkdir -p $(RT_BUILD)
	cp -r $(PCIERR_SHIM_DIR)/Kbuild $(PCIERR_SHIM_DIR)/*.c \
		$(PCIERR_SHIM_DIR)/*.h $(PCIERR_SHIM_DIR)/uapi \
		$(PCIERR_SHIM_DIR)/probes $(PCIERR_SHIM_DIR)/compat-probe $(RT_BUILD)/
	rm -f $(RT_BUILD)/pcierr-features.h
	$(MAKE) -C $(RT_BUILD) -f $(PCIERR_SHIM_DIR)/Makefile KDIR=$(RT_KDIR) check
	@bad=; for o in $(RT_BUILD)/*.o; do \
		case "$${o##*/}" in pcierr_shim.o|*.mod.o|$(RT_PROCESS_CONTEXT_OBJS)) continue ;; esac; \
		if nm -u "$$o" | grep -q 'rt_spin_lock'; then bad="$$bad $${o##*/}"; fi; \
	done; \
	if [ -n "$$bad" ]; then \
		echo "module-rt-check: a spinlock_t (a sleeping lock on PREEMPT_RT) taken in:$$bad; only $(RT_PROCESS_CONTEXT_OBJS) (process context) may" >&2; \
		exit 1; fi
	@echo "module-rt-check: pcierr_shim built for $(RT_KVER) (PREEMPT_RT): rt_spin_lock only from $(RT_PROCESS_CONTEXT_OBJS): $$(nm -u $(RT_BUILD)/pcierr_shim.ko | grep -c rt_spin_lock) import(s)"

# The module goes where Debian's depmod looks first for out-of-tree ones.
.PHONY: install-module
install: install-module
install-module: module
	install -d $(DESTDIR)/lib/modules/$(KVER)/updates
	install -m 0644 $(PCIERR_SHIM_KO) $(DESTDIR)/lib/modules/$(KVER)/updates/
