#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input for every writable attribute of an uninitialized device: the
# write fails with upstream's errno and the device state is unchanged.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"

regular=$(mktemp /tmp/zram-regular.XXXXXX)
zram_defer rm -f "$regular"
long=$(printf 'x%.0s' $(seq 200))

# attribute | input | errno (OK: accepted, value must still be unchanged)
rows=(
	"disksize|0|EINVAL"
	"disksize|abc|EINVAL"
	"disksize||EINVAL"
	"reset|0|EINVAL"
	"reset|abc|EINVAL"
	"reset|-1|EINVAL"
	"reset|70000|ERANGE"
	"comp_algorithm|nosuchalg|EINVAL"
	"comp_algorithm||EINVAL"
	"comp_algorithm|$long|E2BIG"
	"max_comp_streams|abc|OK"
	"mem_limit|abc|EINVAL"
	"mem_limit||EINVAL"
	"mem_limit|09|OK"
	"mem_limit|0x|OK"
	"mem_used_max|1|EINVAL"
	"mem_used_max|abc|EINVAL"
	"compact|1|EINVAL"
	"idle|all|EINVAL"
	"idle|abc|EINVAL"
	"idle|-1|EINVAL"
	"backing_dev|/nonexistent/zram-bdev|ENOENT"
	"backing_dev|$regular|ENOTBLK"
	"backing_dev|$ZRAM_DEV|EINVAL"
	"writeback|idle|EINVAL"
	"writeback|bogus|EINVAL"
	"writeback|page_index=abc|EINVAL"
	"writeback_limit|abc|EINVAL"
	"writeback_limit|-1|EINVAL"
	"writeback_limit||EINVAL"
	"writeback_limit_enable|abc|EINVAL"
	"writeback_limit_enable|-1|EINVAL"
	"writeback_limit_enable||EINVAL"
	"writeback_limit|0x10|EINVAL"
	"writeback_limit_enable|0x1|EINVAL"
	"algorithm_params|priority=4|EINVAL"
	"algorithm_params|priority=-1|EINVAL"
	"algorithm_params|algo=nosuchalg|EINVAL"
	"algorithm_params|level=|EINVAL"
	"algorithm_params|level=abc|EINVAL"
	"algorithm_params|level=3|OK"
	"writeback_batch_size|0|EINVAL"
	"writeback_batch_size|abc|EINVAL"
	"writeback_batch_size|-1|EINVAL"
)

ktap_plan $((${#rows[@]} + 3))

zram_check_input_rows "" "${rows[@]}"

ktap_check "hot_remove 'abc' -> EINVAL" expect_errno EINVAL "$ZRAM_CONTROL/hot_remove" abc
ktap_check "hot_remove '-1' -> EINVAL" expect_errno EINVAL "$ZRAM_CONTROL/hot_remove" -1
ktap_check "hot_remove of a missing id -> ENODEV" \
	expect_errno ENODEV "$ZRAM_CONTROL/hot_remove" 999999

ktap_finish
