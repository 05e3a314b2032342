#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backing-device bios that fail: fail_make_request on the backing null_blk
# (30% of its bios, timer completion like hardware) during writebacks,
# O_DIRECT and io_uring reads of written-back slots; then dm-flakey
# failing every read. A writeback succeeds or fails with EIO, a read
# returns the right data or EIO (io_uring: never EAGAIN, never wrong
# data), no data is lost once the device works again, bd_count always
# matches the slots written back, and once everything is discarded no
# block is left.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_dm
zram_require_cmd fio blkdiscard
zram_require_fault_injection fail_make_request
modprobe dm-flakey >/dev/null 2>&1
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 16 irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"
nullb=$NULLB

pages=256
rounds=${ZRAM_FI_ROUNDS:-8}
sectors=$(zram_sectors "$nullb")
linear="0 $sectors linear $nullb 0"
# reads fail, writes work
flakey="0 $sectors flakey $nullb 0 0 1 1 error_reads"
zram_dm fl "$linear" || ktap_skip_all "cannot create a dm device"
work=$(mktemp -d /tmp/zram-inject.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
image=$work/image
json=$work/fio.json

ktap_plan 14

echo "$DM" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
(cd "$work" && fio --name=data --filename="$ZRAM_DEV" --ioengine=psync \
	--direct=1 --rw=write --bs=64k --size=$((pages * 4))k \
	--buffer_compress_percentage=50 --refill_buffers --verify=crc32c \
	--verify_interval=4k --do_verify=0 --verify_state_save=0 \
	>/dev/null 2>&1) || ktap_bail "cannot write the data"
dd if="$ZRAM_DEV" of="$image" bs=4096 count=$pages iflag=direct 2>/dev/null
sum=$(zram_read_all "$ZRAM_DEV" $pages)

refill() {
	dd if="$image" of="$ZRAM_DEV" bs=4096 count=$pages oflag=direct \
		conv=notrunc 2>/dev/null && echo all >"$ZRAM_SYS/idle"
}

bad=()
lost=()
inconsistent=()
check_state() {
	[ "$(zram_read_all "$ZRAM_DEV" $pages)" = "$sum" ] || lost+=("$1")
	zram_blocks_consistent ||
		inconsistent+=("$1: bd_count $(bd_count), written back $(zram_block_state_count w)")
}

# 1: writebacks while 30% of the backing device's bios fail
failed=0
for ((r = 1; r <= rounds; r++)); do
	refill || ktap_bail "cannot refill the device"
	zram_fail_disk "$nullb" 30
	res=$(zram_write "$ZRAM_SYS/writeback" idle)
	zram_fail_disk "$nullb" 0
	case $res in
	OK) ;;
	EIO) failed=$((failed + 1)) ;;
	*) bad+=("writeback round $r: $res") ;;
	esac
	check_state "writeback round $r"
done
ktap_info "writebacks that failed with EIO: $failed of $rounds"
ktap_check "some writebacks saw the failing bios (EIO)" [ "$failed" -gt 0 ]
ktap_eq "every writeback: OK or EIO" "${bad[*]}" ""
ktap_eq "no data lost by failed writebacks" "${lost[*]}" ""
ktap_eq "bd_count == written-back slots after each" "${inconsistent[*]}" ""

# everything on the device for the reads below
refill || ktap_bail "cannot refill the device"
ktap_check "writeback once the device works" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "every slot written back" "$(bd_count)" "$pages"

# 2: O_DIRECT reads while 30% of the bios fail
bad=()
wrong=()
eio=0
for ((r = 1; r <= rounds; r++)); do
	zram_fail_disk "$nullb" 30
	if dd if="$ZRAM_DEV" of="$work/out" bs=64k count=$((pages / 16)) \
		iflag=direct 2>"$work/err"; then
		[ "$(sha256sum <"$work/out" | cut -d' ' -f1)" = "$sum" ] ||
			wrong+=("round $r")
	else
		res=$(zram_errno_name "$(grep -v records "$work/err")")
		case $res in
		EIO) eio=$((eio + 1)) ;;
		*) bad+=("read round $r: $res") ;;
		esac
	fi
	zram_fail_disk "$nullb" 0
done
ktap_check "some O_DIRECT reads failed with EIO" [ "$eio" -gt 0 ]
ktap_eq "every O_DIRECT read: data or EIO" "${bad[*]}" ""
ktap_eq "no O_DIRECT read returned wrong data" "${wrong[*]}" ""

# 3: io_uring reads (REQ_NOWAIT) while 30% of the bios fail
zram_fail_disk "$nullb" 30
(cd "$work" && fio --name=data --filename="$ZRAM_DEV" --ioengine=io_uring \
	--direct=1 --rw=read --bs=64k --iodepth=16 --size=$((pages * 4))k \
	--verify=crc32c --verify_interval=4k --do_verify=1 --loops=4 \
	--verify_state_save=0 --continue_on_error=io --output-format=json \
	--output="$json" >"$work/fio.err" 2>&1)
zram_fail_disk "$nullb" 0
err=$(zram_fio_json "$json" job error)
ktap_info "io_uring reads: first error ${err:-?}, $(zram_fio_json "$json" job total_err) errors"
sed 's/^/# fio: /' "$work/fio.err" | head -5
case ${err:-missing} in
0 | 5) ktap_ok "io_uring reads: data or EIO (no EAGAIN, no wrong data)" ;;
*) ktap_not_ok "io_uring reads: data or EIO (no EAGAIN, no wrong data): error ${err:-none}" ;;
esac

# 4: dm-flakey: every read of the backing device fails
zram_dm_reload "$flakey" || ktap_bail "cannot load the flakey table"
zram_drop_caches
if out=$(dd if="$ZRAM_DEV" of=/dev/null bs=4096 count=1 iflag=direct 2>&1); then
	res=OK
else
	res=$(zram_errno_name "$out")
fi
ktap_eq "read of a written-back slot on a failing device -> EIO" "$res" EIO
zram_dm_reload "$linear" || ktap_bail "cannot load the linear table"

zram_drop_caches
ktap_eq "data intact once the device works" "$(zram_read_all "$ZRAM_DEV" $pages)" "$sum"
ktap_check "bd_count == written-back slots" zram_blocks_consistent
blkdiscard "$ZRAM_DEV"
ktap_eq "discard of everything frees every block" "$(bd_count)" 0

ktap_finish
