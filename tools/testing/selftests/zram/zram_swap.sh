# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Swap and memory cgroups, and the zram_memfill workload.

# ------------------------------------------------------- swap and memcg

# zram_now: seconds since boot (no fork); zram_since T: seconds since T.
zram_now() {
	local t _

	read -r t _ </proc/uptime
	echo "$t"
}

zram_since() {
	awk -v a="$1" -v b="$(zram_now)" 'BEGIN { printf "%.1f", b - a }'
}

# zram_swap_require_alone: skip when another swap device is active (pages
# would go there instead).
zram_swap_require_alone() {
	local n

	n=$(awk 'NR > 1 { printf "%s ", $1 }' /proc/swaps)
	[ -z "$n" ] || ktap_skip_all "another swap device is active: $n"
}

# zram_swap_setup MEMFILL: what a swap test needs (null_blk, the swap
# tools, the built MEMFILL helper, no other swap device, a cgroup v2
# memory controller, writeback), then a new zram device; skips the test
# when any is missing.
zram_swap_setup() {
	zram_require_basic
	zram_require_nullb
	zram_require_cmd mkswap swapon swapoff
	[ -x "$1" ] ||
		ktap_skip_all "zram_memfill is not built (make -C $(dirname "$0"))"
	zram_swap_require_alone
	zram_require_memcg || ktap_skip_all "no cgroup v2 memory controller"
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
}

# zram_zswap_off: zswap would keep swapped pages in front of zram; switch
# it off for the test and back on at exit.
zram_zswap_off() {
	local p=/sys/module/zswap/parameters/enabled

	[ -w "$p" ] && [ "$(cat "$p")" = Y ] || return 0
	echo N >"$p" && zram_defer eval "echo Y >$p"
}

# zram_swapon DEV: mkswap + swapon; swapoff at exit.
zram_swapon() {
	zram_quiet mkswap "$1" || return 1
	zram_quiet swapon "$1" || return 1
	zram_defer swapoff "$1"
}

# zram_swap_used_pages DEV: pages of DEV in use as swap (/proc/swaps).
zram_swap_used_pages() {
	awk -v d="$1" '$1 == d { print int($4 / 4) } END { }' /proc/swaps
}

# zram_require_cgroup CONTROLLER: the cgroup v2 hierarchy (mounted on
# /sys/fs/cgroup when it is not mounted yet) with CONTROLLER enabled for
# children; sets CGROUP_ROOT.
CGROUP_ROOT=''
zram_require_cgroup() {
	local root

	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$root" ]; then
		root=/sys/fs/cgroup
		mkdir -p "$root" && mount -t cgroup2 cgroup2 "$root" || return 1
		zram_defer umount "$root"
	fi
	grep -qw "$1" "$root/cgroup.controllers" || return 1
	if ! grep -qw "$1" "$root/cgroup.subtree_control"; then
		echo "+$1" >"$root/cgroup.subtree_control" || return 1
	fi
	CGROUP_ROOT=$root
}

# zram_require_memcg: zram_require_cgroup memory
zram_require_memcg() {
	zram_require_cgroup memory
}

# zram_cgroup NAME: a new child cgroup of CGROUP_ROOT, removed at exit;
# sets CG to its directory.
CG=''
zram_cgroup() {
	CG=$CGROUP_ROOT/zram-selftest-$1-$$
	mkdir "$CG" || return 1
	zram_defer rmdir "$CG"
}

# zram_memcg LIMIT_MB: a new child cgroup with memory.max LIMIT_MB; sets
# MEMCG to its directory, removed at exit.
MEMCG=''
zram_memcg() {
	MEMCG=$CGROUP_ROOT/zram-selftest-$$
	mkdir "$MEMCG" || return 1
	zram_defer zram_memcg_remove "$MEMCG"
	echo "$1M" >"$MEMCG/memory.max"
}

zram_memcg_remove() {
	local tries=50

	echo max >"$1/memory.max"
	while ! rmdir "$1" 2>/dev/null && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
}

# zram_memfill_start CGROUP MIB [SEED]: start zram_memfill in CGROUP and
# wait until it has filled its memory; MEMFILL_PID is its pid,
# MEMFILL_REPLY its first line and MEMFILL_FILL_SUM the checksum of what
# it wrote. It reads commands from fd 5 and answers on fd 6 (see
# zram_memfill_cmd); it is stopped at exit.
MEMFILL_PID=''
MEMFILL_REPLY=''
MEMFILL_SUM=''
MEMFILL_FILL_SUM=''
zram_memfill_start() {
	local cg=$1 mib=$2 seed=${3:-1} bin dir

	bin=$(dirname "${BASH_SOURCE[0]}")/zram_memfill
	dir=$(mktemp -d /tmp/zram-memfill.XXXXXX) || return 1
	zram_defer rm -rf "$dir"
	mkfifo "$dir/cmd" "$dir/reply" || return 1
	(echo "$BASHPID" >"$cg/cgroup.procs" &&
		exec "$bin" "$mib" "$seed") <"$dir/cmd" >"$dir/reply" &
	MEMFILL_PID=$!
	zram_defer zram_memfill_stop "$MEMFILL_PID"
	exec 5>"$dir/cmd" 6<"$dir/reply"
	zram_memfill_reply
	MEMFILL_FILL_SUM=$MEMFILL_SUM
}

# zram_memfill_reply: read the helper's next answer into MEMFILL_REPLY,
# its ", checksum C" split off into MEMFILL_SUM (empty when there is
# none); the lines about bad pages before it become diagnostics.
zram_memfill_reply() {
	local line

	MEMFILL_REPLY=''
	MEMFILL_SUM=''
	while read -r -t "${ZRAM_MEMFILL_TIMEOUT:-600}" line <&6; do
		case $line in
		"bad page "*) ktap_info "$line" ;;
		*", checksum "*)
			MEMFILL_REPLY=${line%, checksum *}
			MEMFILL_SUM=${line##*, checksum }
			return 0
			;;
		*)
			MEMFILL_REPLY=$line
			return 0
			;;
		esac
	done
	MEMFILL_REPLY="no answer from zram_memfill"
	return 1
}

# zram_memfill_cmd CMD: send CMD (verify, poke N) and read the answer.
zram_memfill_cmd() {
	if ! kill -0 "$MEMFILL_PID" 2>/dev/null; then
		MEMFILL_REPLY="zram_memfill is not running (OOM-killed?)"
		return 1
	fi
	echo "$1" >&5 && zram_memfill_reply
}

zram_memfill_stop() {
	exec 5>&- 6<&-
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# zram_memfill_stats: the workload's memcg and the device's counters.
zram_memfill_stats() {
	ktap_info "memory.current $(cat "$MEMCG/memory.current")," \
		"memory.swap.current $(cat "$MEMCG/memory.swap.current" 2>/dev/null)"
	ktap_info "mm_stat $(cat "$ZRAM_SYS/mm_stat")"
	ktap_info "bd_stat $(bd_stat)"
}
