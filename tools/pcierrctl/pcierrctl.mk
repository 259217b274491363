# SPDX-License-Identifier: GPL-2.0-or-later
#
# pcierrctl, the CLI over pcierrd's D-Bus API; included by the top-level
# Makefile. The sources by what they do:
#   pcierrctl.c                      options, the verb table, the verbs
#   ctl-bus.c ctl-wait.c pager.c     org.pcierr1: objects, errors, signals; the pager
#   model.c output.c format.c json.c plain data, text and JSON (pure: the
#                                    unit tests link them, tests/unit/unit.mk)
#
#   make pcierrctl-check   lint the man page (groff -ww) and the completion (bash -n)

PCIERRCTL      := $(BUILD)/pcierrctl
PCIERRCTL_DIR  := tools/pcierrctl
PCIERRCTL_SRCS := $(addprefix $(PCIERRCTL_DIR)/,pcierrctl.c ctl-bus.c ctl-wait.c pager.c \
	model.c output.c format.c json.c)
PCIERRCTL_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(PCIERRCTL_SRCS))
PCIERRCTL_CFLAGS := $(CFLAGS) $(SYSTEMD_CFLAGS) \
	-DPCIERR_VERSION='"$(LIBPCIERR_VERSION)"' -MMD -MP
PCIERRCTL_LIBS := $(SYSTEMD_LIBS)
PCIERRCTL_MAN  := man/pcierrctl.8
PCIERRCTL_COMPLETION := shell-completion/bash/pcierrctl

# installed by systemd/systemd.mk (install-pcierrctl: the binary, the man
# page, the bash completion)
.PHONY: pcierrctl pcierrctl-check
all: pcierrctl
pcierrctl: $(PCIERRCTL)

$(BUILD)/$(PCIERRCTL_DIR)/%.o: $(PCIERRCTL_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(PCIERRCTL_CFLAGS) -c -o $@ $<

# Only pcierr_addr_normalize() of libpcierr, taken from the static
# archive (names.o, no libnl): a `pcierrctl status` costs a process start
# and every shared library is one more to map and relocate, which is most
# of its time in the TCG guest (docs/reliability.md, "pcierrctl status:
# where its time goes"). libsystemd is its only shared library besides libc.
$(PCIERRCTL): $(PCIERRCTL_OBJS) $(LIBPCIERR_A)
	$(CC) $(CFLAGS) -o $@ $(PCIERRCTL_OBJS) $(LIBPCIERR_A) $(PCIERRCTL_LIBS)

# groff writes its warnings to stderr: any output fails
pcierrctl-check:
	@out=$$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z $(PCIERRCTL_MAN) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi
	bash -n $(PCIERRCTL_COMPLETION)

-include $(PCIERRCTL_OBJS:.o=.d)
