#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity per compression algorithm: fio random writes with crc32c
# verification (O_DIRECT, mixed compressibility, 4-64 KiB blocks) over the
# whole device (24 MiB, zram_scaled), for every algorithm comp_algorithm
# lists.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"

read -r -a list <"$ZRAM_SYS/comp_algorithm"
algs=()
for a in "${list[@]}"; do
	a=${a#[}
	algs+=("${a%]}")
done

size=$(zram_scaled 24 4)M
ktap_plan ${#algs[@]}

for alg in "${algs[@]}"; do
	echo 1 >"$ZRAM_SYS/reset"
	if ! zram_init "$size" "$alg"; then
		ktap_not_ok "$alg: fio write+verify (cannot initialize)"
		continue
	fi
	if out=$(fio --name="zram-$alg" --filename="$ZRAM_DEV" --ioengine=psync \
		--direct=1 --rw=randwrite --bsrange=4k-64k --size="$size" \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--buffer_compress_percentage=50 --refill_buffers \
		--randrepeat=0 2>&1); then
		ktap_ok "$alg: fio write+verify"
	else
		echo "$out" | tail -20 | sed 's/^/# /'
		ktap_not_ok "$alg: fio write+verify"
	fi
done

ktap_finish
