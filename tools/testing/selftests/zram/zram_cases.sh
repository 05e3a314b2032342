# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Helpers of the tests that check one behaviour each: the writeback
# device prologue, backing_dev refusals, RWF_NOWAIT fio jobs.

# ------------------------------------------ one behaviour per script
# Helpers of the tests that check one behaviour each (kept together here).

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

# zram_packed_attach DEV SIZE: a fresh zram device (zram_add) with
# compressed_writeback on, DEV as its backing device, initialized to SIZE;
# skips the test when the driver has no writeback or no packing.
zram_packed_attach() {
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
	zram_require_packed
	echo 1 >"$ZRAM_SYS/compressed_writeback"
	echo "$1" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev $1"
	zram_init "$2" || ktap_bail "cannot set disksize $2"
}

# zram_wb_device: the prologue of a writeback test up to its backing
# device: root, the module, null_blk, and a fresh zram device (zram_add)
# whose driver has writeback; skips the test when one is missing.
zram_wb_device() {
	zram_require_basic
	zram_require_nullb
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_writeback
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

# zram_wb_background MIN_WRITES OUT: start `echo idle > writeback` in the
# background, its result (zram_write's) in file OUT, and wait until it has
# written MIN_WRITES 4 KiB blocks or ended. Sets zram_wb_pid, and
# zram_wb_running to 1 when it is still running, else 0.
zram_wb_background() {
	zram_write "$ZRAM_SYS/writeback" idle >"$2" &
	zram_wb_pid=$!
	while [ "$(bd_writes)" -lt "$1" ] && kill -0 "$zram_wb_pid" 2>/dev/null; do
		sleep 0.02
	done
	zram_wb_running=0
	if kill -0 "$zram_wb_pid" 2>/dev/null; then
		zram_wb_running=1
	fi
}

# zram_wb_fill_kinds: pages 0-31 incompressible (huge), 32-63
# compressible, 64-71 same-filled (zero); prints the sha256 of pages 0-71.
zram_wb_fill_kinds() {
	zram_fill_pages "$ZRAM_DEV" 0 32 random &&
		zram_fill_pages "$ZRAM_DEV" 32 32 text &&
		zram_fill_pages "$ZRAM_DEV" 64 8 zero || return 1
	zram_read_all "$ZRAM_DEV" 72
}

# zram_page_sum N [COUNT]: sha256 of COUNT pages (default 1) of $ZRAM_DEV
# from page N on (O_DIRECT).
zram_page_sum() {
	dd if="$ZRAM_DEV" bs=4096 skip="$1" count="${2:-1}" iflag=direct \
		2>/dev/null | sha256sum | cut -d' ' -f1
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

# zram_pv_wb_setup BACKING [packed]: the nowait read tests' device: a
# fresh zram device over BACKING (16M), pages 0-63 written by job "wb" and
# written back, pages 64-127 written by job "ram" and resident. With
# "packed", compressed_writeback is on and pages 0-63 are half
# compressible: they are written back as packed objects.
zram_pv_wb_setup() {
	local pv_data=()

	if [ "${2:-}" = packed ]; then
		zram_packed_attach "$1" 16M
		pv_data=(--buffer_compress_percentage=50 --refill_buffers
			--buffer_compress_chunk=4k)
	else
		zram_wb_attach "$1" 16M
	fi
	zram_pv_job "$ZRAM_DEV" wb 0 256k "${pv_data[@]}" ||
		ktap_bail "cannot write pages 0-63"
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback"
	zram_pv_job "$ZRAM_DEV" ram 256k 256k || ktap_bail "cannot write pages 64-127"
}

# zram_pv_wb_count [packed]: how many of pages 0-63 zram_pv_wb_setup
# (with or without "packed") left on the backing device: its blocks, or
# its packed objects.
zram_pv_wb_count() {
	if [ "${1:-}" = packed ]; then
		zram_wb_stat packed_objects
	else
		bd_count
	fi
}

# zram_dm_linear_dev: dm-linear over a 16 MiB null_blk completing from a
# timer (irqmode=2), whose table a test may replace; sets NULLB, DM,
# DM_NAME and DM_LINEAR (the linear table).
zram_dm_linear_dev() {
	zram_require_dm
	zram_nullb 16 irqmode=2 completion_nsec=20000 ||
		ktap_skip_all "cannot create a null_blk with timer completions"
	DM_LINEAR="0 $(zram_sectors "$NULLB") linear $NULLB 0"
	zram_dm lin "$DM_LINEAR" ||
		ktap_skip_all "cannot create a dm-linear device"
}

# zram_pv_suspendable_dev: a backing device with nowait support that can
# be suspended: zram_dm_linear_dev. A suspended dm device fails REQ_NOWAIT
# bios with BLK_STS_AGAIN and holds the others until it resumes.
zram_pv_suspendable_dev() {
	zram_dm_linear_dev
}

# zram_delay_dev [NULLB_ATTR=VALUE...]: a backing device without nowait
# support: dm-delay (no DM_TARGET_NOWAIT) with no delay over a 16 MiB
# null_blk (attributes as for zram_nullb); sets NULLB and DM.
# shellcheck disable=SC2120 # the tests pass the attributes
zram_delay_dev() {
	zram_require_dm
	modprobe dm-delay >/dev/null 2>&1
	zram_nullb 16 "$@" || ktap_skip_all "cannot create null_blk $*"
	zram_dm delay "0 $(zram_sectors "$NULLB") delay $NULLB 0 0" ||
		ktap_skip_all "cannot create a dm-delay device"
}

# zram_pv_nonowait_dev: zram_delay_dev over a plain null_blk. PV_DM_ERR is
# the error of an RWF_NOWAIT read of it (95: refused).
zram_pv_nonowait_dev() {
	# shellcheck disable=SC2119 # no attributes: a plain null_blk
	zram_delay_dev
	zram_pv_job "$DM" probe-dm 0 4k --rw=read --nowait=1 --verify=0
	PV_DM_ERR=$(zram_pv_json job error)
	ktap_info "RWF_NOWAIT read of $DM: error $PV_DM_ERR"
}
