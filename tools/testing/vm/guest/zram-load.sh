#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load a zram driver in the test VM, replacing any zram already loaded.
#
# Usage: zram-load.sh stock|ours [MODULE_PARAMS...]
#   stock  Debian's zram.ko, via modprobe
#   ours   the team's module, $ZRAM_KO (default
#          /repo/drivers/block/zram/zram.ko), via insmod after the
#          modules it depends on (the compression libraries) are loaded
# Waits for /dev/zram0. Exits non-zero when anything fails.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../selftests/zram/zram_sys.sh
. "$here/../../selftests/zram/zram_sys.sh"
mode=${1:-}
[ $# -gt 0 ] && shift

say() { echo "[zram-load] $*"; }
die() { echo "[zram-load] error: $*" >&2; exit 1; }

unload() {
	local dev

	[ -d /sys/module/zram ] || return 0
	# unmount and swapoff whatever uses a zram device, then unload
	while read -r dev _; do
		case $dev in
		/dev/zram*) umount "$dev" || die "cannot unmount $dev" ;;
		esac
	done < <(tac /proc/mounts)
	while read -r dev _; do
		case $dev in
		/dev/zram*) swapoff "$dev" || die "cannot swapoff $dev" ;;
		esac
	done </proc/swaps
	rmmod zram || die "cannot unload the loaded zram module"
	say "unloaded the previous zram module"
}

case $mode in
stock)
	unload
	modprobe zram "$@" || die "modprobe zram failed"
	;;
ours)
	ko=${ZRAM_KO:-/repo/drivers/block/zram/zram.ko}
	if [ ! -e "$ko" ]; then
		die "our zram module is not built yet: $ko does not exist"
	fi
	unload
	deps=$(modinfo -F depends "$ko" 2>/dev/null || true)
	for m in ${deps//,/ }; do
		modprobe "$m" || die "cannot load $m, which $ko depends on"
	done
	insmod "$ko" "$@" || die "insmod $ko failed (see dmesg)"
	;;
*)
	echo "usage: zram-load.sh stock|ours [MODULE_PARAMS...]" >&2
	exit 2
	;;
esac

zram_wait_blockdev /dev/zram0 10 || die "/dev/zram0 did not appear"
taint=$(cat /sys/module/zram/taint 2>/dev/null || true)
say "loaded $mode zram (taint '${taint}')"
