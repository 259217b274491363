#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: a pvscsi disk (vmw_pvscsi) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_disk pvscsi "$RP_PVSCSI" "$PVSCSI" vmw_pvscsi "$DISK_PVSCSI_SECTORS"
