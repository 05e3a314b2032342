#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before init, backing_dev can be replaced: it reads the new path, and
# the device it replaced is released (another zram can claim it). It
# reads the device node's path as upstream does: a symlink resolved, a
# relative path made absolute. A path written without a newline (as
# systemd's zram-generator writes it) is taken whole. Writing the attached
# device again fails with EBUSY (upstream's second exclusive open) and
# changes nothing.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
nb1=$NULLB
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
nb2=$NULLB
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
a_sys=$ZRAM_SYS
zram_add || ktap_skip_all "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS

first() {
	ktap_check "a free device is accepted" expect_errno OK "$a_sys/backing_dev" "$nb1"
}
first_reads() { ktap_eq "backing_dev reads the path" "$(cat "$a_sys/backing_dev")" "$nb1"; }
replace() {
	ktap_check "replacing it before init is accepted" \
		expect_errno OK "$a_sys/backing_dev" "$nb2"
}
replace_reads() {
	ktap_eq "backing_dev reads the new path" "$(cat "$a_sys/backing_dev")" "$nb2"
}
again() {
	ktap_check "writing the attached device again -> EBUSY" \
		expect_errno EBUSY "$a_sys/backing_dev" "$nb2"
}
again_reads() { ktap_eq "backing_dev still reads it" "$(cat "$a_sys/backing_dev")" "$nb2"; }
symlink() {
	link=$(mktemp -u /tmp/zram-bdev-link.XXXXXX)
	zram_defer rm -f "$link"
	ln -s "$nb1" "$link"
	ktap_check "a symlink to a device is accepted" \
		expect_errno OK "$a_sys/backing_dev" "$link"
}
symlink_reads() {
	ktap_eq "backing_dev reads the device's path" "$(cat "$a_sys/backing_dev")" "$nb1"
}
relative() {
	cd "$(dirname "$nb2")" || ktap_bail "cannot cd to $(dirname "$nb2")"
	ktap_check "a relative path is accepted" \
		expect_errno OK "$a_sys/backing_dev" "$(basename "$nb2")"
	cd - >/dev/null || ktap_bail "cannot return to $OLDPWD"
}
relative_reads() {
	ktap_eq "backing_dev reads it absolute" "$(cat "$a_sys/backing_dev")" "$nb2"
}
release_b() {
	ktap_check "resetting the other device releases it" \
		expect_errno OK "$b_sys/reset" 1
}
no_newline() {
	ktap_check "a path without a newline is accepted" \
		zram_write_full "$a_sys/backing_dev" "$nb1"
}
no_newline_reads() {
	ktap_eq "backing_dev reads that path whole" "$(cat "$a_sys/backing_dev")" "$nb1"
}
released() {
	ktap_check "the replaced device is released (another zram claims it)" \
		expect_errno OK "$b_sys/backing_dev" "$nb1"
}

ktap_run_cases first first_reads replace replace_reads again again_reads released \
	release_b symlink symlink_reads relative relative_reads no_newline \
	no_newline_reads
