# SPDX-License-Identifier: GPL-2.0-or-later
#
# pcierrd, the policy daemon; included by the top-level Makefile.
# The data's way through the sources:
#   kernel-source.c udev-source.c  (detect, events)
#   manager.c                      (slots and devices, resync)
#   policy.c recovery.c            (decide, act)
#   state.c metrics.c bus-*.c log.c (state, what the world sees)

PCIERRD      := $(BUILD)/pcierrd
PCIERRD_SRCS := daemon/pcierrd.c daemon/manager.c daemon/recovery.c \
	daemon/kernel-source.c daemon/udev-source.c daemon/pci-names.c \
	daemon/log.c daemon/policy.c daemon/config.c daemon/state.c \
	daemon/metrics.c daemon/uevent.c \
	$(sort $(wildcard daemon/bus-*.c))
PCIERRD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(PCIERRD_SRCS))
PCIERRD_PKGS := libsystemd libudev libpci sqlite3
PCIERRD_CFLAGS := $(CFLAGS) $(NL_CFLAGS) \
	$(shell $(PKG_CONFIG) --cflags $(PCIERRD_PKGS) 2>/dev/null) \
	-DPCIERR_VERSION='"$(LIBPCIERR_VERSION)"' -MMD -MP
PCIERRD_LIBS := $(shell $(PKG_CONFIG) --libs $(PCIERRD_PKGS) 2>/dev/null) $(NL_LIBS)

.PHONY: pcierrd
all: pcierrd
pcierrd: $(PCIERRD)

$(BUILD)/daemon/%.o: daemon/%.c
	@mkdir -p $(@D)
	$(CC) $(PCIERRD_CFLAGS) -c -o $@ $<

$(PCIERRD): $(PCIERRD_OBJS) $(LIBPCIERR_SO) $(BUILD)/lib/libpcierr.so
	$(CC) $(CFLAGS) -o $@ $(PCIERRD_OBJS) -L$(BUILD)/lib -lpcierr \
		-Wl,-rpath,'$$ORIGIN/lib' $(PCIERRD_LIBS)

-include $(PCIERRD_OBJS:.o=.d)
