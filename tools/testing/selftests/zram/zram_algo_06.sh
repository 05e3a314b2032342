#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lz4 and lz4hc take a dictionary longer than the 64 KiB an lz4 match can
# reach back, and use its end: pages cut from the last 32 KiB of a 96 KiB
# dictionary are written, read back equal, and take fewer bytes than
# without the dictionary.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params
zram_words_file 24 || ktap_skip_all "cannot make the dictionary"
dict=$WORDS_FILE

# 32 pages from the last 32 KiB, each 4 KiB from offset 64 KiB + 896 * i
data=$(mktemp /tmp/zram-dictdata.XXXXXX)
zram_defer rm -f "$data"
for i in $(seq 0 31); do
	dd if="$dict" bs=64 skip=$((1024 + 14 * i)) count=64 2>/dev/null
done >"$data"

algs=()
for a in lz4 lz4hc; do
	zram_has_algorithm "$a" && algs+=("$a")
done
[ ${#algs[@]} -gt 0 ] || ktap_skip_all "neither lz4 nor lz4hc listed"

ktap_plan ${#algs[@]}

for alg in "${algs[@]}"; do
	plain=$(zram_setup_params "$alg" "" 16M && zram_store_file "$data")
	with=$(zram_setup_params "$alg" "algo=$alg dict=$dict" 16M &&
		zram_store_file "$data")
	ktap_info "$alg: ${plain:-failed} bytes without the 96 KiB dictionary," \
		"${with:-failed} with it"
	desc="$alg: 96 KiB dictionary: data intact, stored smaller"
	if [ -n "$plain" ] && [ -n "$with" ] && [ "$with" -lt "$plain" ]; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
done

ktap_finish
