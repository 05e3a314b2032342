#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zram as the only swap device, with a backing device, end to end: a
# workload in a memory cgroup whose memory.max is well below its working
# set fills anonymous memory with a pattern that names every page
# (zram_memfill), so most of it is swapped out to zram; "echo all > idle"
# and "echo idle > writeback" move it to the backing device; the workload
# re-reads and verifies every page (still under the limit, so the pages
# come back from the backing device); swapoff brings everything back into
# RAM, where every page is verified again, and leaves zram empty.
#
# Sizes: ZRAM_SWAP_MB (default 96, zram_scaled) of memory in a cgroup
# limited to ZRAM_SWAP_LIMIT_MB (default 32, zram_scaled): whatever the
# scale, most of the workload is swapped out, written back and read back.
# The swap job (make run JOB=swap) is the long version of this test.

. "$(dirname "$0")/zram_lib.sh"

FILL_MB=${ZRAM_SWAP_MB:-$(zram_scaled 96 8)}
LIMIT_MB=${ZRAM_SWAP_LIMIT_MB:-$(zram_scaled 32 4)}
memfill=$(dirname "$0")/zram_memfill

# shellcheck disable=SC2317 # called through ktap_check
idle_writeback() {
	echo all >"$ZRAM_SYS/idle" && echo idle >"$ZRAM_SYS/writeback"
}

zram_swap_setup "$memfill"
zram_nullb $((FILL_MB * 2)) irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"
zram_zswap_off

ktap_plan 11

echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init $((FILL_MB * 4))M || ktap_bail "cannot set disksize"
zram_swapon "$ZRAM_DEV" || ktap_bail "cannot enable swap on $ZRAM_DEV"
ktap_info "swap on $ZRAM_DEV ($(zram_field disksize 1) bytes), backing device $NULLB"

zram_memcg "$LIMIT_MB" || ktap_bail "cannot create a memory cgroup"
zram_memfill_start "$MEMCG" "$FILL_MB"
ktap_eq "workload filled ${FILL_MB} MiB in a ${LIMIT_MB} MiB memory cgroup" \
	"$MEMFILL_REPLY" "filled $((FILL_MB * 256)) pages"
ktap_info "checksum of the workload's memory: $MEMFILL_FILL_SUM"
zram_memfill_stats

stored=$(($(zram_field mm_stat 1) / 4096))
swapped=$(zram_swap_used_pages "$ZRAM_DEV")
want=$(((FILL_MB - LIMIT_MB) * 256 / 2))
ktap_info "zram holds $stored pages, swap used $swapped pages (want >= $want)"
if [ "$stored" -ge "$want" ] && [ "$swapped" -ge "$want" ]; then
	ktap_ok "the workload's pages were swapped out to zram"
else
	ktap_not_ok "the workload's pages were swapped out to zram"
fi

t=$(zram_now)
ktap_check "echo all > idle; echo idle > writeback" \
	zram_quiet idle_writeback
ktap_info "writeback: $(bd_writes) pages in $(zram_since "$t") s; bd_stat $(bd_stat)"
written=$(bd_count)
desc="idle writeback moved the swapped pages to the backing device ($written of $stored)"
if [ "$written" -ge $((stored * 9 / 10)) ]; then
	ktap_ok "$desc"
else
	ktap_not_ok "$desc"
fi

reads0=$(bd_reads)
t=$(zram_now)
zram_memfill_cmd verify
ktap_info "re-read: $MEMFILL_REPLY in $(zram_since "$t") s," \
	"$(($(bd_reads) - reads0)) pages read from the backing device, checksum $MEMFILL_SUM"
ktap_eq "re-read under the memory limit: every page intact, the fill's checksum" \
	"$MEMFILL_REPLY, $MEMFILL_SUM" "verified $((FILL_MB * 256)) pages, 0 bad, $MEMFILL_FILL_SUM"
if [ "$(bd_reads)" -gt "$reads0" ]; then
	ktap_ok "the re-read swapped pages in from the backing device"
else
	ktap_not_ok "the re-read swapped pages in from the backing device"
fi

echo max >"$MEMCG/memory.max"
ktap_check "swapoff $ZRAM_DEV" zram_quiet swapoff "$ZRAM_DEV"
zram_memfill_stats
if grep -q "^$ZRAM_DEV " /proc/swaps; then
	ktap_not_ok "no longer a swap device"
else
	ktap_ok "no longer a swap device"
fi
zram_memfill_cmd verify
ktap_eq "after swapoff every page is intact in RAM, the fill's checksum" \
	"$MEMFILL_REPLY, $MEMFILL_SUM" "verified $((FILL_MB * 256)) pages, 0 bad, $MEMFILL_FILL_SUM"
# slot 0 holds the swap header, which was written back with the rest
ktap_eq "swapoff freed every slot but the swap header's: orig_data_size, bd_stat count" \
	"$(zram_field mm_stat 1) $(bd_count)" "4096 1"

# the verification itself can fail: one flipped byte is one bad page
zram_memfill_cmd "poke $((FILL_MB * 128))"
zram_memfill_cmd verify
ktap_eq "a flipped byte is reported as one bad page" \
	"$MEMFILL_REPLY" "verified $((FILL_MB * 256)) pages, 1 bad"
ktap_finish
