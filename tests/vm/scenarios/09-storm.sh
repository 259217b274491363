#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 9: the shim's in-kernel detection API, driven by the test
# driver (its "storm", "check" and "check_result" attributes).
#  a) a storm of 1000 pcierr_report_failure() calls from atomic context
#     (the test driver's "storm": a spinlock held, interrupts off), then
#     one from hard interrupts ("storm_irq": an hrtimer's expiries), on
#     one device, each with a listener: every sequence number from the
#     first to the last is accounted for exactly once, by an event line
#     or by an overflow line (which covers seq-dropped .. seq-1), and the
#     stats deltas (events_sent, events_dropped, freezes) agree.
#  b) pcierr_check_value(): an all-ones value on a healthy device is a
#     false positive (no event), any other value is only a check, and an
#     all-ones value on a frozen PE is ignored.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
PE=$RP_TESTDEV_A
N=1000
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$A"
[ -e "$SYS/$A/storm" ] || fail "the test driver has no storm attribute"

# stats_snap FILE: every counter, name=value lines
stats_snap() {
	timeout -k 2 "$NL_TIMEOUT" "$NL" stats > "$1" 2>&1 ||
		fail "pcierr-nl stats failed: $(cat "$1")"
}
# sdelta NAME BEFORE AFTER: the change of one counter
sdelta() {
	_b=$(sed -n "s/^$1=//p" "$2")
	_a=$(sed -n "s/^$1=//p" "$3")
	if [ -z "$_b" ] || [ -z "$_a" ]; then
		fail "no counter $1 in the stats"
	fi
	echo $((_a - _b))
}
# recover: the usual cycle on a PE frozen with A bound
recover() {
	report_expect "$PE" error_detected need_reset --state frozen
	op reset "$PE"
	report_expect "$PE" slot_reset recovered
	op report "$PE" resume
	expect "PE state" "$(pe_state "$PE")" normal
}

# --- a) storm ------------------------------------------------------------
echo 0 > "$SYS/$A/storm" 2>/dev/null && fail "storm accepted 0"
ok "storm refuses 0"
echo 0 > "$SYS/$A/storm_irq" 2>/dev/null && fail "storm_irq accepted 0"
ok "storm_irq refuses 0"

# storm_round ATTR: N reports through the test driver's ATTR, every seq
# accounted for, then the PE recovered
storm_round() {
	stats_snap "$TMP/s0"
	listen_start "$TMP/events" --timeout 120
	td_set "$A" "$1" "$N"
	# all delivered (or dropped) when events_sent + events_dropped moved by N
	settled() {
		stats_snap "$TMP/s1"
		[ $(( $(sdelta events_sent "$TMP/s0" "$TMP/s1") +
		      $(sdelta events_dropped "$TMP/s0" "$TMP/s1") )) -ge "$N" ]
	}
	wait_until 30 settled || fail "events_sent + events_dropped did not move by $N in 30 s"
	# the listener has everything when its last line covers the last seq
	sleep 1
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	stats_snap "$TMP/s1"

	sent=$(sdelta events_sent "$TMP/s0" "$TMP/s1")
	dropped=$(sdelta events_dropped "$TMP/s0" "$TMP/s1")
	freezes=$(sdelta freezes "$TMP/s0" "$TMP/s1")
	info "stats deltas: events_sent=$sent events_dropped=$dropped freezes=$freezes"
	grep '^overflow ' "$TMP/events" | sed 's/^/  | /'
	echo "  | ($(grep -c '^event ' "$TMP/events") event lines)"
	expect "events_sent + events_dropped" $((sent + dropped)) "$N"
	expect "freezes delta" "$freezes" "$N"

	# one pass over the listener's output: every seq once, first..first+N-1,
	# in order; kernel overflow drops add up to events_dropped
	res=$(awk -v dev="$A" -v n="$N" '
	function take(s) {
		if (s in seen) { print "duplicate seq " s; bad = 1 }
		seen[s] = 1
		if (count && s != last + 1) { print "out of order: " s " after " last; bad = 1 }
		if (!count || s < first) first = s
		last = s; count++
	}
	/^event / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["dev"] != dev || f["source"] != "driver" || f["state"] != "frozen") {
			print "unexpected event: " $0; bad = 1
		}
		take(f["seq"] + 0); events++
		next
	}
	/^overflow / {
		d = 0; s = 0; sock = 0
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "dropped") d = kv[2] + 0
			else if (kv[1] == "seq") s = kv[2] + 0
			else if (kv[1] == "reason") sock = 1
		}
		for (q = s - d; q < s; q++) take(q)
		if (sock) sockdrop += d; else kdrop += d
		next
	}
	END {
		if (count != n) { print "accounted " count " seqs, not " n; bad = 1 }
		if (count && last != first + n - 1) { print "seqs " first ".." last " do not span " n; bad = 1 }
		printf "%s events=%d kdrop=%d sockdrop=%d first=%d last=%d\n",
			bad ? "BAD" : "GOOD", events, kdrop, sockdrop, first, last
	}' "$TMP/events")
	printf '%s\n' "$res" | sed 's/^/  | /'
	summary=$(printf '%s\n' "$res" | tail -n 1)
	case "$summary" in
	GOOD*) ;;
	*) fail "the listener's output does not account for every seq of the storm" ;;
	esac
	ok "seqs $(kv first "$summary")..$(kv last "$summary"): each once, in order"
	expect "events received + dropped" \
		$(( $(kv events "$summary") + $(kv kdrop "$summary") + $(kv sockdrop "$summary") )) "$N"
	expect "kernel overflow drops vs events_dropped" "$(kv kdrop "$summary")" "$dropped"
	expect "events received + socket drops vs events_sent" \
		$(( $(kv events "$summary") + $(kv sockdrop "$summary") )) "$sent"
	expect "PE state after the storm" "$(pe_state "$PE")" frozen
	recover
	td_clear "$A"
}
info "a storm from atomic context (a spinlock held, interrupts off)"
storm_round storm
info "a storm from hard interrupts (an hrtimer's expiries)"
dmesg_lines=$(dmesg | wc -l)
storm_round storm_irq
irq_line=$(dmesg | tail -n +"$((dmesg_lines + 1))" | grep -m 1 'storm_irq: ')
echo "  | $irq_line"
case "$irq_line" in
*"storm_irq: $N failures reported from hard interrupts, 0 refused, 0 outside one, 0 not sent") ;;
*) fail "the test driver did not report all $N from hard interrupts: $irq_line" ;;
esac
ok "all $N reported from hard interrupt context"

