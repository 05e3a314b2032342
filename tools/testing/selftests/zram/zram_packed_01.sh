#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compressed_writeback, upstream's ABI: off (0) by default; a boolean as
# kstrtobool() reads it (1/0, y/n, yes/no, on/off), anything else EINVAL;
# EBUSY once the device is initialized, the value unchanged; reset keeps
# it, as upstream. Stock 6.12 has no such attribute: the test skips.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_packed
attr=$ZRAM_SYS/compressed_writeback

# write_reads VALUE WANT: writing VALUE succeeds and the attribute reads WANT
# shellcheck disable=SC2317 # called through ktap_check
write_reads() {
	expect_errno OK "$attr" "$1" || return 1
	[ "$(cat "$attr")" = "$2" ] || { echo "# '$1' reads $(cat "$attr")"; return 1; }
}

ktap_plan 17
ktap_eq "off by default" "$(cat "$attr")" 0
for row in 1:1 0:0 y:1 n:0 yes:1 no:0 on:1 off:0 Y:1 N:0; do
	ktap_check "'${row%:*}' accepted, reads ${row#*:}" write_reads "${row%:*}" "${row#*:}"
done
zram_check_input_rows "uninitialized: " "compressed_writeback|2|EINVAL" \
	"compressed_writeback|maybe|EINVAL" "compressed_writeback||EINVAL"
echo 1 >"$attr"
zram_init 16M || ktap_bail "cannot set disksize"
zram_check_input_rows "initialized: " "compressed_writeback|0|EBUSY" \
	"compressed_writeback|1|EBUSY"
echo 1 >"$ZRAM_SYS/reset"
ktap_eq "reset keeps it" "$(cat "$attr")" 1
ktap_finish
