#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 18: bad D-Bus input and permissions.
#   As root: a malformed address, an unknown state or reset type, a wrong
#   signature -> InvalidArgs; a well-formed address of no known device or
#   slot -> org.pcierr1.Error.NoSuchDevice; the message naming what was
#   wrong. As uid 65534: Inject, Reset, Enable,
#   ClearFreezeCount are refused by pcierrd itself (the bus policy lets them
#   through, pcierrd authorises through polkit): when the bus activated
#   polkitd, uid 65534 (no session: auth_admin) gets
#   InteractiveAuthorizationRequired ("Authentication is required to
#   ..."; dbus-send allows no interaction), or AccessDenied ("Could not ask
#   polkit ...") when the actions are not installed (this mode runs the
#   tree); when polkitd could not be started, AccessDenied ("Only root may
#   ... (polkit is not available ..."). Which one is decided by whether
#   org.freedesktop.PolicyKit1 has an owner afterwards and whether
#   org.pcierr1.policy is installed. Reading as uid 65534 works: properties,
#   GetDevice, GetSlot, GetHistory, GetManagedObjects, Introspect.
#   Nothing changed: FreezeCount, slot states, the history, the counters,
#   the test driver's call log.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"

pcierrd_start
bus_objects "$PE" "$DEV"
bus_objects "$RP_E1000E"
bus_objects "$RP_EDU"
dev_obj=$(dev_path "$DEV")
slot_obj=$(slot_path "$PE")

# what must not change
snapshot() {
	echo "freeze=$(dev_prop "$DEV" FreezeCount) dev_state=$(dev_prop "$DEV" State)" \
		"slot_state=$(slot_prop "$PE" State) step=$(slot_prop "$PE" Step)" \
		"e1000e_slot=$(slot_prop "$RP_E1000E" State) edu_slot=$(slot_prop "$RP_EDU" State)" \
		"history=$(history_count)" \
		"started=$(mgr_prop RecoveriesStarted) events=$(mgr_prop EventsReceived)" \
		"disables=$(mgr_prop PermanentDisables)" \
		"shim_freezes=$(nl_stat freezes) shim_ops=$(nl_stat ops)"
}
before=$(snapshot)
echo "  before: $before"

# names NEEDLE: the last error message must contain NEEDLE
names() {
	case "$errmsg" in
	*"$1"*) ok "the message names '$1': $errmsg" ;;
	*) fail "the message does not name '$1': $errmsg" ;;
	esac
}

info "root: bad arguments -> InvalidArgs"
call_expect_error InvalidArgs Inject string:zz:00 string:frozen uint32:0
names zz:00
call_expect_error org.pcierr1.Error.NoSuchDevice Inject string:0000:0f:1f.7 string:frozen uint32:0
names 0000:0f:1f.7
call_expect_error InvalidArgs Inject string:0000:02:00.0.1 string:frozen uint32:0
names 0000:02:00.0.1
call_expect_error InvalidArgs Inject "string:$DEV" string:bogus uint32:0
names bogus
call_expect_error InvalidArgs Reset "string:$DEV" string:sideways
names sideways
call_expect_error org.pcierr1.Error.NoSuchDevice Reset string:0000:0f:1f.7 string:hot
names 0000:0f:1f.7
call_expect_error InvalidArgs Enable string:nonsense
names nonsense
call_expect_error org.pcierr1.Error.NoSuchDevice ClearFreezeCount string:0000:0f:1f.7
names 0000:0f:1f.7
call_expect_error org.pcierr1.Error.NoSuchDevice GetDevice string:0000:0f:1f.7
names 0000:0f:1f.7
call_expect_error InvalidArgs GetSlot string:1:2:3:4
names 1:2:3:4
call_expect_error InvalidArgs GetDevice string:
call_expect_error InvalidArgs Inject "string:$DEV"

