#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# level= reaches the compressor: the same data stored with a level that
# compresses better takes fewer bytes (mm_stat compr_data_size) than with
# one that compresses faster, for each listed algorithm that has levels,
# and reads back equal both times.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params
zram_words_file 64 || ktap_skip_all "cannot make the data"

# algorithm | faster level | level that compresses better
pairs=()
for p in "lz4|64|1" "lz4hc|1|12" "zstd|-5|19" "deflate|1|9"; do
	zram_has_algorithm "${p%%|*}" && pairs+=("$p")
done
[ ${#pairs[@]} -gt 0 ] || ktap_skip_all "no algorithm with levels listed"

ktap_plan ${#pairs[@]}

for p in "${pairs[@]}"; do
	IFS='|' read -r alg fast good <<<"$p"
	fast_sz=$(zram_setup_params "$alg" "algo=$alg level=$fast" 16M &&
		zram_store_file "$WORDS_FILE")
	good_sz=$(zram_setup_params "$alg" "algo=$alg level=$good" 16M &&
		zram_store_file "$WORDS_FILE")
	ktap_info "$alg: level=$fast ${fast_sz:-failed} bytes," \
		"level=$good ${good_sz:-failed} bytes"
	desc="$alg: level=$good stores smaller than level=$fast"
	if [ -n "$fast_sz" ] && [ -n "$good_sz" ] && [ "$good_sz" -lt "$fast_sz" ]; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
done

ktap_finish
