# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Prerequisite checks, zram and backing block devices (null_blk, loop,
# dm), sysfs writes with errno checks. Device nodes, null_blk creation
# and the stat fields are in zram_sys.sh.

# ------------------------------------------------------- prerequisites

zram_require_root() {
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "must be run as root"
}

# zram_require_module: the driver must be loaded (run_all.sh loads it);
# when run alone, load the stock module.
zram_require_module() {
	if [ ! -d "$ZRAM_CONTROL" ]; then
		if [ "${ZRAM_DRIVER:-stock}" = stock ]; then
			modprobe zram num_devices=0 >/dev/null 2>&1
		fi
	fi
	[ -d "$ZRAM_CONTROL" ] || ktap_skip_all "zram module not loaded"
}

zram_require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || ktap_skip_all "$c not installed"
	done
}

# zram_require_fio_uring DEV: skip unless fio can read DEV with io_uring
# and O_DIRECT (one 4 KiB read).
zram_require_fio_uring() {
	fio --name=probe --filename="$1" --ioengine=io_uring --direct=1 \
		--rw=read --bs=4k --size=4k >/dev/null 2>&1 ||
		ktap_skip_all "fio cannot use io_uring here"
}

zram_require_nullb() {
	zram_nullb_load || ktap_skip_all "null_blk with configfs not available"
}

zram_require_dm() {
	zram_require_cmd dmsetup
	modprobe dm-mod >/dev/null 2>&1
	dmsetup version >/dev/null 2>&1 || ktap_skip_all "device mapper not available"
}

# zram_require_basic: root + module, the common prologue.
zram_require_basic() {
	zram_require_root
	zram_require_module
}

# ------------------------------------------------------- block devices

# zram_add: new zram device; sets ZRAM_ID, ZRAM_DEV, ZRAM_SYS.
zram_add() {
	ZRAM_ID=$(cat "$ZRAM_CONTROL/hot_add") || return 1
	ZRAM_DEV=/dev/zram$ZRAM_ID
	ZRAM_SYS=/sys/block/zram$ZRAM_ID
	zram_defer zram_remove "$ZRAM_ID"
	zram_wait_blockdev "$ZRAM_DEV"
}

# zram_remove ID: reset and hot_remove, whatever state it is in.
zram_remove() {
	echo 1 >"/sys/block/zram$1/reset" 2>/dev/null
	echo "$1" >"$ZRAM_CONTROL/hot_remove" 2>/dev/null
}

# zram_init SIZE [ALG]: set the algorithm (optional) and disksize.
zram_init() {
	if [ -n "${2:-}" ]; then
		echo "$2" >"$ZRAM_SYS/comp_algorithm" || return 1
	fi
	echo "$1" >"$ZRAM_SYS/disksize"
}

# zram_nullb SIZE_MB [ATTR=VALUE...]: memory-backed null_blk, 4 KiB
# blocks (zram_nullb_create); sets NULLB to its path. Call it directly,
# not in $(...), so its undo step is registered in this shell.
zram_nullb() {
	local name

	zram_obj_seq=$((zram_obj_seq + 1))
	name=znb$$x$zram_obj_seq
	zram_nullb_create "$name" "$@" || return 1
	zram_defer zram_nullb_remove "$name"
	NULLB=/dev/$name
}

# zram_loop SIZE: loop device over a sparse file in /tmp; sets LOOP.
zram_loop() {
	local file dev

	zram_obj_seq=$((zram_obj_seq + 1))
	file=$(mktemp "/tmp/zram-loop.$$.$zram_obj_seq.XXXXXX") || return 1
	zram_defer rm -f "$file"
	truncate -s "$1" "$file" || return 1
	modprobe loop >/dev/null 2>&1
	dev=$(zram_losetup -f --show "$file") || return 1
	zram_defer zram_losetup -d "$dev"
	zram_wait_blockdev "$dev" || return 1
	LOOP=$dev
}

# util-linux losetup (busybox's lacks --show)
zram_losetup() {
	local l

	for l in /usr/sbin/losetup /sbin/losetup /usr/bin/losetup; do
		if [ -x "$l" ] && [ "$(readlink -f "$l")" != "$(readlink -f /bin/busybox)" ]; then
			"$l" "$@"
			return
		fi
	done
	losetup "$@"
}

