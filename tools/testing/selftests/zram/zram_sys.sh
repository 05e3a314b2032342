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

# zram_devt DEV: prints DEV's number as the kernel's dev_t (major << 20 |
# minor), the value tracepoints' dev field holds.
zram_devt() {
	local t

	t=$(stat -L -c '%t %T' "$1") || return 1
	echo $(((16#${t% *} << 20) | 16#${t#* }))
}

# zram_pid_ended PID SECONDS: PID has ended, or ends within SECONDS.
zram_pid_ended() {
	local t

	for ((t = 0; t < $2 * 10; t++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# zram_nullb_load: loads null_blk (nr_devices=0) and mounts configfs
# when its nullb folder is missing; fails when there is still none.
zram_nullb_load() {
	modprobe configfs >/dev/null 2>&1
	if [ ! -d "$NULLB_CONFIGFS" ]; then
		grep -q ' /sys/kernel/config ' /proc/mounts ||
			mount -t configfs none /sys/kernel/config >/dev/null 2>&1
		modprobe null_blk nr_devices=0 >/dev/null 2>&1
	fi
	[ -d "$NULLB_CONFIGFS" ]
}

# zram_nullb_create NAME SIZE_MB [ATTR=VALUE...]: a memory-backed null_blk
# /dev/NAME with 4 KiB blocks, made through configfs (zram_nullb_load
# first); ATTR=VALUE are more of its configfs attributes (irqmode=2,
# completion_nsec=20000, mbps=400...), written before it is powered on.
# Waits for the node; on failure removes what it made.
zram_nullb_create() {
	local name=$1 size=$2

	shift 2
	mkdir "$NULLB_CONFIGFS/$name" || return 1
	if ! zram_nullb_set "$name" memory_backed=1 blocksize=4096 "size=$size" \
		"$@" power=1 || ! zram_wait_blockdev "/dev/$name"; then
		zram_nullb_remove "$name"
		return 1
	fi
}

# zram_nullb_set NAME ATTR=VALUE...: writes the configfs attributes of a
# null_blk in order; stops at the first that fails.
zram_nullb_set() {
	local dir=$NULLB_CONFIGFS/$1 kv

	shift
	for kv in "$@"; do
		echo "${kv#*=}" >"$dir/${kv%%=*}" || return 1
	done
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

# zram_disk_stat DEV N: Nth (1-based) number of block device DEV's stat
# (1: read I/Os, 3: sectors read, 5: write I/Os, 7: sectors written).
zram_disk_stat() {
	local v

	read -r -a v <"/sys/class/block/$(basename "$(readlink -f "$1")")/stat"
	echo "${v[$(($2 - 1))]}"
}

# zram_disk_inflight DEV [N]: requests block device DEV holds: its reads
# (N 1), its writes (N 2), or both (no N).
zram_disk_inflight() {
	local v

	read -r -a v <"/sys/class/block/$(basename "$(readlink -f "$1")")/inflight"
	if [ -n "${2:-}" ]; then
		echo "${v[$(($2 - 1))]}"
	else
		echo $((v[0] + v[1]))
	fi
}

# zram_counters ATTR:N...: the values of several zram_field counters
# (ATTR:N: the Nth number of ATTR), single-spaced. The disk's read I/Os
# and sectors are stat:1 and stat:3, its writes stat:5 and stat:7.
zram_counters() {
	local spec vals=()

	for spec in "$@"; do
		vals+=("$(zram_field "${spec%:*}" "${spec#*:}")")
	done
	echo "${vals[*]}"
}

# zram_grew BEFORE AFTER: AFTER minus BEFORE, number by number (both
# zram_counters output).
zram_grew() {
	local b a i diffs=()

	read -r -a b <<<"$1"
	read -r -a a <<<"$2"
	for i in "${!a[@]}"; do
		diffs+=($((a[i] - b[i])))
	done
	echo "${diffs[*]}"
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
