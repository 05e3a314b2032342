#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reset keeps the writeback knobs, as upstream's code does: after a reset
# writeback_limit, writeback_limit_enable, writeback_batch_size and
# compressed_writeback read what was written before, while the device
# itself is back to uninitialized. Knobs the driver lacks are skipped.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
zram_nullb 16 || ktap_skip_all "cannot create null_blk"

rows=("writeback_limit|12345" "writeback_limit_enable|1"
	"writeback_batch_size|7" "compressed_writeback|1")

ktap_plan $((${#rows[@]} + 1))
for row in "${rows[@]}"; do
	zram_attr_exists "${row%|*}" && echo "${row#*|}" >"$ZRAM_SYS/${row%|*}"
done
echo "$NULLB" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
zram_init 16M || ktap_bail "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 16 text
echo 1 >"$ZRAM_SYS/reset"
ktap_eq "reset: uninitialized" "$(cat "$ZRAM_SYS/initstate")" 0
for row in "${rows[@]}"; do
	if zram_attr_exists "${row%|*}"; then
		ktap_eq "reset keeps ${row%|*} ${row#*|}" \
			"$(cat "$ZRAM_SYS/${row%|*}")" "${row#*|}"
	else
		ktap_skip "reset keeps ${row%|*}" "no ${row%|*} attribute"
	fi
done
ktap_finish
