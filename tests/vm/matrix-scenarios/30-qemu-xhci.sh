#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: a USB disk on qemu-xhci (xhci_hcd, usb-storage) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_disk xhci "$RP_XHCI" "$XHCI" xhci_hcd "$DISK_XHCI_SECTORS"
