#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recomp_algorithm: "algo=NAME [priority=N]" sets a secondary algorithm
# (priority 1 when not given, 1 to 3), read back as "#N: " and the list
# with the chosen one in brackets; bad rows give upstream's errno and
# change nothing; once initialized it is refused with EBUSY; reset
# forgets the secondary algorithms.

. "$(dirname "$0")/zram_lib.sh"

zram_recomp_prologue
zram_words_file 16 || ktap_skip_all "cannot make the data"
sec=$RECOMP_SECONDARY

# recomp_state: what recomp_algorithm reads, on one line
recomp_state() {
	tr '\n' ' ' <"$ZRAM_SYS/recomp_algorithm"
}

long=$(printf 'a%.0s' $(seq 128))
ktap_plan 13

ktap_eq "nothing set: reads empty" "$(recomp_state)" ""
ktap_check "algo=$sec accepted" \
	expect_errno OK "$ZRAM_SYS/recomp_algorithm" "algo=$sec"
ktap_eq "it is priority 1, chosen in the list" \
	"$(grep -c "^#1: .*\[$sec\]" "$ZRAM_SYS/recomp_algorithm")" 1
ktap_check "algo=$RECOMP_PRIMARY priority=3 accepted" \
	expect_errno OK "$ZRAM_SYS/recomp_algorithm" "algo=$RECOMP_PRIMARY priority=3"
ktap_eq "two lines, #1 then #3" \
	"$(grep -o '^#[0-9]' "$ZRAM_SYS/recomp_algorithm" | tr '\n' ' ')" "#1 #3 "
before=$(recomp_state)
bad=0
for row in "|EINVAL" "priority=2|EINVAL" "algo=$sec priority=0|EINVAL" \
	"algo=$sec priority=4|EINVAL" "algo=$sec priority=-1|EINVAL" \
	"algo=$sec priority=x|EINVAL" "algo=nosuchalg|EINVAL" "algo=|EINVAL" \
	"algo=$long|E2BIG"; do
	expect_errno "${row##*|}" "$ZRAM_SYS/recomp_algorithm" "${row%|*}" ||
		bad=$((bad + 1))
done
ktap_eq "9 bad rows give upstream's errno" "$bad" 0
ktap_eq "and change nothing" "$(recomp_state)" "$before"
ktap_check "disksize with two secondary algorithms" \
	expect_errno OK "$ZRAM_SYS/disksize" 16M
ktap_check "initialized: refused with EBUSY" \
	expect_errno EBUSY "$ZRAM_SYS/recomp_algorithm" "algo=$sec priority=2"
ktap_eq "and changes nothing" "$(recomp_state)" "$before"
ktap_check "data stored and read back" \
	zram_quiet zram_store_file "$WORDS_FILE"
echo 1 >"$ZRAM_SYS/reset"
ktap_eq "reset forgets the secondary algorithms" "$(recomp_state)" ""
ktap_check "and accepts one again" \
	expect_errno OK "$ZRAM_SYS/recomp_algorithm" "algo=$sec priority=2"
ktap_finish