# --- b) the all-ones check ---------------------------------------------------
# check VALUE WANT_RESULT: one check; the stats deltas in $d_NAME
check() {
	stats_snap "$TMP/c0"
	td_set "$A" check "$1"
	stats_snap "$TMP/c1"
	expect "check_result after check $1" "$(cat "$SYS/$A/check_result")" "$2"
	d_checks=$(sdelta checks "$TMP/c0" "$TMP/c1")
	d_all_ones=$(sdelta all_ones "$TMP/c0" "$TMP/c1")
	d_false_positives=$(sdelta false_positives "$TMP/c0" "$TMP/c1")
	d_ignored=$(sdelta ignored "$TMP/c0" "$TMP/c1")
	d_freezes=$(sdelta freezes "$TMP/c0" "$TMP/c1")
	d_events_sent=$(sdelta events_sent "$TMP/c0" "$TMP/c1")
	info "deltas: checks=$d_checks all_ones=$d_all_ones false_positives=$d_false_positives ignored=$d_ignored freezes=$d_freezes events_sent=$d_events_sent"
}

listen_start "$TMP/events2" --timeout 120
check 0xffffffff 0
expect "healthy all-ones: checks delta" "$d_checks" 1
expect "healthy all-ones: all_ones delta" "$d_all_ones" 1
expect "healthy all-ones: false_positives delta" "$d_false_positives" 1
expect "healthy all-ones: ignored delta" "$d_ignored" 0
expect "healthy all-ones: freezes delta" "$d_freezes" 0
expect "PE state after a false positive" "$(pe_state "$PE")" normal

check 0x12345678 0
expect "normal value: checks delta" "$d_checks" 1
expect "normal value: all_ones delta" "$d_all_ones" 0
expect "normal value: false_positives delta" "$d_false_positives" 0
expect "normal value: ignored delta" "$d_ignored" 0
expect "normal value: freezes delta" "$d_freezes" 0

# no event for either check
sleep 0.5
expect "events after two checks on a healthy device" "$(grep -c '^event ' "$TMP/events2")" 0

must_nl inject "$A"
iseq=$(kv seq "$out")
wait_until 10 grep -q "^event seq=$iseq " "$TMP/events2" ||
	fail "no event seq=$iseq for the inject"
check 0xffffffff 1
expect "frozen all-ones: checks delta" "$d_checks" 1
expect "frozen all-ones: all_ones delta" "$d_all_ones" 1
expect "frozen all-ones: ignored delta" "$d_ignored" 1
expect "frozen all-ones: false_positives delta" "$d_false_positives" 0
expect "frozen all-ones: freezes delta" "$d_freezes" 0
sleep 0.5
expect "events after the inject and a check on the frozen PE" \
	"$(grep -c '^event ' "$TMP/events2")" 1

recover
expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"
