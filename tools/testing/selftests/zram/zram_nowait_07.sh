#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A REQ_NOWAIT read that has served part of its bio completes with all
# its data, even when a later slot needs a read that would block: every
# 8 KiB preadv2(RWF_NOWAIT) read covers a slot in RAM, then a slot written
# back to a backing device without nowait support (dm-delay over a
# null_blk with timer completions). The first slot is copied, so the bio
# may no longer end with EAGAIN: the rest is finished by a worker. Each
# read returns its data, and each issues exactly one backing device read.
# Stock 6.12 refuses RWF_NOWAIT (no BLK_FEAT_NOWAIT): the test skips.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_require_nullb

work=$(mktemp -d /tmp/zram-nowait.XXXXXX) || ktap_skip_all "no /tmp"
zram_defer rm -rf "$work"
json=$work/fio.json

# job NAME [FIO_OPTION...]: pvsync2 O_DIRECT I/O over the first 512 KiB
# of the zram device with crc32c headers every 4 KiB; writes by default.
job() {
	local name=$1

	shift
	(cd "$work" && fio --name="$name" --filename="$ZRAM_DEV" \
		--ioengine=pvsync2 --direct=1 --rw=write --bs=4k --size=512k \
		--verify=crc32c --verify_interval=4k --do_verify=0 \
		--verify_state_save=0 --output-format=json --output="$json" \
		"$@" >"$work/fio.err" 2>&1)
}

zram_delay_dev irqmode=2 completion_nsec=20000
zram_wb_attach "$DM" 16M
job probe --rw=read --size=4k --nowait=1 --verify=0
[ "$(zram_fio_json "$json" job error)" = 0 ] ||
	ktap_skip_all "RWF_NOWAIT refused: no BLK_FEAT_NOWAIT (stock 6.12)"

ktap_plan 5
job data || ktap_bail "cannot write 128 pages"
odd=''
for ((i = 1; i < 128; i += 2)); do
	odd+="page_index=$i "
done
echo "$odd" >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back odd pages"
ktap_eq "setup: the 64 odd pages are on the backing device" "$(bd_count)" 64

reads=$(bd_reads)
job data --rw=read --bs=8k --do_verify=1 --nowait=1 \
	--continue_on_error=read --ignore_error=EAGAIN
ktap_eq "no 8 KiB RWF_NOWAIT read failed otherwise" \
	"$(zram_fio_json "$json" job error)" 0
ktap_eq "no EAGAIN after the first slot was served" \
	"$(zram_fio_json "$json" job total_err)" 0
ios=$(zram_fio_json "$json" read total_ios)
eagains=$(zram_fio_json "$json" job total_err)
ktap_eq "every read returned its data (64 reads verified)" \
	$((ios - eagains)) 64
ktap_eq "one backing device read per written-back slot" \
	$(($(bd_reads) - reads)) 64
ktap_finish
