#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make dkms-check: use the module tree of the Debian root
# that DKMS installed our zram into (DKMS_MODULES: the host's copy of the
# root's /lib/modules/<kernel>, in /out) as /lib/modules, check that depmod's modules.dep and "modprobe zram"
# pick the DKMS module: the loaded module has every function listed in
# /out/ours-only and none of /out/stock-only (/proc/kallsyms); then run a
# few selftests against it.

set -uo pipefail

mods=${DKMS_MODULES:?}
kver=$(uname -r)
selftests=/repo/tools/testing/selftests/zram
fail=0

say() { echo "[dkms-load] $*"; }

[ -e "$mods/$kver/modules.dep" ] || { say "no modules.dep in $mods/$kver"; exit 1; }
if [ -d /sys/module/zram ]; then
	rmmod zram || { say "cannot unload the zram already loaded"; exit 1; }
fi
mount --bind "$mods" /lib/modules || { say "cannot bind $mods"; exit 1; }
entry=$(grep -E '^[^:]*/zram\.ko(\.[a-z]+)?:' "/lib/modules/$kver/modules.dep")
say "modules.dep: $entry"
case $entry in
updates/dkms/zram.ko*) say "ok: depmod resolves zram to the DKMS module" ;;
*) say "FAILED: depmod resolves zram to ${entry%%:*}"; fail=1 ;;
esac

# busybox modprobe first hands each .ko.xz to finit_module() without the
# decompress flag, which logs "Invalid ELF header magic", then loads the
# module it decompressed itself
modprobe zram || { say "FAILED: modprobe zram"; exit 1; }
awk '$4 == "[zram]" { print $3 }' /proc/kallsyms >/tmp/zram.syms
# missing: ours-only functions not loaded; foreign: stock-only ones loaded
missing=$(awk 'NR == FNR { have[$0] = 1; next } !($0 in have)' /tmp/zram.syms /out/ours-only | wc -l)
foreign=$(awk 'NR == FNR { have[$0] = 1; next } $0 in have' /tmp/zram.syms /out/stock-only | wc -l)
if [ "$missing" -eq 0 ] && [ "$foreign" -eq 0 ]; then
	say "ok: modprobe zram loaded ours ($(wc -l </out/ours-only) functions only ours has, none only stock has; taint '$(cat /sys/module/zram/taint)')"
else
	say "FAILED: the loaded zram lacks $missing of ours-only functions, has $foreign of stock-only ones"
	fail=1
fi

for t in zram_wb_02.sh zram_swap_01.sh; do
	say "running $t against it"
	ZRAM_DRIVER=ours "$selftests/$t" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		say "ok: $t"
	else
		say "FAILED: $t (exit $rc)"
		fail=1
	fi
done
exit "$fail"
