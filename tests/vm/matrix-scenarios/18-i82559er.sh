#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: the i82559er NIC (e100) frozen with the peer's UDP stream running,
# recovered by pcierrd; then a fresh stream must be echoed in full
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_nic e100 "$RP_E100" "$E100" e100 21
