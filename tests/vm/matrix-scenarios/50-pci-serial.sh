#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: a pci-serial (serial, 8250_pci) with writes to its port
# running: its ttyS must come back. It does not today (issue 25: the
# driver's resume() re-creates the ports, nothing checks that it did): the
# row says so
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_class serial "$RP_SERIAL" "$SERIAL" serial "tty/ttyS*" tty "ttyS gone: d-verify escalates"
