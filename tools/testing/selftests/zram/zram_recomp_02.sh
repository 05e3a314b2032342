#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress: bad rows give upstream's errno and change nothing (the
# device state, every slot's flags, the data): a key without a value,
# numbers that do not parse, a threshold not below huge_class_size, an
# algo= that is not a secondary algorithm of the device, a priority
# outside 1..3 or without an algorithm (signed parse: -1 is EINVAL,
# 2^31 ERANGE), an algo= that is not the one at priority=, and any row
# before init. An unknown type= is refused with EINVAL (6.12 takes it as
# "every slot"). The threshold's bound is the size at which a page is
# stored huge, found on the last slot with pages of K random bytes then
# zeroes: the largest such object that is not huge is accepted as a
# threshold, one byte more is refused.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_words_file 32 || ktap_skip_all "cannot make the data"

# slots: every slot's flags from block_state, when debugfs has it
slots() {
	local f

	f=$(zram_block_state_file)
	[ -r "$f" ] || return 0
	awk '{ print $1, $3 }' "$f"
}

bad=("recompress|type|EINVAL" "recompress|type=|EINVAL"
	"recompress|type=bogus|EINVAL" "recompress|max_pages=x|EINVAL"
	"recompress|max_pages=-1|EINVAL"
	"recompress|max_pages=18446744073709551616|ERANGE"
	"recompress|threshold=abc|EINVAL" "recompress|threshold=4096|EINVAL"
	"recompress|threshold=4294967296|ERANGE" "recompress|priority=x|EINVAL"
	"recompress|algo=$RECOMP_PRIMARY|EINVAL"
	"recompress|algo=nosuchalg|EINVAL" "recompress|priority=0|EINVAL"
	"recompress|priority=-1|EINVAL" "recompress|priority=2|EINVAL"
	"recompress|priority=3|EINVAL" "recompress|priority=4|EINVAL"
	"recompress|priority=2147483648|ERANGE"
	"recompress|priority=4294967295|ERANGE"
	"recompress|algo=$RECOMP_SECONDARY priority=2|EINVAL"
	"recompress|algo=$RECOMP_PRIMARY priority=0|EINVAL")
# stored_size K: the compressed size of a page of K bytes of $RAND_PAGE
# then zeroes, stored in slot $PROBE_SLOT; 4096 when it is stored huge.
# $PROBE_BASE is compr_data_size while that slot holds nothing.
stored_size() {
	head -c "$1" "$RAND_PAGE" | cat - /dev/zero |
		dd of="$ZRAM_DEV" bs=4096 count=1 seek="$PROBE_SLOT" \
			iflag=fullblock oflag=direct 2>/dev/null
	echo $(($(zram_field mm_stat 2) - PROBE_BASE))
}

# huge_bound: "S STEP": the largest S of stored_size that is not huge,
# and by how much it grew from the K before. Bisects K between 2048
# (stored compressed) and 4096 (random: huge); leaves that page stored.
huge_bound() {
	local lo=2048 hi=4096 mid s

	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		if [ "$(stored_size "$mid")" -eq 4096 ]; then
			hi=$mid
		else
			lo=$mid
		fi
	done
	s=$(stored_size $((lo - 1)))
	s=$(($(stored_size "$lo") - s))
	echo "$(stored_size "$lo") $s"
}

ktap_plan $((${#bad[@]} + 5))

echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm"
echo "algo=$RECOMP_SECONDARY" >"$ZRAM_SYS/recomp_algorithm"
zram_check_input_rows "not initialized: " "recompress|type=idle|EINVAL"

echo 16M >"$ZRAM_SYS/disksize" || ktap_bail "cannot set disksize"
sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
PROBE_SLOT=$((16 * 256 - 1))
PROBE_BASE=$(zram_field mm_stat 2)
RAND_PAGE=/tmp/zram-rand.$$
zram_defer rm -f "$RAND_PAGE"
head -c 4096 /dev/urandom >"$RAND_PAGE"
read -r below step <<<"$(huge_bound)"
ktap_info "largest object not stored huge: $below bytes (+$step for a byte more data)"
echo all >"$ZRAM_SYS/idle"
before=$(slots)
zram_check_input_rows "" "${bad[@]}"
zram_check_input_rows "below huge: " "recompress|type=huge threshold=$below|OK"
if [ "$step" -eq 1 ]; then
	zram_check_input_rows "huge: " \
		"recompress|type=huge threshold=$((below + 1))|EINVAL"
else
	ktap_skip "huge: threshold one byte above $below -> EINVAL" \
		"one byte more data grew the object by $step bytes: bound unknown"
fi
ktap_eq "no slot changed" "$(slots)" "$before"
ktap_eq "data unchanged" "$(zram_read_all "$ZRAM_DEV" 32)" "$sum"
ktap_finish
