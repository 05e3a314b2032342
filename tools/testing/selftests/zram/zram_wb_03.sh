#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writeback_limit: with the limit enabled and set to L (4 KiB units), an
# idle writeback writes exactly L pages, the limit reads 0 and the next
# writeback fails with EIO; raising the limit lets writeback continue;
# disabling it writes the rest. L in 1 3 31 32 33 1002, and per batch size when
# writeback_batch_size exists. Concurrent limit updates are never exceeded,
# and the budget of writes that fail after a new limit was written is not
# given back to it; writing the value the limit holds changes nothing, so
# the budget of writes that fail afterwards is all given back.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_attr_exists writeback_limit || ktap_skip_all "no writeback_limit attribute"
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
fast=$NULLB
# 2 ms per backing-device write, for the concurrent case
zram_nullb 16 irqmode=2 completion_nsec=2000000 || ktap_skip_all "cannot create null_blk"
slow=$NULLB

limits=(1 3 31 32 33 1002)
batches=("")
if zram_attr_exists writeback_batch_size; then
	batches+=(1 4 32)
fi

ktap_plan $((${#batches[@]} * ${#limits[@]} + 5))

# setup BDEV PAGES: fresh device state with PAGES idle compressible slots
setup() {
	echo 1 >"$ZRAM_SYS/reset"
	echo "$1" >"$ZRAM_SYS/backing_dev" &&
		zram_init 16M &&
		zram_fill_pages "$ZRAM_DEV" 0 "$2" text &&
		echo all >"$ZRAM_SYS/idle"
}

# one_limit L PAGES: prints a problem and fails, if any
# shellcheck disable=SC2317 # called through ktap_check
one_limit() {
	local l=$1 pages=$2 w0 r

	w0=$(bd_writes)
	echo 1 >"$ZRAM_SYS/writeback_limit_enable"
	echo "$l" >"$ZRAM_SYS/writeback_limit"
	r=$(zram_write "$ZRAM_SYS/writeback" idle)
	[ "$r" = OK ] || [ "$r" = EIO ] || { echo "# first writeback: $r"; return 1; }
	[ "$(bd_writes)" = $((w0 + l)) ] ||
		{ echo "# wrote $(($(bd_writes) - w0)), limit $l"; return 1; }
	[ "$(cat "$ZRAM_SYS/writeback_limit")" = 0 ] || { echo "# limit not 0"; return 1; }
	expect_errno EIO "$ZRAM_SYS/writeback" idle || return 1
	[ "$(bd_writes)" = $((w0 + l)) ] || { echo "# wrote past the limit"; return 1; }
	echo 2 >"$ZRAM_SYS/writeback_limit"
	r=$(zram_write "$ZRAM_SYS/writeback" idle)
	[ "$(bd_writes)" = $((w0 + l + 2)) ] ||
		{ echo "# raised limit: $r, wrote $(($(bd_writes) - w0))"; return 1; }
	echo 0 >"$ZRAM_SYS/writeback_limit_enable"
	expect_errno OK "$ZRAM_SYS/writeback" idle || return 1
	[ "$(bd_count)" = "$pages" ] ||
		{ echo "# disabled: count $(bd_count), want $pages"; return 1; }
}

for b in "${batches[@]}"; do
	for l in "${limits[@]}"; do
		desc="limit $l${b:+ batch $b}: exactly $l written, then EIO; raise; disable"
		# enough idle slots that the limit, not the data, ends the first run
		pages=$((l + 64))
		if ! setup "$fast" "$pages"; then
			ktap_not_ok "$desc (setup)"
			continue
		fi
		[ -n "$b" ] && echo "$b" >"$ZRAM_SYS/writeback_batch_size"
		ktap_check "$desc" one_limit "$l" "$pages"
	done
done

# concurrent updates: while a slow writeback runs, the limit is set to 5;
# from then on at most 5 more pages may be written, besides those already
# in flight (debited from the old budget, counted in bd_stat only when
# they complete): one page, as writeback_batch_size 1 (where it exists,
# pages in flight) keeps one page in flight, and 6.12 writes one page at
# a time.
setup "$slow" 1024 || ktap_bail "setup failed"
in_flight=1
if zram_attr_exists writeback_batch_size; then
	echo 1 >"$ZRAM_SYS/writeback_batch_size"
fi
echo 1 >"$ZRAM_SYS/writeback_limit_enable"
echo 100000 >"$ZRAM_SYS/writeback_limit"
zram_write "$ZRAM_SYS/writeback" idle >/tmp/zram-wb3.$$ &
wb_pid=$!
zram_defer kill "$wb_pid"
while [ "$(bd_writes)" -lt 16 ] && kill -0 "$wb_pid" 2>/dev/null; do
	sleep 0.05
done
echo 5 >"$ZRAM_SYS/writeback_limit"
w_after=$(bd_writes)
wait "$wb_pid"
r=$(cat /tmp/zram-wb3.$$)
rm -f /tmp/zram-wb3.$$
final=$(bd_writes)
ktap_info "writes when the limit was set: $w_after, final: $final," \
	"in flight at most $in_flight, result: $r"
if [ "$w_after" -ge 1024 ]; then
	ktap_skip "limit set during writeback is not exceeded" "writeback ended first"
	ktap_skip "that writeback ends with EIO" "writeback ended first"
else
	ktap_check "limit set during writeback is not exceeded" \
		test "$final" -le $((w_after + in_flight + 5))
	ktap_eq "that writeback ends with EIO" "$r" EIO
fi

# a new limit while failing writes are in flight: 16 idle slots go in
# bios that fail after 2 s (dm-delay over dm-error); the limit is set to 5
# before they fail. Their budget was debited from the old limit and must
# not be credited to the new one, which stays 5. Stock 6.12 waits for
# each write in turn (2 s per page): skipped there.
# failing_writeback LIMIT: an idle writeback of 16 slots whose writes fail
# after 2 s, batch 4, with the limit enabled at 100000; LIMIT is written
# 0.5 s in ("same": the value it holds then). Sets r (its result) and
# running (1 when it still ran after the write).
failing_writeback() {
	local limit=$1 wb_pid

	setup "$DM" 16 || ktap_bail "setup failed"
	echo 4 >"$ZRAM_SYS/writeback_batch_size"
	echo 1 >"$ZRAM_SYS/writeback_limit_enable"
	echo 100000 >"$ZRAM_SYS/writeback_limit"
	zram_write "$ZRAM_SYS/writeback" idle >/tmp/zram-wb3.$$ &
	wb_pid=$!
	zram_defer kill "$wb_pid"
	sleep 0.5
	[ "$limit" = same ] && limit=$(cat "$ZRAM_SYS/writeback_limit")
	echo "$limit" >"$ZRAM_SYS/writeback_limit"
	running=0
	kill -0 "$wb_pid" 2>/dev/null && running=1
	wait "$wb_pid"
	r=$(cat /tmp/zram-wb3.$$)
	rm -f /tmp/zram-wb3.$$
}

desc="a limit written while failing writes are in flight"
same="the value the limit holds written while failing writes are in flight"
if ! zram_attr_exists writeback_batch_size; then
	ktap_skip "$desc: EIO" "one page at a time (stock 6.12)"
	ktap_skip "$desc: stays as written" "one page at a time (stock 6.12)"
	ktap_skip "$same: all credited back" "one page at a time (stock 6.12)"
elif ! command -v dmsetup >/dev/null || ! modprobe dm-delay >/dev/null 2>&1 ||
	! zram_dm wb3err "0 32768 error" ||
	! zram_dm wb3delay "0 32768 delay $DM 0 2000"; then
	ktap_skip "$desc: EIO" "no dm-delay over dm-error"
	ktap_skip "$desc: stays as written" "no dm-delay over dm-error"
	ktap_skip "$same: all credited back" "no dm-delay over dm-error"
else
	failing_writeback 5
	ktap_info "$desc: writeback $r, still running when set: $running," \
		"bd_stat $(bd_stat)"
	ktap_eq "$desc: EIO, nothing written" "$r $(bd_count) $running" "EIO 0 1"
	ktap_eq "$desc: stays as written" "$(cat "$ZRAM_SYS/writeback_limit")" 5
	failing_writeback same
	ktap_eq "$same: all credited back" \
		"$r $running $(cat "$ZRAM_SYS/writeback_limit")" "EIO 1 100000"
fi

ktap_finish