info "uid 65534: changing anything -> pcierrd refuses (polkit, or root only without it)"
# the first refused call makes the bus start polkitd, if it can
run as_nobody timeout -k 2 "$BUS_TIMEOUT" dbus-send --system --print-reply \
	--reply-timeout=$((BUS_TIMEOUT * 1000)) --dest="$BUS_NAME" "$BUS_PATH" \
	"$MGR_IFACE.ClearFreezeCount" "string:$DEV"
[ "$rc" != 0 ] || fail "ClearFreezeCount by uid 65534 succeeded"
pk=$(timeout -k 2 "$BUS_TIMEOUT" busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
	org.freedesktop.DBus NameHasOwner s org.freedesktop.PolicyKit1 2>/dev/null)
if [ "$pk" != "b true" ]; then
	info "no polkitd on the bus: root only"
	want=AccessDenied
	words="Only root may"
elif [ ! -e /usr/share/polkit-1/actions/org.pcierr1.policy ]; then
	# this mode runs the tree, not an installation: polkitd does not know
	# the actions (systemd-scenarios/07-polkit has them installed)
	info "polkitd runs, org.pcierr1.policy is not installed: polkit cannot decide"
	want=AccessDenied
	words="Could not ask polkit whether you may"
else
	info "polkitd runs (activated by the bus): polkit wants a password nobody can give"
	want=InteractiveAuthorizationRequired
	words="Authentication is required to"
fi
CALL_AS=as_nobody
for m in "Inject string:$DEV string:frozen uint32:0" "Reset string:$DEV string:hot" \
	 "Enable string:$PE" "ClearFreezeCount string:$DEV"; do
	# shellcheck disable=SC2086
	call_expect_error "$want" $m
	case "$errmsg" in
	"Rejected send message"*) fail "the bus, not pcierrd, refused: $errmsg" ;;
	"$words"*) ok "pcierrd refused: $errmsg" ;;
	*) fail "pcierrd's refusal does not start with '$words': $errmsg" ;;
	esac
done
CALL_AS=

info "uid 65534: reading works"
run as_nobody busctl --system get-property org.pcierr1 "$dev_obj" "$DEV_IFACE" FreezeCount
[ "$rc" = 0 ] || fail "unprivileged get-property failed"
expect "FreezeCount read by uid 65534" "$(bus_value "$out")" "$(dev_prop "$DEV" FreezeCount)"
run as_nobody busctl --system get-property org.pcierr1 "$slot_obj" "$SLOT_IFACE" State
[ "$rc" = 0 ] || fail "unprivileged get-property of the slot failed"
run as_nobody busctl --system call org.pcierr1 "$BUS_PATH" "$MGR_IFACE" GetDevice s "$DEV"
expect "GetDevice by uid 65534" "$(bus_value "$out")" "$dev_obj"
run as_nobody busctl --system call org.pcierr1 "$BUS_PATH" "$MGR_IFACE" GetSlot s "$DEV"
expect "GetSlot (by a device) by uid 65534" "$(bus_value "$out")" "$slot_obj"
run as_nobody busctl --system call org.pcierr1 "$BUS_PATH" "$MGR_IFACE" GetHistory tsu 0 "" 0
[ "$rc" = 0 ] || fail "unprivileged GetHistory failed"
o=$(as_nobody busctl --system call org.pcierr1 "$BUS_PATH" org.freedesktop.DBus.ObjectManager GetManagedObjects 2>&1) ||
	fail "unprivileged GetManagedObjects failed: $o"
case "$o" in *"$dev_obj"*) ok "GetManagedObjects by uid 65534 lists $dev_obj" ;;
*) fail "GetManagedObjects by uid 65534 lacks $dev_obj" ;; esac
o=$(as_nobody busctl --system introspect org.pcierr1 "$BUS_PATH" 2>&1) ||
	fail "unprivileged introspect failed: $o"
printf '%s\n' "$o" | grep -q '^org.pcierr1.Manager ' || fail "introspection lacks org.pcierr1.Manager"
ok "introspection by uid 65534 works"

after=$(snapshot)
echo "  after: $after"
expect "the state after the bad calls" "$after" "$before"
expect_calls "$DEV" ""
expect "shim: PE state" "$(pe_state "$PE")" normal
pcierrd_stop
