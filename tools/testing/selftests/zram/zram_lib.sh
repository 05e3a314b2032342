# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Shared helpers for the zram selftests: KTAP output, prerequisite checks,
# a fresh zram device per test (hot_add/hot_remove), backing devices
# (null_blk, loop, dm) and errno checks for sysfs writes.
#
# Source it, do not run it. Every helper that creates something registers
# its undo step with zram_defer; the EXIT trap runs them in reverse order,
# so a failing test never leaves devices behind for the next one.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ZRAM_CONTROL=/sys/class/zram-control
NULLB_CONFIGFS=/sys/kernel/config/nullb

ktap_num=0
ktap_planned=0
ktap_pass=0
ktap_fail=0
ktap_skip=0
zram_undo=()
zram_obj_seq=0

# Results of the device helpers (they cannot print them: a $(...) subshell
# would lose the undo steps they register).
NULLB=''
LOOP=''
DM=''
DM_NAME=''
MNT=''
TEXT_FILE=''
HEX_FILE=''
RECOMP_PRIMARY=''
RECOMP_SECONDARY=''

# ---------------------------------------------------------------- KTAP

ktap_plan() {
	ktap_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_pass=$((ktap_pass + 1))
	echo "ok $ktap_num $*"
}

ktap_not_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_fail=$((ktap_fail + 1))
	echo "not ok $ktap_num $*"
}

# ktap_skip DESC REASON
ktap_skip() {
	ktap_num=$((ktap_num + 1))
	ktap_skip=$((ktap_skip + 1))
	echo "ok $ktap_num $1 # SKIP $2"
}

ktap_info() {
	echo "# $*"
}

# ktap_check DESC CMD...: one result line from a command's exit status.
ktap_check() {
	local desc=$1

	shift
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
}

# zram_quiet CMD...: run CMD, show its output (as diagnostics) only if it
# fails.
zram_quiet() {
	local out

	out=$("$@" 2>&1) && return 0
	echo "$out" | tail -20 | sed 's/^/# /'
	return 1
}

# ktap_eq DESC GOT WANT
ktap_eq() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		ktap_info "$1: got '$2', want '$3'"
		ktap_not_ok "$1"
	fi
}

# ktap_finish: totals line and exit code 0 pass / 1 fail / 4 all skipped.
ktap_finish() {
	if [ "$ktap_num" -ne "${ktap_planned:-0}" ]; then
		echo "# planned ${ktap_planned:-0} tests, ran $ktap_num"
		ktap_fail=$((ktap_fail + 1))
	fi
	echo "# totals: pass:$ktap_pass fail:$ktap_fail skip:$ktap_skip"
	if [ "$ktap_fail" -gt 0 ]; then
		exit "$KSFT_FAIL"
	fi
	if [ "$ktap_pass" -eq 0 ] && [ "$ktap_skip" -gt 0 ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

# ktap_skip_all REASON: the whole test cannot run here.
ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# ktap_bail REASON: setup failed after the plan was printed.
ktap_bail() {
	echo "Bail out! $*"
	exit "$KSFT_FAIL"
}

# ------------------------------------------------------- cleanup stack

# zram_defer CMD...: run CMD (quoted words) at exit, last registered first.
zram_defer() {
	local cmd

	printf -v cmd '%q ' "$@"
	zram_undo+=("$cmd")
}

zram_run_undo() {
	local i

	# descriptors a test holds on a device would make reset fail
	exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-
	for ((i = ${#zram_undo[@]} - 1; i >= 0; i--)); do
		eval "${zram_undo[$i]}" >/dev/null 2>&1
	done
	zram_undo=()
}

trap zram_run_undo EXIT

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

zram_require_nullb() {
	modprobe configfs >/dev/null 2>&1
	if [ ! -d /sys/kernel/config/nullb ]; then
		grep -q ' /sys/kernel/config ' /proc/mounts ||
			mount -t configfs none /sys/kernel/config >/dev/null 2>&1
		modprobe null_blk nr_devices=0 >/dev/null 2>&1
	fi
	[ -d "$NULLB_CONFIGFS" ] || ktap_skip_all "null_blk with configfs not available"
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
# blocks; sets NULLB to its path. Call it directly, not in $(...), so its
# undo step is registered in this shell.
zram_nullb() {
	local size=$1 name dir kv

	shift
	zram_obj_seq=$((zram_obj_seq + 1))
	name=znb$$x$zram_obj_seq
	dir=$NULLB_CONFIGFS/$name
	mkdir "$dir" || return 1
	zram_defer zram_nullb_remove "$name"
	echo 1 >"$dir/memory_backed" &&
		echo 4096 >"$dir/blocksize" &&
		echo "$size" >"$dir/size" || return 1
	for kv in "$@"; do
		echo "${kv#*=}" >"$dir/${kv%%=*}" || return 1
	done
	echo 1 >"$dir/power" || return 1
	zram_wait_blockdev "/dev/$name" || return 1
	NULLB=/dev/$name
}

zram_nullb_remove() {
	echo 0 >"$NULLB_CONFIGFS/$1/power"
	rmdir "$NULLB_CONFIGFS/$1"
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

# ------------------------------------------------------- sysfs writes

# zram_errno_name MESSAGE: errno name from bash's "write error: TEXT".
zram_errno_name() {
	case $1 in
	*"Invalid argument"*) echo EINVAL ;;
	*"Device or resource busy"*) echo EBUSY ;;
	*"No such file or directory"*) echo ENOENT ;;
	*"Block device required"*) echo ENOTBLK ;;
	*"No such device or address"*) echo ENXIO ;;
	*"No such device"*) echo ENODEV ;;
	*"Resource temporarily unavailable"*) echo EAGAIN ;;
	*"Input/output error"*) echo EIO ;;
	*"No space left on device"*) echo ENOSPC ;;
	*"Numerical result out of range"*) echo ERANGE ;;
	*"Argument list too long"*) echo E2BIG ;;
	*"Cannot allocate memory"*) echo ENOMEM ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"Permission denied"*) echo EACCES ;;
	*"Operation not supported"*) echo EOPNOTSUPP ;;
	*) echo "UNKNOWN($1)" ;;
	esac
}

