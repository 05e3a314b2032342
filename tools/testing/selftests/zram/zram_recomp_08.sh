#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress and writeback started at once on one device: both succeed
# (the second waits for the first), every slot ends either in RAM or on
# the backing device and never both (bd_count equals the written-back
# slots, none of them carries a recompressed object, pages stored stay
# the same), and every byte reads back the same. Three rounds, the
# backing device completing from a timer with 1 ms latency.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_require_nullb
zram_require_writeback
zram_require_block_state
zram_words_file 256 || ktap_skip_all "cannot make the data"
zram_nullb 16 irqmode=2 completion_nsec=1000000 ||
	ktap_skip_all "cannot create null_blk"
sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
out=$(mktemp /tmp/zram-race.XXXXXX) || ktap_skip_all "cannot make a temporary file"
zram_defer rm -f "$out"

rounds=3
ktap_plan $((rounds * 3))

# flags column: s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n(incompressible)
# race ATTR1 VALUE1 ATTR2 VALUE2: the two writes, the second started
# right after the first; prints both results ("OK OK" when both succeed)
race() {
	local pid second

	zram_write "$ZRAM_SYS/$1" "$2" >"$out" &
	pid=$!
	second=$(zram_write "$ZRAM_SYS/$3" "$4")
	wait "$pid"
	echo "$(cat "$out") $second"
}

for r in $(seq "$rounds"); do
	zram_recomp_init 16M "$NULLB" || ktap_bail "cannot set up the device"
	zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
	echo all >"$ZRAM_SYS/idle"
	stored=$(zram_field mm_stat 1)
	if [ $((r % 2)) -eq 1 ]; then
		got=$(race writeback idle recompress type=idle)
	else
		got=$(race recompress type=idle writeback idle)
	fi
	ktap_eq "round $r: writeback and recompress both succeed" "$got" "OK OK"
	ktap_eq "round $r: bd_count = slots written back, none recompressed, same pages" \
		"$(bd_count) $(zram_block_state_count '^.w..r') $(zram_field mm_stat 1)" \
		"$(zram_block_state_count '^.w') 0 $stored"
	zram_drop_caches
	ktap_eq "round $r: data read back" "$(zram_read_all "$ZRAM_DEV" 256)" "$sum"
done
ktap_finish
