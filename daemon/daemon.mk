# SPDX-License-Identifier: GPL-2.0-or-later
#
# pcierrd, the policy daemon; included by the top-level Makefile.
# The data's way through the sources:
#   kernel-source.c udev-source.c  (detect, events)
#   manager.c                      (slots and devices, resync; observer.h)
#   recovery-input.c               (events to the policy's inputs)
#   policy.c recovery-exec.c       (decide, act; recovery.c maps the
#   recovery-*.c                    rest: RECOVER, report, reconcile, admin)
#   state.c metrics.c bus-*.c log.c (state, what the world sees)
#   start.c                        (the parts put together)

PCIERRD      := $(BUILD)/pcierrd
PCIERRD_SRCS := daemon/pcierrd.c daemon/manager.c $(sort $(wildcard daemon/recovery*.c)) \
	daemon/kernel-source.c daemon/udev-source.c daemon/pci-names.c \
	daemon/log.c daemon/policy.c daemon/config.c daemon/state.c \
	daemon/metrics.c daemon/uevent.c daemon/kernel-ops.c daemon/addrmap.c \
	daemon/state-writer.c daemon/start.c daemon/hold.c daemon/observer.c daemon/metrics-observer.c \
	daemon/metrics-writer.c daemon/verify.c daemon/verify-sysfs.c daemon/verify-slot.c \
	daemon/aer-stats.c \
	$(sort $(wildcard daemon/bus-*.c)) \
	kernel/pcierr_shim/pseries-rtas.c
PCIERRD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(PCIERRD_SRCS))
PCIERRD_PKGS := libsystemd libudev sqlite3
PCIERRD_CFLAGS := $(CFLAGS) $(NL_CFLAGS) \
	$(shell $(PKG_CONFIG) --cflags $(PCIERRD_PKGS) 2>/dev/null) \
	-DPCIERR_VERSION='"$(LIBPCIERR_VERSION)"' -MMD -MP
PCIERRD_LIBS := $(shell $(PKG_CONFIG) --libs $(PCIERRD_PKGS) 2>/dev/null) $(NL_LIBS) -pthread

.PHONY: pcierrd
all: pcierrd
pcierrd: $(PCIERRD)

$(BUILD)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(PCIERRD_CFLAGS) -c -o $@ $<

# the shim's pure pseries part (GPL-2.0 OR MIT): the RTAS error log's
# header, decoded for the journal (docs/pseries.md)
$(BUILD)/kernel/pcierr_shim/%.o: kernel/pcierr_shim/%.c
	@mkdir -p $(@D)
	$(CC) $(PCIERRD_CFLAGS) -c -o $@ $<

# libpcierr linked in statically: the daemon runs from the build tree (the
# test VM) and installed alike, with no rpath
$(PCIERRD): $(PCIERRD_OBJS) $(LIBPCIERR_A)
	$(CC) $(CFLAGS) -o $@ $(PCIERRD_OBJS) $(LIBPCIERR_A) $(PCIERRD_LIBS)

-include $(PCIERRD_OBJS:.o=.d)

# Installation: the daemon, its man pages, the commented default
# configuration (never replacing one that is there: it is the admin's) and
# the shipped list of drivers with broken callbacks (a drop-in).
# The unit, bus files, catalog and DKMS tree: systemd/systemd.mk.
.PHONY: install-pcierrd
install: install-pcierrd
install-pcierrd: $(PCIERRD)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf.d
	install -m 0755 $(PCIERRD) $(DESTDIR)$(SBINDIR)/pcierrd
	install -m 0644 man/pcierrd.8 $(DESTDIR)$(MANDIR)/man8/pcierrd.8
	install -m 0644 man/pcierrd.conf.5 $(DESTDIR)$(MANDIR)/man5/pcierrd.conf.5
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf ]; then \
		echo "install-pcierrd: keeping $(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf"; \
	else \
		echo "install -m 0644 systemd/pcierrd.conf $(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf"; \
		install -m 0644 systemd/pcierrd.conf $(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf; \
	fi
	# the shipped list of broken callbacks: the project's, replaced on
	# every install (an administrator overrides it in a later drop-in)
	install -m 0644 systemd/pcierrd.conf.d/50-known-broken.conf \
		$(DESTDIR)$(SYSCONFDIR)/pcierr/pcierrd.conf.d/50-known-broken.conf