# zram_write ATTR VALUE: write VALUE plus a newline (as echo does) with a
# single write(); prints OK or the errno name.
zram_write() {
	local msg

	if msg=$({ printf '%s\n' "$2" >"$1"; } 2>&1); then
		echo OK
	else
		zram_errno_name "$msg"
	fi
}

# expect_errno ERRNO ATTR VALUE: the write fails with ERRNO (or OK).
expect_errno() {
	local got

	got=$(zram_write "$2" "$3")
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

# zram_state: the readable state of the device, to prove a write changed
# nothing (mm_stat carries mem_limit, which is write-only). Builtins only:
# forks are slow under TCG.
zram_state() {
	local a line

	for a in disksize initstate comp_algorithm backing_dev \
		max_comp_streams writeback_limit writeback_limit_enable \
		writeback_batch_size compressed_writeback bd_stat mm_stat; do
		[ -e "$ZRAM_SYS/$a" ] || continue
		read -r line <"$ZRAM_SYS/$a"
		printf '%s: %s\n' "$a" "$line"
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

# zram_wb_stat NAME: a value of debugfs wb_stat (writeback statistics of
# our driver), empty when there is none.
zram_wb_stat() {
	awk -v k="$1" '$1 == k { print $2 }' \
		"/sys/kernel/debug/zram/zram$ZRAM_ID/wb_stat" 2>/dev/null
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

# ------------------------------------------------------- data

# zram_fill_pages DEV FIRST N KIND: write N 4 KiB pages from page FIRST;
# KIND is random (incompressible), text (compressible, not same-filled)
# or zero (same-filled). O_DIRECT, so nothing stays in the page cache.
zram_fill_pages() {
	local dev=$1 first=$2 n=$3 kind=$4 src

	case $kind in
	random) src=/dev/urandom ;;
	zero) src=/dev/zero ;;
	text)
		zram_text_file "$n" || return 1
		src=$TEXT_FILE
		;;
	esac
	dd if="$src" of="$dev" bs=4096 seek="$first" count="$n" \
		iflag=fullblock oflag=direct conv=notrunc 2>/dev/null
}

# zram_text_file N: a file of N pages of distinct, compressible text;
# sets TEXT_FILE.
zram_text_file() {
	local f=/tmp/zram-text.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		awk -v n="$1" 'BEGIN {
			for (p = 0; p < n; p++)
				for (l = 0; l < 64; l++)
					printf "zram page %08d line %02d %s\n", p, l,
					       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		}' >"$f" || return 1
	fi
	TEXT_FILE=$f
}

# zram_words_file N: a file of N pages of words drawn from a vocabulary of
# 64 (fixed seed, skewed towards the first ones): each page compresses
# about 2:1 to 3:1 depending on the level, so levels and dictionaries
# make a difference to the compressed size. Sets WORDS_FILE.
zram_words_file() {
	local f=/tmp/zram-words.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		awk -v n="$1" 'BEGIN {
			srand(42)
			for (i = 0; i < 64; i++) {
				w = ""
				len = 2 + int(rand() * 9)
				for (j = 0; j < len; j++)
					w = w sprintf("%c", 97 + int(rand() * 26))
				voc[i] = w
			}
			for (left = n * 4096; left > 0; left -= length(w)) {
				w = voc[int(rand() * rand() * 64)] " "
				if (length(w) > left)
					w = substr(w, 1, left)
				printf "%s", w
			}
		}' >"$f" || return 1
	fi
	WORDS_FILE=$f
}

