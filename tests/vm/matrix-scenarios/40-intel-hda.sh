#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: an intel-hda with a codec (snd_hda_intel): its sound card
# must come back
# (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
mx_class hda "$RP_HDA" "$HDA" snd_hda_intel "sound/card*" -