# zram_dm NAME TABLE: device-mapper device; sets DM (its path) and DM_NAME.
zram_dm() {
	zram_obj_seq=$((zram_obj_seq + 1))
	local name=zt$$x$zram_obj_seq-$1

	dmsetup create "$name" --table "$2" >/dev/null || return 1
	zram_defer dmsetup remove --retry "$name"
	dmsetup mknodes "$name" >/dev/null 2>&1
	zram_wait_blockdev "/dev/mapper/$name" || return 1
	DM=/dev/mapper/$name
	DM_NAME=$name
}

# zram_dm_reload TABLE: replace the table of the zram_dm device $DM_NAME
# (suspend, load, resume).
zram_dm_reload() {
	dmsetup suspend "$DM_NAME" && dmsetup load "$DM_NAME" --table "$1" &&
		dmsetup resume "$DM_NAME"
}

# zram_mktemp_dir: sets MNT to a fresh directory, removed at exit.
zram_mktemp_dir() {
	MNT=$(mktemp -d /tmp/zram-mnt.XXXXXX) || return 1
	zram_defer rmdir "$MNT"
}

# zram_mount_ext4 DEV DIR [mkfs]: mount an ext4 file system (made first
# when the third argument is "mkfs"); unmounted at exit.
zram_mount_ext4() {
	modprobe ext4 >/dev/null 2>&1
	if [ "${3:-}" = mkfs ]; then
		mkfs.ext4 -q -F "$1" >/dev/null 2>&1 || return 1
	fi
	mount -t ext4 "$1" "$2" || return 1
	zram_defer umount "$2"
}

# zram_sectors DEV: size in 512-byte sectors.
zram_sectors() {
	local sys

	sys=/sys/class/block/$(basename "$(readlink -f "$1")")
	cat "$sys/size"
}

# ------------------------------------------- bios a block device sees
# (the block_bio_queue tracepoint, filtered on one device)

ZRAM_TRACE=/sys/kernel/tracing
ZRAM_BIO_EVENT=$ZRAM_TRACE/events/block/block_bio_queue
ZRAM_BIO_TRACED=

# zram_bio_trace_dev DEV: the bio trace counts only bios submitted to the
# block device node DEV; false when the tracepoint cannot be used. The
# tracepoint is turned off and unfiltered at exit.
zram_bio_trace_dev() {
	local devt

	[ -d "$ZRAM_TRACE/events" ] ||
		mount -t tracefs nodev "$ZRAM_TRACE" >/dev/null 2>&1
	[ -w "$ZRAM_BIO_EVENT/filter" ] || return 1
	devt=$(zram_devt "$1") || return 1
	if [ -z "$ZRAM_BIO_TRACED" ]; then
		zram_defer zram_bio_trace_reset
		ZRAM_BIO_TRACED=1
	fi
	echo "dev == $devt" >"$ZRAM_BIO_EVENT/filter"
}

zram_bio_trace_reset() {
	echo 0 >"$ZRAM_BIO_EVENT/enable"
	echo 0 >"$ZRAM_BIO_EVENT/filter"
}

# zram_bio_trace_start: empty the trace, then trace the device's bios.
zram_bio_trace_start() {
	echo >"$ZRAM_TRACE/trace" && echo 1 >"$ZRAM_BIO_EVENT/enable"
}

# zram_bio_trace_stop: stop tracing; the bios traced still count.
zram_bio_trace_stop() {
	echo 0 >"$ZRAM_BIO_EVENT/enable"
}

# zram_bio_trace_count COMM|all: the bios traced since the start that
# tasks named COMM submitted, or all of them.
zram_bio_trace_count() {
	local pattern=' block_bio_queue: '

	[ "$1" = all ] || pattern=" block_bio_queue: .* \\[$1\\]\$"
	grep -c -e "$pattern" "$ZRAM_TRACE/trace"
}

# ------------------------------------------------------- sysfs writes

# zram_errno_name_into VAR MESSAGE: VAR = the errno name in bash's "write
# error: TEXT" MESSAGE.
zram_errno_name_into() {
	local -n en_into=$1

	case $2 in
	*"Invalid argument"*) en_into=EINVAL ;;
	*"Device or resource busy"*) en_into=EBUSY ;;
	*"No such file or directory"*) en_into=ENOENT ;;
	*"Block device required"*) en_into=ENOTBLK ;;
	*"Is a directory"*) en_into=EISDIR ;;
	*"No such device or address"*) en_into=ENXIO ;;
	*"No such device"*) en_into=ENODEV ;;
	*"Resource temporarily unavailable"*) en_into=EAGAIN ;;
	*"Input/output error"*) en_into=EIO ;;
	*"No space left on device"*) en_into=ENOSPC ;;
	*"Numerical result out of range"*) en_into=ERANGE ;;
	*"Argument list too long"*) en_into=E2BIG ;;
	*"Cannot allocate memory"*) en_into=ENOMEM ;;
	*"Operation not permitted"*) en_into=EPERM ;;
	*"Permission denied"*) en_into=EACCES ;;
	*"Operation not supported"*) en_into=EOPNOTSUPP ;;
	*) en_into="UNKNOWN($2)" ;;
	esac
}