# zram_algorithms: the algorithms comp_algorithm lists, one per line.
zram_algorithms() {
	local a list

	read -r -a list <"$ZRAM_SYS/comp_algorithm"
	for a in "${list[@]}"; do
		a=${a#[}
		echo "${a%]}"
	done
}

# zram_has_algorithm NAME: comp_algorithm lists NAME.
zram_has_algorithm() {
	zram_algorithms | grep -qx -- "$1"
}

# zram_require_algorithm_params: skip unless the attribute exists.
zram_require_algorithm_params() {
	zram_attr_exists algorithm_params ||
		ktap_skip_all "no algorithm_params attribute"
}

# zram_setup_params ALG PARAMS SIZE: reset, select ALG, write PARAMS
# (may be empty) to algorithm_params, set disksize to SIZE.
zram_setup_params() {
	echo 1 >"$ZRAM_SYS/reset" || return 1
	echo "$1" >"$ZRAM_SYS/comp_algorithm" || return 1
	if [ -n "$2" ]; then
		echo "$2" >"$ZRAM_SYS/algorithm_params" || return 1
	fi
	echo "$3" >"$ZRAM_SYS/disksize"
}

# zram_store_file FILE: write FILE (whole pages) to the start of $ZRAM_DEV
# with O_DIRECT and read it back; prints compr_data_size from mm_stat, or
# fails when the data read back differs.
zram_store_file() {
	local pages=$(($(stat -c %s "$1") / 4096))

	dd if="$1" of="$ZRAM_DEV" bs=4096 count="$pages" oflag=direct \
		conv=notrunc 2>/dev/null || return 1
	if [ "$(zram_read_all "$ZRAM_DEV" "$pages")" != \
		"$(head -c $((pages * 4096)) "$1" | sha256sum | cut -d' ' -f1)" ]; then
		echo "# $1 read back differs" >&2
		return 1
	fi
	zram_field mm_stat 2
}

# zram_fill_fio DEV FIRST N: write N 4 KiB pages from page FIRST with the
# benchmark's data: fio's 50% compressible buffers (about 2 KiB each with
# lz4), a fixed seed, O_DIRECT.
zram_fill_fio() {
	fio --name=fill --filename="$1" --rw=write --bs=4k --direct=1 \
		--ioengine=psync --offset=$(($2 * 4096)) --size=$(($3 * 4096)) \
		--randseed=20261129 --buffer_compress_percentage=50 \
		--refill_buffers --buffer_compress_chunk=4k --eta=never \
		--output-format=terse >/dev/null 2>&1
}

# zram_read_all DEV [PAGES]: read the device (or its first PAGES pages)
# with O_DIRECT; prints the sha256.
zram_read_all() {
	local opts=(bs=64k)

	if [ -n "${2:-}" ]; then
		if [ $(($2 % 16)) -eq 0 ]; then
			opts=(bs=64k count=$(($2 / 16)))
		else
			opts=(bs=4096 count="$2")
		fi
	fi
	dd if="$1" "${opts[@]}" iflag=direct 2>/dev/null |
		sha256sum | cut -d' ' -f1
}

# zram_block_state_count PATTERN: slots in debugfs block_state whose flag
# column matches the awk regex PATTERN.
zram_block_state_file() {
	echo "/sys/kernel/debug/zram/zram$ZRAM_ID/block_state"
}

zram_block_state_count() {
	awk -v re="$1" '$3 ~ re { n++ } END { print n + 0 }' "$(zram_block_state_file)"
}

# zram_block_state_range FIRST LAST PATTERN: slots FIRST..LAST whose flag
# column matches the awk regex PATTERN.
zram_block_state_range() {
	awk -v a="$1" -v b="$2" -v re="$3" \
		'$1 >= a && $1 <= b && $3 ~ re { n++ } END { print n + 0 }' \
		"$(zram_block_state_file)"
}

# zram_require_block_state: skip unless debugfs has the device's
# block_state (CONFIG_ZRAM_MEMORY_TRACKING).
zram_require_block_state() {
	[ -r "$(zram_block_state_file)" ] ||
		ktap_skip_all "no debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING)"
}

zram_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# zram_fio_json FILE DIR KEY: a value from fio's JSON output (one job or
# group_reporting). DIR is job (top-level fields), read or write; KEY is a
# field of that level (error, short_ios, total_ios...) or SECT_FIELD with
# SECT slat/clat/lat (slat_mean, clat_p99 for the 99th percentile).
zram_fio_json() {
	awk -v want="$2.$3" '
	{
		match($0, /^ */)
		ind = RLENGTH
		line = substr($0, ind + 1)
		if (line !~ /^"[^"]*" : /)
			next
		k = line
		sub(/^"/, "", k)
		sub(/".*/, "", k)
		v = line
		sub(/^"[^"]*" : /, "", v)
		sub(/,$/, "", v)
	}
	ind == 6 {
		s = ""
		d = "job"
		if (v == "{" && k ~ /^(read|write|trim|sync)$/)
			d = k
		else
			val["job." k] = v
	}
	ind == 8 {
		s = ""
		if (v == "{" && k ~ /_ns$/)
			s = substr(k, 1, length(k) - 3)
		else
			val[d "." k] = v
	}
	ind == 10 && s != "" && v != "{" { val[d "." s "_" k] = v }
	ind == 12 && s != "" && k == "99.000000" { val[d "." s "_p99"] = v }
	END { print val[want] }' "$1"
}

# zram_check_input_rows PREFIX ROW...: one KTAP line per "attr|input|errno"
# row: writing input to the attribute gives that errno (OK: accepted) and
# leaves zram_state unchanged. PREFIX starts each description.
zram_check_input_rows() {
	local prefix=$1 row attr input want desc before

	shift
	for row in "$@"; do
		IFS='|' read -r attr input want <<<"$row"
		desc="$prefix$attr '${input:0:24}' -> $want, state unchanged"
		if ! zram_attr_exists "$attr"; then
			ktap_skip "$desc" "no $attr attribute"
			continue
		fi
		before=$(zram_state)
		if expect_errno "$want" "$ZRAM_SYS/$attr" "$input" &&
			[ "$(zram_state)" = "$before" ]; then
			ktap_ok "$desc"
		else
			diff <(echo "$before") <(zram_state) | sed 's/^/# /'
			ktap_not_ok "$desc"
		fi
	done
}

# ------------------------------------------------------- recompression

# zram_require_recompress: skip unless the device has recomp_algorithm
# and recompress (CONFIG_ZRAM_MULTI_COMP; Debian's stock module lacks it).
zram_require_recompress() {
	if ! zram_attr_exists recompress || ! zram_attr_exists recomp_algorithm; then
		ktap_skip_all "no recompression (CONFIG_ZRAM_MULTI_COMP)"
	fi
}

# zram_recomp_prologue: what every recompression test needs: root, the
# module, a fresh device with recompression, and an algorithm pair (see
# zram_recomp_algorithms); skips the test without them.
zram_recomp_prologue() {
	zram_require_basic
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_recompress
	zram_recomp_algorithms || ktap_skip_all "no lz4/lzo plus zstd/deflate"
}

# zram_recomp_algorithms: pick a primary algorithm without an entropy
# coder (lz4, lzo) and a secondary one with one (zstd, deflate); sets
# RECOMP_PRIMARY and RECOMP_SECONDARY, fails when comp_algorithm lacks
# either kind.
zram_recomp_algorithms() {
	local a

	RECOMP_PRIMARY=''
	RECOMP_SECONDARY=''
	for a in lz4 lzo-rle lzo; do
		if zram_has_algorithm "$a"; then
			RECOMP_PRIMARY=$a
			break
		fi
	done
	for a in zstd deflate; do
		if zram_has_algorithm "$a"; then
			RECOMP_SECONDARY=$a
			break
		fi
	done
	[ -n "$RECOMP_PRIMARY" ] && [ -n "$RECOMP_SECONDARY" ]
}

# zram_recomp_init SIZE [BDEV]: reset, BDEV as the backing device (when
# given), RECOMP_PRIMARY as the algorithm, RECOMP_SECONDARY as priority 1,
# disksize SIZE.
zram_recomp_init() {
	echo 1 >"$ZRAM_SYS/reset" || return 1
	if [ -n "${2:-}" ]; then
		echo "$2" >"$ZRAM_SYS/backing_dev" || return 1
	fi
	echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm" &&
		echo "algo=$RECOMP_SECONDARY" >"$ZRAM_SYS/recomp_algorithm" &&
		echo "$1" >"$ZRAM_SYS/disksize"
}

# zram_hex_file N: a file of N pages of random characters from 16 symbols
# (4 bits of entropy per byte). lz4 and lzo find almost no repeats, so
# every page is stored huge; zstd and deflate code it into about half a
# page, and never into less than 2048 bytes. Sets HEX_FILE.
zram_hex_file() {
	local f=/tmp/zram-hex.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		tr -dc 'a-p' </dev/urandom | head -c $(($1 * 4096)) >"$f" ||
			return 1
	fi
	HEX_FILE=$f
}

# zram_mm_huge: huge_pages, the 8th field of mm_stat.
zram_mm_huge() { zram_field mm_stat 8; }

# zram_mm_compr: compr_data_size, the 2nd field of mm_stat (bytes).
zram_mm_compr() { zram_field mm_stat 2; }

# ------------------------------------------- io_uring verify cycles

# zram_uring_cycle DIR DEPTH SIZE WB: one cycle of the io_uring job that
# io_uring users run: random O_DIRECT writes of 4-64 KiB (half
# compressible, crc32c headers) over SIZE bytes of $ZRAM_DEV, then
# everything marked idle and written back to the backing device, caches
# dropped, and the same job again with --verify_only, which reads every
# written block back and checks it. WB=1 keeps idle writebacks running in
# a loop during both fio runs. fio's output goes to DIR/{write,verify}.err.
# Sets UR_RC (0 when both fio runs exited 0), UR_EAGAIN (1 when an EAGAIN
# reached fio) and UR_WB (pages written back during the cycle).
zram_uring_cycle() {
	local dir=$1 depth=$2 size=$3 wb=$4 stop=$1/stop wb_pid='' before
	local job=(--name=uring --filename="$ZRAM_DEV" --ioengine=io_uring
		--direct=1 --rw=randwrite --bsrange=4k-64k --iodepth="$depth"
		--size="$size" --verify=crc32c --buffer_compress_percentage=50
		--refill_buffers --randrepeat=1 --verify_state_save=0)

	before=$(bd_writes)
	rm -f "$stop"
	if [ "$wb" = 1 ]; then
		while [ ! -e "$stop" ]; do
			echo all >"$ZRAM_SYS/idle" 2>/dev/null
			echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
			sleep 0.1
		done &
		wb_pid=$!
	fi
	UR_RC=0
	(cd "$dir" && fio "${job[@]}" --do_verify=0) >"$dir/write.err" 2>&1 ||
		UR_RC=1
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
	zram_drop_caches
	(cd "$dir" && fio "${job[@]}" --verify_only) >"$dir/verify.err" 2>&1 ||
		UR_RC=1
	if [ -n "$wb_pid" ]; then
		touch "$stop"
		wait "$wb_pid"
	fi
	UR_EAGAIN=0
	if grep -q -E 'Resource temporarily unavailable|err=11|error=11' \
		"$dir/write.err" "$dir/verify.err"; then
		UR_EAGAIN=1
	fi
	UR_WB=$(($(bd_writes) - before))
	if [ "$UR_RC" != 0 ]; then
		grep -h -E 'error|err=|verify' "$dir/write.err" "$dir/verify.err" |
			head -5 | sed 's/^/# fio: /'
	fi
}

# zram_uring_cycles BACKING [SIZE]: the cycles of the nowait verify tests
# over backing device BACKING (already created), SIZE bytes each (fio
# syntax, default 48M): iodepth 16 twice, 1 and 32,
# then 16 with writebacks running meanwhile. Two KTAP lines per cycle:
# fio saw no error and every block verified; no EAGAIN reached fio.
zram_uring_cycles() {
	local size=${2:-48M} dir spec depth wb n=0

	dir=$(mktemp -d /tmp/zram-uring.XXXXXX) || ktap_bail "no /tmp"
	zram_defer rm -rf "$dir"
	echo "$1" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
	zram_init 256M || ktap_bail "cannot set disksize"
	for spec in 16:0 16:0 1:0 32:0 16:1; do
		depth=${spec%:*}
		wb=${spec#*:}
		n=$((n + 1))
		zram_uring_cycle "$dir" "$depth" "$size" "$wb"
		ktap_info "cycle $n (iodepth $depth, writeback loop $wb):" \
			"$UR_WB pages written back"
		ktap_eq "cycle $n: fio ran without error, every block verified" \
			"$UR_RC" 0
		ktap_eq "cycle $n: no EAGAIN reached the application" \
			"$UR_EAGAIN" 0
	done
}

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

# zram_require_memcg: the cgroup v2 hierarchy (mounted on /sys/fs/cgroup
# when it is not mounted yet) with the memory controller enabled for
# children; sets CGROUP_ROOT.
CGROUP_ROOT=''
zram_require_memcg() {
	local root

	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$root" ]; then
		root=/sys/fs/cgroup
		mkdir -p "$root" && mount -t cgroup2 cgroup2 "$root" || return 1
		zram_defer umount "$root"
	fi
	grep -qw memory "$root/cgroup.controllers" || return 1
	if ! grep -qw memory "$root/cgroup.subtree_control"; then
		echo +memory >"$root/cgroup.subtree_control" || return 1
	fi
	CGROUP_ROOT=$root
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

# ------------------------------------------ one behaviour per script
# Helpers of the tests that check one behaviour each (kept together here).

# ktap_run_cases CASE...: the plan is the number of cases; each CASE (a
# function) runs in turn and prints exactly one result line, then the test
# finishes. A case that prints no result is reported as failed, one that
# prints several breaks the plan, which ktap_finish reports.
ktap_run_cases() {
	local c n

	ktap_plan $#
	for c in "$@"; do
		n=$ktap_num
		"$c"
		[ "$ktap_num" -gt "$n" ] || ktap_not_ok "$c printed no result"
	done
	ktap_finish
}

# zram_wb_attach DEV [SIZE]: a fresh zram device with writeback support
# and DEV as its backing device, initialized to SIZE (zram_init syntax)
# when given. Skips without writeback support; fails when the driver
# refuses DEV or SIZE.
zram_wb_attach() {
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
	echo "$1" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev $1"
	if [ -n "${2:-}" ]; then
		zram_init "$2" || ktap_bail "cannot set disksize $2"
	fi
}

# zram_wb_ready SIZE_MB [NULLB_ATTR=VALUE...]: the writeback prologue: root,
# the module, a SIZE_MB null_blk (attributes as for zram_nullb) as the
# backing device of a fresh zram device of SIZE_MB, initialized (see
# zram_wb_attach). Sets what zram_add and zram_nullb set.
zram_wb_ready() {
	local size=$1

	shift
	zram_require_basic
	zram_require_nullb
	zram_nullb "$size" "$@" || ktap_skip_all "cannot create null_blk"
	zram_wb_attach "$NULLB" "${size}M"
}

# zram_wb_fill_kinds: pages 0-31 incompressible (huge), 32-63
# compressible, 64-71 same-filled (zero); prints the sha256 of pages 0-71.
zram_wb_fill_kinds() {
	zram_fill_pages "$ZRAM_DEV" 0 32 random &&
		zram_fill_pages "$ZRAM_DEV" 32 32 text &&
		zram_fill_pages "$ZRAM_DEV" 64 8 zero || return 1
	zram_read_all "$ZRAM_DEV" 72
}

# zram_page_sum N: sha256 of page N of $ZRAM_DEV (O_DIRECT).
zram_page_sum() {
	dd if="$ZRAM_DEV" bs=4096 skip="$1" count=1 iflag=direct 2>/dev/null |
		sha256sum | cut -d' ' -f1
}

# zram_wb_probe VALUE: the writeback syntax VALUE exists (newer ABI): its
# write does not fail with EINVAL. Probe on slots that hold nothing, so
# the probe writes nothing back.
zram_wb_probe() {
	[ "$(zram_write "$ZRAM_SYS/writeback" "$1")" != EINVAL ]
}

# zram_bdev_refused DESC ERRNO PATH: one KTAP line: writing PATH to
# backing_dev fails with ERRNO and backing_dev still reads "none".
zram_bdev_refused() {
	if expect_errno "$2" "$ZRAM_SYS/backing_dev" "$3"; then
		ktap_eq "$1 -> $2, backing_dev none" "$(cat "$ZRAM_SYS/backing_dev")" none
	else
		ktap_not_ok "$1 -> $2, backing_dev none"
	fi
}

# RWF_NOWAIT reads with fio (pvsync2 --nowait=1, O_DIRECT, 4 KiB blocks,
# crc32c verify headers). zram_pv_init makes the work folder; the fio
# JSON output of the last job is $ZRAM_PV_JSON.
zram_pv_init() {
	ZRAM_PV_WORK=$(mktemp -d /tmp/zram-nowait.XXXXXX) || ktap_skip_all "no /tmp"
	zram_defer rm -rf "$ZRAM_PV_WORK"
	ZRAM_PV_JSON=$ZRAM_PV_WORK/fio.json
}

# zram_pv_job DEV NAME OFFSET SIZE [FIO_OPTION...]: one fio job, writes by
# default; fio's exit status.
zram_pv_job() {
	local dev=$1 name=$2 offset=$3 size=$4

	shift 4
	(cd "$ZRAM_PV_WORK" && fio --name="$name" --filename="$dev" \
		--ioengine=pvsync2 --direct=1 --rw=write --bs=4k \
		--offset="$offset" --size="$size" \
		--verify=crc32c --verify_interval=4k --do_verify=0 \
		--verify_state_save=0 --output-format=json \
		--output="$ZRAM_PV_JSON" "$@" >"$ZRAM_PV_WORK/fio.err" 2>&1)
}

# zram_pv_json DIR KEY: a value of the last job's JSON (see zram_fio_json).
zram_pv_json() {
	zram_fio_json "$ZRAM_PV_JSON" "$1" "$2"
}

# zram_pv_verify DEV NAME OFFSET SIZE [FIO_OPTION...]: read back and check
# what job NAME wrote there; sets PV_VERIFIED (reads issued).
zram_pv_verify() {
	local rc

	zram_pv_job "$@" --rw=read --do_verify=1
	rc=$?
	PV_VERIFIED=$(zram_pv_json read total_ios)
	return "$rc"
}

# zram_pv_verify_fails ...: zram_pv_verify's arguments; it must fail
# (proves that fio checks the data).
zram_pv_verify_fails() {
	! zram_pv_verify "$@"
}

# zram_pv_nowait_read DEV NAME OFFSET SIZE [FIO_OPTION...]: verify the data
# of job NAME with RWF_NOWAIT reads; an EAGAIN is counted (total_err) and
# the read skipped, any other error ends fio. Sets PV_ERR (first error: 0,
# or 11 for EAGAIN), PV_EAGAINS, PV_SHORT, PV_VERIFIED (EAGAIN included).
zram_pv_nowait_read() {
	local dev=$1 name=$2 offset=$3 size=$4

	shift 4
	zram_pv_verify "$dev" "$name" "$offset" "$size" --nowait=1 \
		--continue_on_error=read --ignore_error=EAGAIN "$@"
	PV_ERR=$(zram_pv_json job error)
	PV_EAGAINS=$(zram_pv_json job total_err)
	PV_SHORT=$(zram_pv_json read short_ios)
	grep -v -i 'Resource temporarily' "$ZRAM_PV_WORK/fio.err" | head -5 |
		sed 's/^/# fio: /'
	ktap_info "RWF_NOWAIT reads: error $PV_ERR, EAGAIN $PV_EAGAINS," \
		"short $PV_SHORT, issued $PV_VERIFIED"
}

# zram_pv_nowait_ok COUNT: the last zram_pv_nowait_read issued COUNT
# reads; each got its data (verified) or EAGAIN, none was short or failed
# otherwise.
zram_pv_nowait_ok() {
	case $PV_ERR in
	0 | 11) ;;
	*) return 1 ;;
	esac
	[ "$PV_SHORT" = 0 ] && [ "$PV_VERIFIED" = "$1" ]
}

# zram_pv_all_data COUNT: the last zram_pv_nowait_read issued COUNT reads
# and every one returned its data: no error, no EAGAIN, no short read.
zram_pv_all_data() {
	[ "$PV_ERR" = 0 ] && [ "$PV_EAGAINS" = 0 ] && [ "$PV_SHORT" = 0 ] &&
		[ "$PV_VERIFIED" = "$1" ]
}

# zram_pv_probe OFFSET: one RWF_NOWAIT read of the page at OFFSET (a slot
# in RAM or empty) of $ZRAM_DEV; sets PV_NOWAIT to 1 (served),
# 0 (EOPNOTSUPP: no BLK_FEAT_NOWAIT, stock 6.12) or -1 (any other error,
# in PV_PROBE_ERR).
zram_pv_probe() {
	zram_pv_job "$ZRAM_DEV" probe "$1" 4k --rw=read --nowait=1 --verify=0
	PV_PROBE_ERR=$(zram_pv_json job error)
	case $PV_PROBE_ERR in
	0) PV_NOWAIT=1 ;;
	95) PV_NOWAIT=0 ;;
	*) PV_NOWAIT=-1 ;;
	esac
}

