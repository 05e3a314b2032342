#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recompress: bad rows give upstream's errno and change nothing (the
# device state, every slot's flags, the data): a key without a value,
# numbers that do not parse, a threshold not below huge_class_size, an
# algo= that is not a secondary algorithm of the device, and any row
# before init. An unknown type= is refused with EINVAL (6.12 takes it as
# "every slot").

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
	"recompress|algo=nosuchalg|EINVAL")
ktap_plan $((${#bad[@]} + 3))

echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm"
echo "algo=$RECOMP_SECONDARY" >"$ZRAM_SYS/recomp_algorithm"
zram_check_input_rows "not initialized: " "recompress|type=idle|EINVAL"

echo 16M >"$ZRAM_SYS/disksize" || ktap_bail "cannot set disksize"
sum=$(sha256sum <"$WORDS_FILE" | cut -d' ' -f1)
zram_quiet zram_store_file "$WORDS_FILE" || ktap_bail "cannot store the data"
echo all >"$ZRAM_SYS/idle"
before=$(slots)
zram_check_input_rows "" "${bad[@]}"
ktap_eq "no slot changed" "$(slots)" "$before"
ktap_eq "data unchanged" "$(zram_read_all "$ZRAM_DEV" 32)" "$sum"
ktap_finish
