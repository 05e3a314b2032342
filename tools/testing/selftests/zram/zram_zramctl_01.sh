#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zramctl: create with --find/--size/--algorithm (and --streams where the
# driver has max_comp_streams: ours; 7.x dropped it) and on a given
# device, list (its columns equal the sysfs values: DATA, COMPR, TOTAL,
# MEM-LIMIT, MEM-USED, ZERO-PAGES are mm_stat fields) and reset.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd zramctl

ktap_plan 14

zram_add || ktap_bail "cannot hot_add"
read -r -a list <"$ZRAM_SYS/comp_algorithm"
alg=lz4
[[ " ${list[*]} " == *" lz4 "* || " ${list[*]} " == *" [lz4] "* ]] || alg=${list[0]#[}
alg=${alg%]}

streams=()
[ -e "$ZRAM_SYS/max_comp_streams" ] && streams=(--streams 2)
if dev=$(zramctl --find --size 64M --algorithm "$alg" "${streams[@]}"); then
	ktap_ok "zramctl --find --size 64M --algorithm $alg ${streams[*]} ($dev)"
else
	ktap_bail "zramctl --find failed"
fi
id=${dev#/dev/zram}
zram_defer zram_remove "$id"
ZRAM_ID=$id
ZRAM_DEV=$dev
ZRAM_SYS=/sys/block/zram$id
zram_wait_blockdev "$dev"

ktap_eq "disksize set" "$(cat "$ZRAM_SYS/disksize")" $((64 << 20))
ktap_check "algorithm selected" grep -q "\[$alg\]" "$ZRAM_SYS/comp_algorithm"
ktap_eq "initstate 1" "$(cat "$ZRAM_SYS/initstate")" 1

zram_fill_pages "$dev" 0 256 text
zram_fill_pages "$dev" 256 64 zero
zram_fill_pages "$dev" 320 64 random
read -r -a mm <"$ZRAM_SYS/mm_stat"
line=$(zramctl --bytes --noheadings --raw \
	--output NAME,DISKSIZE,DATA,COMPR,TOTAL,MEM-LIMIT,MEM-USED,ZERO-PAGES,ALGORITHM "$dev")
ktap_info "zramctl: $line"
ktap_info "mm_stat: ${mm[*]}"
read -r name disksize data compr total limit used zero algorithm <<<"$line"
ktap_eq "NAME" "$name" "$dev"
ktap_eq "DISKSIZE" "$disksize" $((64 << 20))
ktap_eq "DATA COMPR TOTAL == mm_stat orig compr mem_used_total" \
	"$data $compr $total" "${mm[0]} ${mm[1]} ${mm[2]}"
ktap_eq "MEM-LIMIT MEM-USED ZERO-PAGES == mm_stat mem_limit mem_used_max same_pages" \
	"$limit $used $zero" "${mm[3]} ${mm[4]} ${mm[5]}"
ktap_eq "ALGORITHM" "$algorithm" "$alg"

ktap_check "zramctl --reset" zramctl --reset "$dev"
if [ -e "$ZRAM_SYS" ]; then
	ktap_eq "device reset (disksize 0)" "$(cat "$ZRAM_SYS/disksize")" 0
else
	ktap_ok "device reset (and removed)"
fi

# configure a given device
zram_add || ktap_bail "cannot hot_add"
other=${list[-1]#[}
other=${other%]}
ktap_check "zramctl $ZRAM_DEV --size 32M --algorithm $other" \
	zramctl "$ZRAM_DEV" --size 32M --algorithm "$other"
ktap_eq "given device: disksize" "$(cat "$ZRAM_SYS/disksize")" $((32 << 20))
ktap_check "given device: algorithm" grep -q "\[$other\]" "$ZRAM_SYS/comp_algorithm"

ktap_finish
