#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# Matrix: a megasas-gen2 disk (megaraid_sas, no handlers) frozen with a
# reader's O_DIRECT reads running; afterwards the new disk read back whole
# (tests/vm/matrix-lib.sh). A read lost in the freeze keeps megaraid_sas's
# removal waiting for its own timeouts (docs/drivers.md
# "99-megasas-hotplug"): as driver scenario 99 it is loaded again with
# the smallest it accepts (scmd_timeout=10 resetwaittime=1), the hung-task
# bound raised to 150 s for this scenario, and the recovery awaited 200 s.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
run rmmod megaraid_sas
run modprobe megaraid_sas scmd_timeout=10 resetwaittime=1
[ "$rc" = 0 ] || fail "modprobe megaraid_sas scmd_timeout=10 resetwaittime=1 failed"
wait_until 30 bound_to "$MEGASAS" megaraid_sas || fail "$MEGASAS not bound to megaraid_sas after its reload"
mx_slow_remove 150 200
pd_conf "[Policy]
StepTimeoutSec=120"
mx_disk megasas "$RP_MEGASAS" "$MEGASAS" megaraid_sas "$DISK_MXMEGASAS_SECTORS"
