#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A refused algorithm_params write keeps the parameters set before it: a
# level set, then bad writes (missing and empty dictionary, bad priority,
# unknown algo=, malformed level), then init: the data compresses to the
# same size as with the level alone, which differs from the default's.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params
zram_words_file 64 || ktap_skip_all "cannot make the data"

empty=$(mktemp /tmp/zram-empty.XXXXXX)
zram_defer rm -f "$empty"

# an algorithm and a level far from its default
alg=
for p in "lz4|64" "zstd|-5" "deflate|1" "lz4hc|1"; do
	if zram_has_algorithm "${p%%|*}"; then
		IFS='|' read -r alg level <<<"$p"
		break
	fi
done
[ -n "$alg" ] || ktap_skip_all "no algorithm with levels listed"

bad=("dict=/nonexistent/zram-dict" "dict=$empty" "priority=-1 level=3"
	"algo=nosuchalg level=3" "level=abc")

ktap_plan 3

default_sz=$(zram_setup_params "$alg" "" 16M && zram_store_file "$WORDS_FILE")
level_sz=$(zram_setup_params "$alg" "algo=$alg level=$level" 16M &&
	zram_store_file "$WORDS_FILE")
echo 1 >"$ZRAM_SYS/reset"
echo "$alg" >"$ZRAM_SYS/comp_algorithm"
echo "algo=$alg level=$level" >"$ZRAM_SYS/algorithm_params"
refused=0
for b in "${bad[@]}"; do
	[ "$(zram_write "$ZRAM_SYS/algorithm_params" "$b")" = OK ] ||
		refused=$((refused + 1))
done
kept_sz=$(echo 16M >"$ZRAM_SYS/disksize" && zram_store_file "$WORDS_FILE")
ktap_info "$alg: default ${default_sz:-failed} bytes, level=$level" \
	"${level_sz:-failed}, level=$level then refused writes ${kept_sz:-failed}"

ktap_eq "all ${#bad[@]} bad writes refused" "$refused" "${#bad[@]}"
desc="level=$level stores differently from the default"
if [ -n "$default_sz" ] && [ -n "$level_sz" ] && [ "$level_sz" != "$default_sz" ]; then
	ktap_ok "$desc"
else
	ktap_not_ok "$desc"
fi
ktap_eq "after the refused writes the level still applies" \
	"${kept_sz:-failed}" "${level_sz:-none}"

ktap_finish