# zram_pv_need_nowait DESC: true when the probe found nowait support;
# otherwise the result line of check DESC: a skip where zram refuses
# RWF_NOWAIT (stock 6.12), a failure when the probe got another error.
zram_pv_need_nowait() {
	case $PV_NOWAIT in
	1) return 0 ;;
	0) ktap_skip "$1" "RWF_NOWAIT -> EOPNOTSUPP: no BLK_FEAT_NOWAIT (stock 6.12)" ;;
	*) ktap_not_ok "$1 (RWF_NOWAIT probe: error '$PV_PROBE_ERR')" ;;
	esac
	return 1
}

# zram_pv_wb_setup BACKING: the nowait read tests' device: a fresh zram
# device over BACKING (16M), pages 0-63 written by job "wb" and written
# back, pages 64-127 written by job "ram" and resident.
zram_pv_wb_setup() {
	zram_wb_attach "$1" 16M
	zram_pv_job "$ZRAM_DEV" wb 0 256k || ktap_bail "cannot write pages 0-63"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	zram_pv_job "$ZRAM_DEV" ram 256k 256k || ktap_bail "cannot write pages 64-127"
}

# zram_pv_nonowait_dev: a backing device without nowait support: dm-delay
# (no DM_TARGET_NOWAIT) with no delay over a 16 MiB null_blk; sets DM.
# PV_DM_ERR is the error of an RWF_NOWAIT read of it (95: refused).
zram_pv_nonowait_dev() {
	zram_require_dm
	modprobe dm-delay >/dev/null 2>&1
	zram_nullb 16 || ktap_skip_all "cannot create null_blk"
	zram_dm delay "0 $(zram_sectors "$NULLB") delay $NULLB 0 0" ||
		ktap_skip_all "cannot create a dm-delay device"
	zram_pv_job "$DM" probe-dm 0 4k --rw=read --nowait=1 --verify=0
	PV_DM_ERR=$(zram_pv_json job error)
	ktap_info "RWF_NOWAIT read of $DM: error $PV_DM_ERR"
}

