#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: the e1000e NIC (e1000e) frozen with the peer's UDP stream running,
# recovered by pcierrd; then a fresh stream must be echoed in full
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_nic e1000e "$RP_E1000E" "$E1000E" e1000e 16
