#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: an mptsas1068 disk (mptsas) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh). mptsas has no handlers: the REMOVE's
# sd_remove waits for the read lost in the freeze to time out and mptsas's
# abort (43 s in all, measured), as pvscsi's (26).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_slow_remove 120 150
mx_disk mptsas "$RP_MPTSAS" "$MPTSAS" mptsas "$DISK_MPTSAS_SECTORS"
