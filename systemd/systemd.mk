# SPDX-License-Identifier: GPL-2.0-or-later
#
# System integration: the service, D-Bus, journal catalog, module loading,
# DKMS sources; included by the top-level Makefile (which sets the *DIR
# install paths). pcierrd itself, its man pages and configuration are
# installed by daemon/daemon.mk (install-pcierrd), the library by
# lib/libpcierr/libpcierr.mk, the module for KVER by kernel/kernel.mk.
#
#   make install-systemd    unit, catalog, modules-load.d entry
#   make install-dbus       bus policy, activation file, interface XML,
#                           polkit actions
#   make install-dkms       /usr/src/pcierr-<version>/ for dkms
#   make install-pcierrctl  pcierrctl, its man page and bash completion
#   make install-check      "make install" into a temporary DESTDIR: the
#                           files against tests/install.list, the unit
#                           verified and its security exposure <= 2.5,
#                           the man pages, dkms.conf, the default config

PCIERR_VERSION := $(LIBPCIERR_VERSION)

# the module's sources as kbuild needs them (no build products)
# (and its feature probes; never the header they generate here, which
# names the kernel built for last: DKMS probes each kernel itself)
DKMS_SRCS := kernel/pcierr_shim/Kbuild \
	$(filter-out %.mod.c,$(wildcard kernel/pcierr_shim/*.c)) \
	$(filter-out %/pcierr-features.h,$(wildcard kernel/pcierr_shim/*.h))
DKMS_PROBES := $(wildcard kernel/pcierr_shim/probes/*.c)
DKMS_DEST := $(DESTDIR)$(DKMSSRCDIR)/pcierr-$(PCIERR_VERSION)

.PHONY: install-systemd install-dbus install-dkms install-pcierrctl install-post
install: install-systemd install-dbus install-dkms install-post

install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(CATALOGDIR) \
		$(DESTDIR)$(MODULESLOADDIR)
	sed -e 's|/usr/sbin/pcierrd|$(SBINDIR)/pcierrd|' systemd/pcierrd.service \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/pcierrd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/pcierrd.service
	install -m 0644 systemd/pcierr.catalog $(DESTDIR)$(CATALOGDIR)/pcierr.catalog
	install -m 0644 systemd/modules-load.d/pcierr.conf $(DESTDIR)$(MODULESLOADDIR)/pcierr.conf

install-dbus:
	install -d $(DESTDIR)$(DBUSPOLICYDIR) $(DESTDIR)$(DBUSSERVICEDIR) \
		$(DESTDIR)$(DBUSIFACEDIR)
	install -m 0644 dbus/org.pcierr1.conf $(DESTDIR)$(DBUSPOLICYDIR)/org.pcierr1.conf
	install -m 0644 dbus/org.pcierr1.service $(DESTDIR)$(DBUSSERVICEDIR)/org.pcierr1.service
	install -m 0644 $(wildcard dbus/org.pcierr1.*.xml) $(DESTDIR)$(DBUSIFACEDIR)/
	install -d $(DESTDIR)$(POLKITACTIONDIR)
	install -m 0644 dbus/org.pcierr1.policy $(DESTDIR)$(POLKITACTIONDIR)/org.pcierr1.policy

install-dkms:
	install -d $(DKMS_DEST)/uapi/linux
	install -m 0644 $(DKMS_SRCS) $(DKMS_DEST)/
	install -m 0644 kernel/pcierr_shim/uapi/linux/pcierr.h $(DKMS_DEST)/uapi/linux/
	install -d $(DKMS_DEST)/probes
	install -m 0644 $(DKMS_PROBES) $(DKMS_DEST)/probes/
	install -m 0755 kernel/pcierr_shim/compat-probe $(DKMS_DEST)/
	sed -e 's|^PACKAGE_VERSION=.*|PACKAGE_VERSION="$(PCIERR_VERSION)"|' \
		kernel/pcierr_shim/dkms.conf > $(DKMS_DEST)/dkms.conf
	chmod 0644 $(DKMS_DEST)/dkms.conf

# pcierrctl comes with tools/pcierrctl/pcierrctl.mk (included before this
# file), which builds $(BUILD)/pcierrctl.
ifneq ($(wildcard tools/pcierrctl/pcierrctl.mk),)
install: install-pcierrctl
install-post: install-pcierrctl
install-pcierrctl: $(BUILD)/pcierrctl
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BUILD)/pcierrctl $(DESTDIR)$(BINDIR)/pcierrctl
	$(if $(wildcard man/pcierrctl.8),install -m 0644 man/pcierrctl.8 $(DESTDIR)$(MANDIR)/man8/pcierrctl.8)
	$(if $(wildcard shell-completion/bash/pcierrctl),install -m 0644 shell-completion/bash/pcierrctl $(DESTDIR)$(BASHCOMPDIR)/pcierrctl)
endif

# On the live system (no DESTDIR) tell systemd, the journal and depmod.
# A package does this in its maintainer scripts and triggers instead.
install-post: install-systemd install-dbus install-dkms install-pcierrd \
		install-libpcierr install-module
ifeq ($(DESTDIR),)
	-systemctl daemon-reload
	-journalctl --update-catalog
	-depmod -a $(KVER)
endif

.PHONY: install-check
install-check: all
	MAKE="$(MAKE)" tests/install-check --dkms-build --build $(BUILD) --kver $(KVER) \
		--dkms-kernels "$(foreach s,$(KSERIES_ALL),$(call kver_of,$(s)))" \
		--multiarch $(MULTIARCH) --version $(PCIERR_VERSION)
