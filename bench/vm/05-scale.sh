#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# Benchmark 5: scale in the VM. With the bench topology (its switch tree
# of pcie-pci-bridges full of edu functions: every PCI function of the
# guest counted), pcierrd running: the wall time of "pcierrctl status
# --json" (a process, D-Bus, JSON), of GetManagedObjects on one
# connection (pcierr-bench gmo: the call alone), against "busctl tree
# org.pcierr1" and "lspci -vmm" in the same VM.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
N=10
[ "$BENCH_QUICK" = 1 ] && N=5
ndev=$(ls /sys/bus/pci/devices | wc -l)
pd_bench_conf
pcierrd_start
nobj=$(busctl --system tree --list org.pcierr1 2>/dev/null | wc -l)
nsl=$("$PCIERRCTL" --json status 2>/dev/null | wc -c)
rec "scale functions=$ndev objects=$nobj status_json_bytes=$nsl"
[ "$nobj" -gt "$ndev" ] || info "fewer bus objects ($nobj) than functions ($ndev)"
"$BENCH" time 1 "$PCIERRCTL" --json status >/dev/null
for w in status tree lspci; do
	case $w in
	status) set -- "$PCIERRCTL" --json status ;;
	tree) set -- busctl --system tree org.pcierr1 ;;
	lspci) set -- lspci -vmm ;;
	esac
	"$BENCH" time "$N" "$@" > "$TMP/t" || fail "$*: pcierr-bench time failed"
	grep -v 'rc=0$' "$TMP/t" && fail "$* failed"
	while read -r l; do rec "call what=$w $l"; done < "$TMP/t"
done
"$BENCH" gmo "$N" > "$TMP/t" || fail "GetManagedObjects failed"
while read -r l; do rec "call what=gmo $l"; done < "$TMP/t"
ok "scale figures recorded ($ndev functions, $nobj objects)"
pcierrd_stop
