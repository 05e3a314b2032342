#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hot_remove racing sysfs stores: 100 rounds of hot_add, two writers
# hammering the new device's attributes (backing_dev; and disksize, idle,
# writeback, comp_algorithm, algorithm_params, mem_limit, reset), and a
# hot_remove 50 ms later (the rounds are zram_scaled: each is the same
# race, and a slow kernel runs fewer). Every store must fail cleanly or
# complete before the removal: hot_remove succeeds, the writers return,
# the id can be used again, the backing device is released (another zram
# device can claim it), and the kernel logs no oops or warning
# (run_all.sh checks dmesg).

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_nullb 16 || ktap_skip_all "cannot create a null_blk device"
# the device above stays for the last check; the rounds use their own
zram_remove "$ZRAM_ID"
rounds=$(zram_scaled 100 25)

# writer_bdev SYS: set the backing device over and over.
writer_bdev() {
	while [ -e "$1/backing_dev" ]; do
		echo "$NULLB" >"$1/backing_dev"
	done 2>/dev/null
}

# writer_config SYS: initialize, use and reset the device over and over.
writer_config() {
	while [ -e "$1/disksize" ]; do
		echo lz4 >"$1/comp_algorithm"
		echo "algo=lz4 level=1" >"$1/algorithm_params"
		echo 8M >"$1/disksize"
		echo 4M >"$1/mem_limit"
		echo all >"$1/idle"
		echo huge >"$1/writeback"
		echo 1 >"$1/reset"
	done 2>/dev/null
}

ktap_plan 4
removed=0
stuck=0
for ((i = 0; i < rounds; i++)); do
	id=$(cat "$ZRAM_CONTROL/hot_add") || break
	sys=/sys/block/zram$id
	writer_bdev "$sys" &
	p1=$!
	writer_config "$sys" &
	p2=$!
	sleep 0.05
	if echo "$id" >"$ZRAM_CONTROL/hot_remove" 2>/dev/null; then
		removed=$((removed + 1))
	else
		# open by udev-like probing or EBUSY: try once more, then move on
		sleep 0.1
		echo "$id" >"$ZRAM_CONTROL/hot_remove" 2>/dev/null &&
			removed=$((removed + 1))
	fi
	# the writers end when the attributes are gone; a hung one is a bug
	for p in $p1 $p2; do
		if ! zram_pid_ended "$p" 10; then
			stuck=$((stuck + 1))
			kill -9 "$p" 2>/dev/null
		fi
		wait "$p" 2>/dev/null
	done
	[ -e "$sys" ] && zram_remove "$id"
done
ktap_eq "hot_remove succeeded in every round" "$removed" "$rounds"
ktap_eq "every store returned" "$stuck" 0

zram_add || ktap_bail "hot_add after the rounds failed"
ktap_ok "hot_add works after the rounds (id $ZRAM_ID)"
ktap_eq "the backing device was released" \
	"$(zram_write "$ZRAM_SYS/backing_dev" "$NULLB")" OK
ktap_finish
