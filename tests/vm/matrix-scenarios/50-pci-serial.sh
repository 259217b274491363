#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: a pci-serial (serial, 8250_pci) with writes to its port running,
# recovered as an installed pcierrd does it: with the shipped list of
# broken callbacks (systemd/pcierrd.conf.d/50-known-broken.conf), whose
# [Driver serial] Method=hotplug sends it down the hotplug path (a fresh
# driver instance). Its own callbacks are never called: the resume() of
# 6.1's 8250_pci re-creates the ports from priv->board, which for a card
# matched by its class (QEMU's pci-serial) points into pciserial_init_one()'s
# stack frame, long gone (docs/drivers.md "The device-class matrix"): the
# ttyS never came back and the kernel log had a WARNING. Its ttyS must come
# back, and writes to it must work again (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mkdir -p "$PD_CONFD"
cp "$PCIERR_TREE/systemd/pcierrd.conf.d/50-known-broken.conf" "$PD_CONFD/"
CLEANUP_CMD="rm -f $PD_CONFD/50-known-broken.conf"
MX_PATH_NOTE=" (Method=hotplug, shipped list)"
mx_class serial "$RP_SERIAL" "$SERIAL" serial "tty/ttyS*" tty
expect "RecoveryStarted mode (the shipped list's Method=hotplug)" "$rec_mode" full-hotplug
grep -q "Method=hotplug" "$PD_LOG" || fail "pcierrd's log does not name Method=hotplug"
ok "the callbacks of serial were not called: the hotplug path at once"
