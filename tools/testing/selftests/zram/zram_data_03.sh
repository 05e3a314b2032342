#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fio-verified data survives idle writeback into a fresh backing-device
# bitmap and into a fragmented one (blocks freed by discarding every other
# written-back page, with used blocks in between).

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
# 32 MiB: 8192 blocks
zram_nullb 32 || ktap_skip_all "cannot create null_blk"

# job NAME RW OFFSET SIZE [FIO_OPTION...]: one fio job on the device
job() {
	local name=$1 rw=$2 off=$3 size=$4 out

	shift 4
	if ! out=$(fio --name="$name" --filename="$ZRAM_DEV" --ioengine=psync \
		--direct=1 --bs=4k --rw="$rw" --offset="$off" --size="$size" \
		--verify=crc32c --verify_fatal=1 --do_verify=0 \
		--buffer_compress_percentage=50 --refill_buffers "$@" 2>&1); then
		echo "$out" | tail -15 | sed 's/^/# /'
		return 1
	fi
}

writeback() {
	echo all >"$ZRAM_SYS/idle" && echo idle >"$ZRAM_SYS/writeback"
}

ktap_plan 10

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 64M || ktap_bail "cannot set disksize"

# A: 8 MiB into a fresh bitmap
job a write 0 8M || ktap_bail "fio write A failed"
ktap_check "fresh bitmap: idle writeback" writeback
ktap_eq "fresh bitmap: 2048 slots written back" "$(bd_count)" 2048
zram_drop_caches
ktap_check "fresh bitmap: fio verify" job a write 0 8M --verify_only=1

# B: 16 MiB as two interleaved halves, written back, odd half discarded
job b-even write:4k 8M 16M || ktap_bail "fio write B even failed"
job b-odd write:4k $(((8 << 20) + 4096)) 16M || ktap_bail "fio write B odd failed"
writeback || ktap_bail "writeback B failed"
ktap_eq "6144 slots written back" "$(bd_count)" 6144
job b-trim trim:4k $(((8 << 20) + 4096)) 16M --verify=0 || ktap_bail "fio trim failed"
ktap_eq "every other slot discarded: 4096 blocks left" "$(bd_count)" 4096

# C: 12 MiB into the holes and the tail
job c write 24M 12M || ktap_bail "fio write C failed"
ktap_check "fragmented bitmap: idle writeback" writeback
ktap_eq "fragmented bitmap: 7168 slots written back" "$(bd_count)" 7168
zram_drop_caches
ktap_check "fragmented bitmap: fio verify of the new data" job c write 24M 12M --verify_only=1
ktap_check "fio verify of the data around the holes" job b-even write:4k 8M 16M --verify_only=1
ktap_check "fio verify of the first data" job a write 0 8M --verify_only=1

ktap_finish