# ------------------------------------------------------- fault injection
# (debugfs: CONFIG_FAULT_INJECTION_DEBUG_FS, and the stack filter of
# CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, so failures land in zram)

ZRAM_FI=/sys/kernel/debug
FI_TIMES=1000000
FI_KINDS=()

# zram_require_fault_injection KIND...: skip the test unless these fault
# attributes (failslab, fail_page_alloc, fail_make_request) are in debugfs.
zram_require_fault_injection() {
	local k

	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug >/dev/null 2>&1
	for k in "$@"; do
		[ -d "$ZRAM_FI/$k" ] ||
			ktap_skip_all "no $k fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS)"
		case $k in
		failslab | fail_page_alloc)
			[ -e "$ZRAM_FI/$k/require-start" ] ||
				ktap_skip_all "no fault injection stack filter" \
					"(CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
			;;
		esac
	done
}

# zram_fi_set KIND ATTR VALUE: set a fault attribute; the old value comes
# back at exit.
zram_fi_set() {
	local f=$ZRAM_FI/$1/$2 old

	read -r old <"$f" || return 1
	zram_defer zram_fi_restore "$f" "$old"
	echo "$3" >"$f"
}

zram_fi_restore() {
	echo "$2" >"$1"
}

# zram_code_range [MODULE]: "START END" (hex) of a module's code (default
# zram), from kallsyms: its first function up to the next symbol after
# its last one. Kernel addresses all have 16 digits, so they compare as
# strings.
zram_code_range() {
	awk -v mod="[${1:-zram}]" '
	$4 == mod && $2 ~ /^[tT]$/ {
		if (lo == "" || $1 < lo)
			lo = $1
		if ($1 > hi)
			hi = $1
	}
	{ addr[NR] = $1 }
	END {
		if (lo == "")
			exit 1
		for (i = 1; i <= NR; i++)
			if (addr[i] > hi && (end == "" || addr[i] < end))
				end = addr[i]
		if (end == "")
			exit 1
		print lo, end
	}' /proc/kallsyms
}

