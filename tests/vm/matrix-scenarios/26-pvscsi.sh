#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: a pvscsi disk (vmw_pvscsi) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh). pvscsi has no handlers and nothing fails the
# read lost in the freeze but the SCSI midlayer: the REMOVE's sd_remove
# waits for that command's timeout (the disk's device/timeout, 30 s) and
# pvscsi's abort (44 s in all, measured): bounded by the driver's own
# error handling, as megaraid_sas's (22). The hung-task bound is raised to
# 120 s for this scenario, and the recovery awaited 150 s.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_slow_remove 120 150
mx_disk pvscsi "$RP_PVSCSI" "$PVSCSI" vmw_pvscsi "$DISK_PVSCSI_SECTORS"
