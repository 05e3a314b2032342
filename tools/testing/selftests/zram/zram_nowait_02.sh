#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# preadv2(RWF_NOWAIT) on an O_DIRECT zram fd (fio pvsync2 --nowait=1):
# a slot in RAM returns its data; a slot written back to a backing device
# without nowait support (dm-delay over null_blk) returns EAGAIN or its
# data, never a short count or EIO, and an EAGAIN leaves the slot as it
# was; a slot on a backing device with nowait support (null_blk) returns
# its data.
#
# Feature probe: stock 6.12 zram lacks BLK_FEAT_NOWAIT, so the block layer
# refuses RWF_NOWAIT with EOPNOTSUPP; that documented difference skips the
# checks that need nowait support.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_dm
modprobe dm-delay >/dev/null 2>&1

work=$(mktemp -d /tmp/zram-nowait.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
json=$work/fio.json

# job DEV NAME OFFSET SIZE [FIO_OPTION...]: pvsync2 O_DIRECT 4 KiB I/O with
# crc32c verify headers; writes by default. JSON in $json; fio's status.
job() {
	local dev=$1 name=$2 offset=$3 size=$4

	shift 4
	(cd "$work" && fio --name="$name" --filename="$dev" --ioengine=pvsync2 \
		--direct=1 --rw=write --bs=4k --offset="$offset" --size="$size" \
		--verify=crc32c --verify_interval=4k --do_verify=0 \
		--verify_state_save=0 \
		--output-format=json --output="$json" "$@" >"$work/fio.err" 2>&1)
}

# verify DEV NAME OFFSET SIZE [FIO_OPTION...]: read back and check what job
# NAME wrote there (a read job with verify checks every block it reads);
# the number of reads is in $VERIFIED.
verify() {
	job "$@" --rw=read --do_verify=1
	local rc=$?

	VERIFIED=$(zram_fio_json "$json" read total_ios)
	return "$rc"
}

# verify_fails ...: verify's arguments; it must fail (proves fio checks).
# shellcheck disable=SC2317 # called through ktap_check
verify_fails() {
	! verify "$@"
}

# nowait_read DEV NAME OFFSET SIZE [FIO_OPTION...]: verify the data written
# by job NAME with RWF_NOWAIT reads. EAGAIN is counted (total_err) and the
# read skipped; any other error ends fio with it. Sets ERR (the first
# error, 0 or 11 for EAGAIN when fio went on), EAGAINS, SHORT, VERIFIED
# (reads issued, EAGAIN included).
nowait_read() {
	local dev=$1 name=$2 offset=$3 size=$4

	shift 4
	verify "$dev" "$name" "$offset" "$size" --nowait=1 \
		--continue_on_error=read --ignore_error=EAGAIN "$@"
	ERR=$(zram_fio_json "$json" job error)
	EAGAINS=$(zram_fio_json "$json" job total_err)
	SHORT=$(zram_fio_json "$json" read short_ios)
	sed 's/^/# fio: /' "$work/fio.err" | grep -v -i 'Resource temporarily' | head -5
	[ "$ERR" = 0 ] || [ "$ERR" = 11 ] || return 1
	[ "$SHORT" = 0 ]
}

# nowait_ok COUNT: the last nowait_read issued COUNT reads, each got its
# data (verified) or EAGAIN, none was short or failed otherwise.
# shellcheck disable=SC2317 # called through ktap_check
nowait_ok() {
	case $ERR in
	0 | 11) ;;
	*) return 1 ;;
	esac
	[ "$SHORT" = 0 ] && [ "$VERIFIED" = "$1" ]
}

# all_zero VALUE...: every VALUE is 0 (called through ktap_check)
# shellcheck disable=SC2317
all_zero() {
	local v

	for v in "$@"; do
		[ "$v" = 0 ] || return 1
	done
}

# slot_state N: debugfs block_state line of slot N (access time, flags).
slot_state() {
	awk -v n="$1" '$1 == n' "$(zram_block_state_file)"
}

# Backing device without nowait support: dm-delay (no DM_TARGET_NOWAIT)
# with no delay over null_blk. Probe it: RWF_NOWAIT must be refused.
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
slow_nullb=$NULLB
zram_dm delay "0 $(zram_sectors "$slow_nullb") delay $slow_nullb 0 0" ||
	ktap_skip_all "cannot create a dm-delay device"
nonowait_dev=$DM
job "$nonowait_dev" probe-dm 0 4k --rw=read --nowait=1 --verify=0
dm_nowait_err=$(zram_fio_json "$json" job error)
ktap_info "RWF_NOWAIT read of $nonowait_dev: error $dm_nowait_err"

zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
echo "$nonowait_dev" >"$ZRAM_SYS/backing_dev" ||
	ktap_skip_all "cannot use $nonowait_dev as backing_dev"
zram_init 16M || ktap_skip_all "cannot set disksize"