# zram_fi_alloc_setup [MODULE]: failslab and fail_page_alloc fail only
# allocations made with zram code on the stack (order 0 and sleeping ones
# too), and none with MODULE's code on it (the backing device's driver,
# which zram calls to submit its bios: its allocations are not zram's);
# never by themselves (probability 0): zram_fi_nth or zram_fi_random then
# choose which. Their "times" count down from FI_TIMES with each injected
# failure (zram_fi_count). Each failure is logged with its stack
# (zram_fi_last_stack).
zram_fi_alloc_setup() {
	local range reject="0 0" k

	range=$(zram_code_range) || return 1
	if [ -n "${1:-}" ]; then
		reject=$(zram_code_range "$1") || return 1
	fi
	for k in failslab fail_page_alloc; do
		zram_fi_set "$k" probability 0 &&
			zram_fi_set "$k" interval 1 &&
			zram_fi_set "$k" times "$FI_TIMES" &&
			zram_fi_set "$k" space 0 &&
			zram_fi_set "$k" verbose 2 &&
			zram_fi_set "$k" task-filter N &&
			zram_fi_set "$k" stacktrace-depth 32 &&
			zram_fi_set "$k" require-start "0x${range% *}" &&
			zram_fi_set "$k" require-end "0x${range#* }" &&
			zram_fi_set "$k" reject-start "0x${reject% *}" &&
			zram_fi_set "$k" reject-end "0x${reject#* }" &&
			zram_fi_set "$k" ignore-gfp-wait N || return 1
	done
	zram_fi_set fail_page_alloc min-order 0 &&
		zram_fi_set fail_page_alloc ignore-gfp-highmem N || return 1
	FI_KINDS=(failslab fail_page_alloc)
	ktap_info "allocation faults limited to zram code ${range% *}-${range#* }" \
		"${1:+(not under $1 code ${reject% *}-${reject#* })}"
}

