#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dict= reaches the compressor: pages cut from a 32 KiB dictionary file
# take fewer bytes (mm_stat compr_data_size) when zstd, lz4 or lz4hc
# compresses them with that dictionary than without, and read back equal
# both times.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params
zram_words_file 8 || ktap_skip_all "cannot make the dictionary"
dict=$WORDS_FILE

# 64 pages, each 4 KiB of the dictionary from offset 448 * i
data=$(mktemp /tmp/zram-dictdata.XXXXXX)
zram_defer rm -f "$data"
for i in $(seq 0 63); do
	dd if="$dict" bs=64 skip=$((7 * i)) count=64 2>/dev/null
done >"$data"

algs=()
for a in zstd lz4 lz4hc; do
	zram_has_algorithm "$a" && algs+=("$a")
done
[ ${#algs[@]} -gt 0 ] || ktap_skip_all "no algorithm with dictionaries listed"

ktap_plan ${#algs[@]}

for alg in "${algs[@]}"; do
	plain=$(zram_setup_params "$alg" "" 16M && zram_store_file "$data")
	with=$(zram_setup_params "$alg" "algo=$alg dict=$dict" 16M &&
		zram_store_file "$data")
	ktap_info "$alg: ${plain:-failed} bytes without the dictionary," \
		"${with:-failed} with it"
	desc="$alg: dict= stores smaller than no dictionary"
	if [ -n "$plain" ] && [ -n "$with" ] && [ "$with" -lt "$plain" ]; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
done

ktap_finish