ktap_plan 10

# pages 0-63 written back, pages 64-127 in RAM
job "$ZRAM_DEV" wb 0 256k || ktap_bail "cannot write pages 0-63"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
job "$ZRAM_DEV" ram 256k 256k || ktap_bail "cannot write pages 64-127"
ktap_eq "setup: pages 0-63 on the backing device" "$(bd_count)" 64

# Feature probe: one RWF_NOWAIT read of a slot in RAM.
job "$ZRAM_DEV" probe 256k 4k --rw=read --nowait=1 --verify=0
probe_err=$(zram_fio_json "$json" job error)
case $probe_err in
0) nowait=1 ;;
95) nowait=0 ;;
*) nowait=-1 ;;
esac
if [ "$nowait" = -1 ]; then
	ktap_not_ok "RWF_NOWAIT probe: data or EOPNOTSUPP (got error '$probe_err')"
else
	ktap_ok "RWF_NOWAIT probe: data or EOPNOTSUPP (nowait support: $nowait)"
fi

ktap_check "read-verify of never-written pages fails (fio checks the data)" \
	verify_fails "$ZRAM_DEV" ram 1M 16k

if [ "$nowait" != 1 ]; then
	reason="RWF_NOWAIT -> EOPNOTSUPP: no BLK_FEAT_NOWAIT (stock 6.12)"
	for d in "RAM slots: RWF_NOWAIT read returns the data" \
		"backing device without nowait: probe" \
		"backing device without nowait: EAGAIN or data, no EIO, no short read" \
		"backing device without nowait: EAGAIN leaves the slot untouched" \
		"multi-page RWF_NOWAIT reads over RAM and written-back slots" \
		"backing device with nowait: RWF_NOWAIT read returns the data"; do
		ktap_skip "$d" "$reason"
	done
	ktap_check "blocking reads verify all pages" verify "$ZRAM_DEV" wb 0 256k
	ktap_finish
fi

nowait_read "$ZRAM_DEV" ram 256k 256k
ktap_info "RAM slots: error $ERR, EAGAIN $EAGAINS, short $SHORT, verified $VERIFIED"
ktap_check "RAM slots: RWF_NOWAIT read returns the data" \
	all_zero "$ERR" "$EAGAINS" "$SHORT" "$((VERIFIED - 64))"

if [ "$dm_nowait_err" != 95 ]; then
	ktap_skip "backing device without nowait: probe" \
		"dm-delay accepted RWF_NOWAIT (error $dm_nowait_err): it supports nowait here"
else
	ktap_ok "backing device without nowait: probe (dm-delay refuses RWF_NOWAIT)"
fi

state_before=''
if [ -r "$(zram_block_state_file)" ]; then
	state_before=$(slot_state 0)
fi
reads_before=$(bd_reads)
nowait_read "$ZRAM_DEV" wb 0 256k
ktap_info "written-back slots: error $ERR, EAGAIN $EAGAINS of 64, short $SHORT," \
	"verified $VERIFIED, backing reads $(($(bd_reads) - reads_before))"
ktap_check "backing device without nowait: EAGAIN or data, no EIO, no short read" \
	nowait_ok 64
if [ -z "$state_before" ]; then
	ktap_skip "backing device without nowait: EAGAIN leaves the slot untouched" \
		"no debugfs block_state"
elif [ "$EAGAINS" = 0 ]; then
	ktap_skip "backing device without nowait: EAGAIN leaves the slot untouched" \
		"no read got EAGAIN"
else
	ktap_eq "backing device without nowait: EAGAIN leaves the slot untouched" \
		"$(slot_state 0)" "$state_before"
fi

nowait_read "$ZRAM_DEV" wb 0 512k --bs=64k
ktap_info "64 KiB reads over both: error $ERR, EAGAIN $EAGAINS of 8, short $SHORT," \
	"verified $VERIFIED"
ktap_check "multi-page RWF_NOWAIT reads over RAM and written-back slots" \
	nowait_ok 8

ktap_check "blocking reads verify all pages" verify "$ZRAM_DEV" wb 0 256k

# Backing device with nowait support: null_blk itself.
zram_add || ktap_bail "cannot hot_add a second zram device"
zram_nullb 16 || ktap_bail "cannot create a second null_blk"
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
job "$ZRAM_DEV" wb2 0 256k || ktap_bail "cannot write pages 0-63"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback"
nowait_read "$ZRAM_DEV" wb2 0 256k
ktap_info "null_blk backing: $(bd_count) written back, error $ERR, EAGAIN $EAGAINS," \
	"short $SHORT, verified $VERIFIED"
ktap_check "backing device with nowait: RWF_NOWAIT read returns the data" \
	all_zero "$ERR" "$EAGAINS" "$SHORT" "$((VERIFIED - 64))" "$(($(bd_count) - 64))"

ktap_finish
