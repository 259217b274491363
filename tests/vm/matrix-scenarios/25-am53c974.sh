#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: an am53c974 disk (am53c974) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh). am53c974 has no handlers: the REMOVE's
# sd_remove waits for the read lost in the freeze to time out (the disk's
# device/timeout, 30 s) and esp_scsi's abort (33 s in all, measured), as
# pvscsi's (26): the hung-task bound is raised to 120 s for this
# scenario, and the recovery awaited 150 s.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_slow_remove 120 150
mx_disk am53c974 "$RP_AM53C974" "$AM53C974" am53c974 "$DISK_AM53C974_SECTORS"
