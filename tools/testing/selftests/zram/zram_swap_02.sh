#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A writeback policy daemon's rounds (as Android's mmd does them) against
# zram as swap under a memory cgroup: each round sets writeback_limit and
# reads it back, marks idle by age, writes back huge_idle then idle, and
# diffs bd_stat. Every writeback returns OK, or EIO only when
# writeback_limit then reads 0; the blocks written equal the budget spent;
# the last round, with no budget, gets EIO. The workload's pages are
# verified after every round and after swapoff.
#
# Sizes: ZRAM_SWAP_MB (default 64, zram_scaled) of memory in a cgroup
# limited to ZRAM_SWAP_LIMIT_MB (default 24, zram_scaled); the budgets,
# 1024 and 2048 pages, are scaled alike. Whatever the scale, what is
# swapped out is more than the two budgets together, so that both rounds
# end on the limit.

. "$(dirname "$0")/zram_lib.sh"

FILL_MB=${ZRAM_SWAP_MB:-$(zram_scaled 64 8)}
LIMIT_MB=${ZRAM_SWAP_LIMIT_MB:-$(zram_scaled 24 3)}
memfill=$(dirname "$0")/zram_memfill
budgets=("$(zram_scaled 1024)" "$(zram_scaled 2048)" 0)

zram_swap_setup "$memfill"
zram_attr_exists writeback_limit || ktap_skip_all "no writeback_limit attribute"
zram_nullb $((FILL_MB * 2)) irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"
zram_zswap_off

# mark_idle: by age (1 s), as a daemon does; "all" without access times
mark_idle() {
	echo 1 >"$ZRAM_SYS/idle" 2>/dev/null || echo all >"$ZRAM_SYS/idle"
}

# round_wb: huge_idle then idle writeback; prints each result and what
# writeback_limit reads after it, e.g. "OK:512 EIO:0"
round_wb() {
	local mode r out=''

	for mode in huge_idle idle; do
		r=$(zram_write "$ZRAM_SYS/writeback" "$mode")
		out+="$r:$(cat "$ZRAM_SYS/writeback_limit") "
	done
	echo "$out"
}

ktap_plan $((${#budgets[@]} * 4 + 4))

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init $((FILL_MB * 4))M || ktap_bail "cannot set disksize"
zram_swapon "$ZRAM_DEV" || ktap_bail "cannot enable swap on $ZRAM_DEV"
zram_memcg "$LIMIT_MB" || ktap_bail "cannot create a memory cgroup"
zram_memfill_start "$MEMCG" "$FILL_MB"
ktap_eq "workload filled ${FILL_MB} MiB in a ${LIMIT_MB} MiB memory cgroup" \
	"$MEMFILL_REPLY" "filled $((FILL_MB * 256)) pages"
echo 1 >"$ZRAM_SYS/writeback_limit_enable"

i=0
for budget in "${budgets[@]}"; do
	i=$((i + 1))
	echo "$budget" >"$ZRAM_SYS/writeback_limit"
	ktap_eq "round $i: writeback_limit reads back $budget" \
		"$(cat "$ZRAM_SYS/writeback_limit")" "$budget"
	sleep 1.1
	mark_idle
	w0=$(bd_writes)
	res=$(round_wb)
	w1=$(bd_writes)
	left=$(cat "$ZRAM_SYS/writeback_limit")
	ktap_info "round $i: $res bd_stat $(bd_stat)"
	bad=$(echo "$res" | tr ' ' '\n' | grep -v -e '^OK:' -e '^EIO:0$' -e '^$' || true)
	ktap_eq "round $i: each writeback OK, or EIO with writeback_limit 0" "$bad" ""
	ktap_eq "round $i: bd_stat writes grew by the budget spent" \
		"$((w1 - w0))" "$((budget - left))"
	zram_memfill_cmd verify
	ktap_eq "round $i: every page intact" "$MEMFILL_REPLY, $MEMFILL_SUM" \
		"verified $((FILL_MB * 256)) pages, 0 bad, $MEMFILL_FILL_SUM"
done
ktap_eq "no budget left: the last round got EIO" \
	"$(echo "$res" | grep -c 'EIO:0')" 1

echo max >"$MEMCG/memory.max"
ktap_check "swapoff $ZRAM_DEV" zram_quiet swapoff "$ZRAM_DEV"
zram_memfill_cmd verify
ktap_eq "after swapoff every page is intact in RAM" \
	"$MEMFILL_REPLY, $MEMFILL_SUM" "verified $((FILL_MB * 256)) pages, 0 bad, $MEMFILL_FILL_SUM"
ktap_finish
