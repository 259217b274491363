#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 200
#
# Driver suite 97 (a known defect, in make vm-drivers-defects): the
# kernel's OWN AER recovery of the mixed slot's e1000, no pcierr in the
# way (pcierrd not started, the shim takes no step). It shows that the
# e1000's lost interrupt of 90-mixed is the driver's and the kernel's, not
# pcierr's (docs/drivers.md, "90-mixed"): e1000_io_error_detected() calls
# pci_disable_device() with its INTx handler still requested; on x86 with
# ACPI that releases the device's GSI (pcibios_disable_device ->
# acpi_pci_irq_disable -> acpi_unregister_gsi), and where the e1000 is the
# GSI's only user (behind the pcie-pci-bridge its pin lands on a PCI
# interrupt link nobody else uses; a card behind a root port shares its
# link with the port) the IRQ descriptor is freed under the handler.
#
# The rtl8139 of the slot is removed first (with it bound or not, err.c
# votes NO_AER_DRIVER and would not call slot_reset), then aer_inject
# reports a fatal Surprise Down on the slot's root port: err.c broadcasts
# error_detected to the e1000, resets the link, slot_reset, resume. The
# rtl8139 is rescanned at the end. Passes only if the kernel logs no
# WARNING/"nobody cared" and the e1000 answers 20 of 20 afterwards.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$MIXED_BRIDGE
CLEANUP_CMD='rmmod aer_inject; echo 1 > /sys/bus/pci/rescan'
require_normal "$PE"
peer_setup
nic_setup me1000 "$MIXED_E1000" 26
reach me1000 26
[ "$reach_got" = "$reach_sent" ] && [ "$reach_sent" -gt 0 ] ||
	fail "the mixed e1000 answers $reach_got of $reach_sent BEFORE the injection (90-mixed, earlier in this boot, leaves it without its interrupt): run this alone, make vm-drivers-check S=97-mixed-kernel-aer"
ok "me1000 answers $reach_got of $reach_sent before the injection"
echo "  the e1000's interrupt: $(cat "$SYS/$MIXED_E1000/irq") ($(grep 't_me1000' /proc/interrupts | tr -s ' '))"
aer_inject_load
echo "+ echo 1 > $SYS/$MIXED_RTL/remove"
echo 1 > "$SYS/$MIXED_RTL/remove" || fail "cannot remove $MIXED_RTL"
klines=$(dmesg | wc -l)
run "$AER_INJECT" --surprise-down "$RP_MIXED"
[ "$rc" = 0 ] || fail "aer-inject on $RP_MIXED failed"
wait_until 30 sh -c "dmesg | tail -n +$((klines + 1)) | grep -q 'AER: device recovery'" ||
	fail "no 'AER: device recovery' line 30 s after the injection"
sleep 3
kl=$(dmesg | tail -n +"$((klines + 1))")
printf '%s\n' "$kl" | grep -E 'AER|e1000|WARNING|leaking|nobody cared|irq|Disabling' |
	head -n 40 | sed 's/^/  | /'
echo "  the e1000's interrupt now: $(cat "$SYS/$MIXED_E1000/irq") ($(grep 't_me1000' /proc/interrupts | tr -s ' '))"
warn=$(printf '%s\n' "$kl" | grep -c -E 'WARNING|leaking|nobody cared')
reach me1000 26
echo 1 > /sys/bus/pci/rescan
row "$MIXED_E1000" e1000 error_detected,slot_reset,resume "kernel AER (rtl8139 removed)" - - - \
	"$reach_got/$reach_sent" "kernel: $(printf '%s\n' "$kl" | grep -o 'AER: device recovery [a-z]*' | tail -n 1); WARNING/nobody cared lines: $warn"
printf '%s\n' "$kl" | grep -q 'AER: device recovery successful' ||
	fail "the kernel's recovery did not succeed"
expect "kernel WARNING / leaking / nobody cared lines" "$warn" 0
[ "$reach_got" = "$reach_sent" ] ||
	fail "the e1000 answers $reach_got of $reach_sent after the kernel's own recovery"
