#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: the ne2k_pci NIC (ne2k-pci) frozen with the peer's UDP stream running,
# recovered by pcierrd; then a fresh stream must be echoed in full
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_nic ne2k "$RP_NE2K" "$NE2K" ne2k-pci 18
