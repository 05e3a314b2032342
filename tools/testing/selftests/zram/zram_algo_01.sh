#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every algorithm comp_algorithm lists, with its default parameters, with
# levels from its range (for algorithms with levels), for deflate with
# window sizes (deflate.winbits=, raw and zlib format) and, for zstd, lz4
# and lz4hc, with a dictionary (alone and with a level): fio random writes
# with crc32c verification read back equal.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd fio
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params

zram_words_file 8 || ktap_skip_all "cannot make a dictionary"
dict=$WORDS_FILE

# algorithm -> levels to try (first one also with the dictionary); the
# others have none (level= fails their init)
declare -A levels=([lz4]="64 1" [lz4hc]="12 1 16" [zstd]="19 -5 1"
	[deflate]="9 0 1")
declare -A has_dict=([lz4]=1 [lz4hc]=1 [zstd]=1)
# deflate's windows: the smallest, raw and zlib format, the largest
winbits=("deflate.winbits=-9" "deflate.winbits=9" "deflate.winbits=15 level=9")

cases=()
while read -r alg; do
	cases+=("$alg|")
	for l in ${levels[$alg]:-}; do
		cases+=("$alg|level=$l")
	done
	if [ "$alg" = deflate ]; then
		for w in "${winbits[@]}"; do
			cases+=("$alg|$w")
		done
	fi
	if [ -n "${has_dict[$alg]:-}" ]; then
		l=${levels[$alg]%% *}
		cases+=("$alg|dict=$dict" "$alg|level=$l dict=$dict")
	fi
done < <(zram_algorithms)

ktap_plan ${#cases[@]}

for c in "${cases[@]}"; do
	alg=${c%%|*}
	params=${c#*|}
	desc="$alg ${params:-(defaults)}: fio write+verify"
	desc=${desc//$dict/DICT}
	if ! zram_setup_params "$alg" "${params:+algo=$alg $params}" 2M; then
		ktap_not_ok "$desc (cannot initialize)"
		continue
	fi
	ktap_check "$desc" zram_quiet fio --name=algo --filename="$ZRAM_DEV" \
		--ioengine=psync --direct=1 --rw=randwrite --bsrange=4k-64k \
		--size=2M --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--buffer_compress_percentage=50 --refill_buffers --randrepeat=0
done

ktap_finish
