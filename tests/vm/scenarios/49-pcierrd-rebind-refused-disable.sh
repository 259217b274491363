#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 49 (issue 21 point 3, review U1/U2), on testdev A:
#   a. armed (AutoRecover=yes: its next freeze would be recovered by the
#      callbacks), then pcierr_test unbound and bound again with handlers
#      lacking slot_reset: each bind/unbind re-evaluates the arm before the
#      next freeze, so A is no longer armed; its freeze is recovered by
#      pcierrd's full hotplug (remove, wait_udev, reset, rescan), not by a
#      stale RECOVER (which left REMOVE refused with EBUSY and the card
#      disabled before).
#   b. MaxFreezes=0 for A (the next freeze disables) while an operation of
#      someone else runs on its PE (pcierr-nl's REPORT error_detected, held
#      by the test driver's hanging callback): the shim refuses the DISABLE
#      with EBUSY; pcierrd retries, then reports the recovery failed with
#      errno 16, no PermanentlyDisabled; the card is not marked disabled,
#      not now and not after a restart of pcierrd (the database).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
PA=$RP_TESTDEV_A
CLEANUP_PES=$PA
CLEANUP_CMD='
	echo 1 > "$SYS/$A/release" 2>/dev/null
	[ -n "${NLPID:-}" ] && wait "$NLPID" 2>/dev/null
	[ -e "$TD_DRIVER/$A" ] || echo "$A" > "$TD_DRIVER/bind" 2>/dev/null'
require_normal "$PA"
td_defaults
td_clear "$A"

armed() { [ $(($(pe_flags "$PA") & 8)) != 0 ]; }

sig_start
pcierrd_start
bus_objects "$PA" "$A"
wait_until 20 armed || fail "A's PE is not armed (pe_flags $(pe_flags "$PA"))"
ok "A's PE armed (pe_flags $(pe_flags "$PA"))"

info "a. unbound, and bound again without slot_reset, between the arm and the freeze"
echo "+ echo $A > $TD_DRIVER/unbind"
echo "$A" > "$TD_DRIVER/unbind" || fail "cannot unbind $A"
wait_prop 10 dev "$A" Driver ""
td_handlers error_detected,resume
echo "+ echo $A > $TD_DRIVER/bind"
echo "$A" > "$TD_DRIVER/bind" || fail "cannot bind $A"
wait_prop 10 dev "$A" Driver pcierr_test
wait_until 20 sh -c "! { [ \$((\$(\"$NL\" pe \"$PA\" 2>/dev/null | head -n 1 | sed -n 's/.*pe_flags=\([0-9]*\).*/\1/p') & 8)) != 0 ]; }" ||
	fail "A's PE is still armed after the driver changed (pe_flags $(pe_flags "$PA"))"
ok "disarmed once the new driver lacks slot_reset (pe_flags $(pe_flags "$PA"))"
sig_mark
must_call Inject ssu "$A" frozen 0
finish_of "$PA" 60
echo "  RecoveryFinished $fin_result; steps: $(steps_since "$PA")"
expect "recovery" "$fin_result" recovered
expect "steps" "$(step_names "$PA")" "remove wait_udev reset rescan"
expect_prop dev "$A" Disabled false
wait_prop 10 dev "$A" Driver pcierr_test
td_defaults

info "b. a DISABLE the shim refuses (EBUSY): failed, not disabled"
pcierrd_stop
pd_conf "[Device $A]
MaxFreezes=0"
pcierrd_start
bus_objects "$PA" "$A"
td_clear "$A"
td_set "$A" delay_error_detected hang
echo "+ $NL report $PA error_detected --state frozen &"
"$NL" report "$PA" error_detected --state frozen > "$TMP/nl.out" 2>&1 &
NLPID=$!
wait_until 20 grep -q error_detected "$SYS/$A/running" || fail "the held operation is not running"
ok "someone else's REPORT runs on $PA (error_detected held)"
sig_mark
must_call Inject ssu "$A" frozen 0
finish_of "$PA" 60
echo "  RecoveryFinished $fin_result; steps: $(steps_since "$PA")"
expect "recovery" "$fin_result" failed
msg=$(slot_prop "$PA" LastMessage)
echo "  LastMessage: $msg"
case "$msg" in
*"errno 16"*"not disabled"*) ok "reported as failed with its errno" ;;
*) fail "LastMessage does not say the DISABLE failed with errno 16: $msg" ;;
esac
expect "PermanentlyDisabled signals" "$(sig_all PermanentlyDisabled "\"$PA\"" | wc -l)" 0
expect_prop dev "$A" Disabled false
expect_prop slot "$PA" Disabled false
grep -q "disable refused (Device or resource busy); reading the PE again, retry 4 of 4" "$PD_LOG" ||
	fail "pcierrd's log has no fourth retry of the DISABLE"
ok "the DISABLE was retried 4 times"
# stopped first: with MaxFreezes=0 the PE still frozen is over its limit
pcierrd_stop
echo "+ echo 1 > $SYS/$A/release"
echo 1 > "$SYS/$A/release"
wait "$NLPID"
NLPID=
sed 's/^/  | /' "$TMP/nl.out"
td_defaults
require_normal "$PA"

info "restart pcierrd: the database does not have the card disabled"
pd_conf "[Policy]"
pcierrd_start
bus_objects "$PA" "$A"
expect_prop dev "$A" Disabled false
present "$A" || fail "$A is not on the bus"
pcierrd_stop
