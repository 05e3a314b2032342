# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Part of the zram selftests' library (zram_lib.sh sources it), and the
# one the VM harness and the benchmarks source alone, in the guest, from
# /repo/tools/testing/selftests/zram/: device nodes, null_blk backing
# devices through configfs and the fields of zram's stat attributes.
# Nothing here prints KTAP, registers an undo step or exits: each helper
# returns non-zero when it fails, and the caller decides what that means.
# The stat helpers read $ZRAM_SYS (a /sys/block/zramN folder), which the
# caller sets.

NULLB_CONFIGFS=/sys/kernel/config/nullb

# zram_wait_blockdev DEV [SECONDS]: device nodes appear asynchronously.
zram_wait_blockdev() {
	local dev=$1 tries=$((${2:-10} * 20))

	while [ "$tries" -gt 0 ]; do
		[ -b "$dev" ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	echo "# $dev did not appear" >&2
	return 1
}

# zram_nullb_remove NAME: powers off and removes a configfs null_blk.
zram_nullb_remove() {
	echo 0 >"$NULLB_CONFIGFS/$1/power"
	rmdir "$NULLB_CONFIGFS/$1"
}

# zram_field ATTR N: Nth (1-based) number of a stat attribute.
zram_field() {
	local v

	read -r -a v <"$ZRAM_SYS/$1"
	echo "${v[$(($2 - 1))]}"
}

# bd_stat: its three fields, single-spaced
bd_stat() {
	local v

	read -r -a v <"$ZRAM_SYS/bd_stat"
	echo "${v[*]}"
}

# bd_stat fields (4 KiB units)
bd_count() { zram_field bd_stat 1; }
bd_reads() { zram_field bd_stat 2; }
bd_writes() { zram_field bd_stat 3; }
