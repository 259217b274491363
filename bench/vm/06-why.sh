#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# Where pcierr's own share of a recovery goes (benchmark 1's "why"): a few
# B rounds on the e1000e with pcierrd under strace (--seccomp-bpf: only
# the traced calls stop it), recording each traced system call with its
# time and duration: fsync/fdatasync (the state store on the critical
# path?), openat/read of sysfs (a refresh of the slot per step?), sendmsg/
# recvmsg (netlink and D-Bus round trips). strace slows what it traces, so
# these rounds are not part of the latency table; bench/report counts the
# calls and their time between the EVENT and the resume.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
PE=$RP_E1000E
DEV=$E1000E
CLEANUP_PES=$PE
command -v strace >/dev/null || { rec "why skipped=no-strace"; exit 0; }
require_normal "$PE"
pd_bench_conf
pcierrd_start
bus_objects "$PE" "$DEV" >/dev/null
watch_start
ST=$PCIERR_OUT/bench/06-why.strace
strace -f -ttt -T --seccomp-bpf -p "$PD_PID" -o "$ST" \
	-e trace=fsync,fdatasync,openat,read,pwrite64,write,sendmsg,recvmsg,sendto,recvfrom,epoll_wait,ppoll,poll 2>"$TMP/strace.err" &
SPID=$!
BG_PIDS="$BG_PIDS $SPID"
sleep 3
rec "clock $("$BENCH" now)"
gone "$SPID" && { rec "why skipped=strace-failed $(head -c 200 "$TMP/strace.err" | tr '\n ' '__')"; exit 0; }
i=1
while [ "$i" -le 3 ]; do
	watch_mark
	o=$("$BENCH" inject "$DEV") || fail "inject: $o"
	watch_wait 120 "^op .* pe=$PE op=report step=resume" || fail "no resume in 120 s"
	rec "round kind=S target=e1000e pe=$PE dev=$DEV i=$i $o"
	watch_rec "kind=S target=e1000e i=$i"
	wait_until 60 pd_idle "$PE" || fail "pcierrd busy"
	i=$((i + 1))
done
kill "$SPID"
wait_until 10 gone "$SPID"
ok "3 traced rounds in $ST ($(wc -l < "$ST") lines)"
pcierrd_stop