# zram_fi_last_stack: the last injected failure's report in dmesg (kind,
# task and stack), as KTAP diagnostics.
zram_fi_last_stack() {
	dmesg | tac | sed -n '1,/FAULT_INJECTION: forcing a failure/p' | tac |
		sed -n '1,/<\/TASK>/p' | head -40 | sed 's/^/# /'
}

# zram_fi_count: sets FI_COUNT to the failures injected so far (since the
# setup) by the kinds set up. No output: call it without $(...), forks are
# slow on the debug kernel.
zram_fi_count() {
	local k t

	FI_COUNT=0
	for k in "${FI_KINDS[@]}"; do
		read -r t <"$ZRAM_FI/$k/times"
		FI_COUNT=$((FI_COUNT + FI_TIMES - t))
	done
}

# zram_fi_random PERCENT: from now on the tasks marked with make-it-fail
# (zram_fi_task) fail PERCENT% of their allocations in zram; 0 stops it.
zram_fi_random() {
	local k filter=Y

	[ "$1" -gt 0 ] || filter=N
	for k in "${FI_KINDS[@]}"; do
		echo "$filter" >"$ZRAM_FI/$k/task-filter" &&
			echo "$1" >"$ZRAM_FI/$k/probability" || return 1
	done
}

# zram_fi_task CMD...: run CMD in a new process marked make-it-fail.
zram_fi_task() {
	(
		echo 1 >/proc/self/make-it-fail || exit 1
		exec "$@"
	)
}

