#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: an SD card on sdhci-pci (sdhci-pci, mmc_block) frozen with a reader's O_DIRECT reads
# running; afterwards the disk (a new one after a rescan) read back whole
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_disk sd "$RP_SDHCI" "$SDHCI" sdhci-pci "$DISK_SD_SECTORS"
