# SPDX-License-Identifier: GPL-2.0-or-later
#
# pcierr top-level build. Each part of the tree brings its own make
# fragment (*.mk); this file holds what they share.
#
#   make            build everything (module, library, tools)
#   make check      unit tests, the VM tests, the packages (built, then
#                   installed in the VM: deb-check)
#   make deb        the Debian packages (debian/deb.mk)
#   make demo       build, boot the test VM, show recovery
#   make install    DESTDIR= PREFIX= honoured

PREFIX  ?= /usr
DESTDIR ?=
BUILD   ?= build

# Where "make install" puts things (Debian 12's paths with PREFIX=/usr).
# What systemd, D-Bus and kmod read from fixed places does not follow
# PREFIX; each may be overridden on the command line.
BINDIR         ?= $(PREFIX)/bin
SBINDIR        ?= $(PREFIX)/sbin
DATADIR        ?= $(PREFIX)/share
MANDIR         ?= $(DATADIR)/man
SYSCONFDIR     ?= /etc
SYSTEMDUNITDIR ?= /lib/systemd/system
CATALOGDIR     ?= /usr/lib/systemd/catalog
MODULESLOADDIR ?= /usr/lib/modules-load.d
DBUSPOLICYDIR  ?= /usr/share/dbus-1/system.d
DBUSSERVICEDIR ?= $(DATADIR)/dbus-1/system-services
DBUSIFACEDIR   ?= $(DATADIR)/dbus-1/interfaces
POLKITACTIONDIR ?= $(DATADIR)/polkit-1/actions
BASHCOMPDIR    ?= $(DATADIR)/bash-completion/completions
DKMSSRCDIR     ?= /usr/src

# The module builds against the Debian kernel the test VM boots (the host
# kernel here has neither modules nor headers): the newest installed one of
# the series KSERIES (Debian 12's 6.1 unless told), never just "the newest
# kernel", which a 6.12 headers install would silently change. Override with
# KSERIES=6.12, KVER=<version> or KDIR=.
KSERIES ?= 6.1
KVER    ?= $(shell scripts/vm-kernel-version $(KSERIES) 2>/dev/null)
KDIR    ?= /lib/modules/$(KVER)/build
# Every series the module supports (docs/kernels.md): make check builds
# and checks the module for each, and tests the second one in the VM too
# (vm-drivers-check-6.12, vm-check-6.12); make check-kernels runs every VM
# suite on each.
KSERIES_ALL := 6.1 6.12
# $(call kver_of,SERIES): that series' kernel, as KVER would be
kver_of = $(shell scripts/vm-kernel-version $(1) 2>/dev/null)

CC      ?= cc
PKG_CONFIG ?= pkg-config
WARNFLAGS := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow \
	-Wmissing-prototypes -Wstrict-prototypes -Wformat=2
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -fPIC -D_GNU_SOURCE $(WARNFLAGS) \
	-I$(CURDIR)/kernel/pcierr_shim/uapi -I$(CURDIR)/lib/libpcierr/include
NL_CFLAGS := $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS   := $(shell $(PKG_CONFIG) --libs libnl-genl-3.0 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
SQLITE_CFLAGS := $(shell $(PKG_CONFIG) --cflags sqlite3 2>/dev/null)
SQLITE_LIBS   := $(shell $(PKG_CONFIG) --libs sqlite3 2>/dev/null)
SYSTEMD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libsystemd 2>/dev/null)
SYSTEMD_LIBS   := $(shell $(PKG_CONFIG) --libs libsystemd 2>/dev/null)

.PHONY: all check check-kernels demo install clean deps deps-demo unit-check install-check vm-check
all:
install: all

deps:
	scripts/install-deps

# only what the demo uses (no cross toolchain, kernel sources, ...)
deps-demo:
	scripts/install-deps demo

include kernel/kernel.mk
include lib/libpcierr/libpcierr.mk
include daemon/daemon.mk
include tools/pcierrctl/pcierrctl.mk
include tests/unit/unit.mk
include systemd/systemd.mk
include tests/vm/vm.mk
include tests/fuzz/fuzz.mk
include tests/ppc/ppc.mk
include bench/bench.mk
include debian/deb.mk

# On 6.12 (docs/kernels.md) two boots: the driver suite, 493 s in CI, and
# the scenarios of resets, hotplug and the switch with 44 and 48, 6 min 19 s
# and 6 min 56 s here at load average 5-7 and 5-12 (an estimate of 5-6 min
# on a quiet host).
check: deps
	$(MAKE) all
	$(MAKE) module-check
	$(MAKE) module-rt-check
	$(MAKE) module-check KVER=$(call kver_of,6.12)
	$(MAKE) module-rt-check KVER=$(call kver_of,6.12)
	$(MAKE) testdrv-check
	$(MAKE) unit-check
	$(MAKE) unit-asan
	$(MAKE) fuzz-check
	$(MAKE) abuse-check
	$(MAKE) install-check
	$(MAKE) bench-check
	$(MAKE) vm-check
	$(MAKE) vm-systemd-check
	$(MAKE) alerts-check
	$(MAKE) deb
	$(MAKE) deb-check
	$(MAKE) vm-drivers-check
	$(MAKE) vm-matrix-check
	$(MAKE) vm-drivers-check-6.12
	$(MAKE) vm-check-6.12
	$(MAKE) ppc-boot-check

# Everything kernel-bound on every supported series: the module's checks,
# then every VM suite (make check runs them all on 6.1, and on 6.12 the
# module's checks, vm-drivers-check-6.12 and vm-check-6.12). Not part of
# make check (time).
check-kernels: deps
	$(MAKE) all
	$(foreach s,$(KSERIES_ALL),$(MAKE) kernel-suites KVER=$(call kver_of,$(s)) \
		VM_DRIVERS_SCEN="$(VM_DRIVERS_SCEN_$(s))" && ) true

# check-kernels' part for one kernel (KVER)
.PHONY: kernel-suites
kernel-suites:
	$(MAKE) module-check
	$(MAKE) module-rt-check
	$(MAKE) testdrv-check
	$(MAKE) vm-check
	$(MAKE) vm-systemd-check
	$(MAKE) vm-drivers-check

demo: deps-demo
	$(MAKE) all
	$(MAKE) vm-demo

clean:
	rm -rf $(BUILD)