# zram_fi_nth_list: the N to try in a fail-nth sweep: every N up to 8,
# then ever sparser up to ZRAM_FI_MAX_N (default 256), so that the first
# allocations and late ones both fail, in a few dozen runs. A sweep stops
# at the first N the operation does not reach.
zram_fi_nth_list() {
	local n=1 max=${ZRAM_FI_MAX_N:-256}

	while [ "$n" -le "$max" ]; do
		echo "$n"
		if [ "$n" -lt 8 ]; then
			n=$((n + 1))
		else
			n=$((n + n / 2))
		fi
	done
}

# zram_fi_nth N CMD...: run CMD (a function or builtin: it runs in this
# shell, whose task is counted) with the Nth allocation in zram code of
# this task failing. Sets FI_RC to CMD's status and FI_LEFT to what
# remains of the count (0: the failure was injected; N itself: CMD made no
# allocation in zram).
zram_fi_nth() {
	local n=$1

	shift
	echo "$n" >/proc/self/fail-nth || return 1
	"$@"
	FI_RC=$?
	read -r FI_LEFT </proc/self/fail-nth
	echo 0 >/proc/self/fail-nth
}

# zram_fi_nth_write ATTR VALUE N: write VALUE to ATTR (as zram_write)
# with the Nth allocation in zram failing; sets FI_RESULT to OK or the
# errno name, and FI_LEFT. Not in $(...): the write must be made by this
# shell's own task, whose counter it is.
zram_fi_nth_write() {
	local err=/tmp/zram-fi-write.$$

	zram_fi_nth "$3" zram_fi_builtin_write "$1" "$2" 2>"$err"
	if [ "$FI_RC" = 0 ]; then
		FI_RESULT=OK
	else
		FI_RESULT=$(zram_errno_name "$(cat "$err")")
	fi
	rm -f "$err"
}

zram_fi_builtin_write() {
	printf '%s\n' "$2" >"$1"
}

# zram_fail_disk DEV PERCENT: bios to DEV fail (fail_make_request) with
# PERCENT% probability, for every task; 0 stops it.
zram_fail_disk() {
	local sys

	sys=/sys/class/block/$(basename "$(readlink -f "$1")")
	if [ "$2" -gt 0 ]; then
		zram_fi_set fail_make_request probability "$2" &&
			zram_fi_set fail_make_request interval 1 &&
			zram_fi_set fail_make_request times -1 &&
			zram_fi_set fail_make_request verbose 0 &&
			zram_fi_set fail_make_request task-filter N &&
			zram_defer zram_fi_restore "$sys/make-it-fail" 0 &&
			echo 1 >"$sys/make-it-fail"
	else
		echo 0 >"$sys/make-it-fail"
	fi
}

# zram_blocks_consistent: bd_count equals the slots block_state shows as
# written back (true when there is no block_state to compare with).
zram_blocks_consistent() {
	[ -r "$(zram_block_state_file)" ] || return 0
	[ "$(zram_block_state_count w)" = "$(bd_count)" ]
}