# zram_errno_name MESSAGE: prints zram_errno_name_into's name.
zram_errno_name() {
	local name

	zram_errno_name_into name "$1"
	echo "$name"
}

# Where zram_write_into() puts a write's error message: a file per shell
# (subshells included), removed with the test's other files.
zram_werr_dir=${TMPDIR:-/tmp}
zram_werr_clean() {
	rm -f "$zram_werr_dir"/zram-werr."$$".*
}
zram_defer zram_werr_clean

# zram_write_into VAR ATTR VALUE: write VALUE plus a newline (as echo
# does) with a single write(); VAR = OK or the errno name. No fork, which
# is slow under TCG: the message goes through a file.
zram_write_into() {
	local -n wi_into=$1
	local f=$zram_werr_dir/zram-werr.$$.$BASHPID msg=

	if { printf '%s\n' "$3" >"$2"; } 2>"$f"; then
		wi_into=OK
		return
	fi
	read -r msg <"$f"
	zram_errno_name_into wi_into "$msg"
}

# zram_write ATTR VALUE: as zram_write_into, printing OK or the errno name.
zram_write() {
	local got

	zram_write_into got "$1" "$2"
	echo "$got"
}

# expect_errno ERRNO ATTR VALUE: the write fails with ERRNO (or OK).
expect_errno() {
	local got

	zram_write_into got "$2" "$3"
	if [ "$got" != "$1" ]; then
		echo "# write '$3' to $2: got $got, want $1"
		return 1
	fi
}

# zram_write_full ATTR VALUE: the write of VALUE (no newline) returns its
# whole length: dd with bs = length reports one full record out.
zram_write_full() {
	local out

	out=$(printf '%s' "$2" | dd of="$1" bs="${#2}" count=1 2>&1)
	case $out in
	*"1+0 records out"*) return 0 ;;
	esac
	echo "# dd '$2' > $1: $out"
	return 1
}

# zram_state_into VAR: VAR = the readable state of the device, a line per
# attribute, to prove a write changed nothing (mm_stat carries mem_limit,
# which is write-only). Builtins only: forks are slow under TCG.
zram_state_into() {
	local -n st_into=$1
	local a line

	st_into=
	for a in disksize initstate comp_algorithm backing_dev \
		max_comp_streams writeback_limit writeback_limit_enable \
		writeback_batch_size compressed_writeback bd_stat mm_stat; do
		[ -e "$ZRAM_SYS/$a" ] || continue
		read -r line <"$ZRAM_SYS/$a"
		st_into+="$a: $line"$'\n'
	done
}

zram_attr_exists() {
	[ -e "$ZRAM_SYS/$1" ]
}

zram_require_writeback() {
	if [ ! -e "$ZRAM_SYS/backing_dev" ] || [ ! -e "$ZRAM_SYS/writeback" ]; then
		ktap_skip_all "no writeback support (CONFIG_ZRAM_WRITEBACK)"
	fi
}

# zram_require_packed: compressed_writeback (packed writeback) must exist;
# stock 6.12 has no such attribute.
zram_require_packed() {
	zram_attr_exists compressed_writeback ||
		ktap_skip_all "no compressed_writeback attribute (stock 6.12)"
}

# zram_kv_read FILE ARRAY: the "name value" lines of FILE (debugfs wb_stat,
# metadata) into the associative array named ARRAY, emptied first; read in
# the caller's shell, without a fork.
zram_kv_read() {
	local -n kv_into=$2
	local k v

	kv_into=()
	while read -r k v; do
		kv_into["$k"]=$v
	done <"$1"
}

# zram_wb_stat NAME: a value of debugfs wb_stat (writeback statistics of
# our driver), empty when there is none.
zram_wb_stat() {
	awk -v k="$1" '$1 == k { print $2 }' \
		"/sys/kernel/debug/zram/zram$ZRAM_ID/wb_stat" 2>/dev/null
}
