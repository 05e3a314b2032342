#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# backing_dev input errors: regular file ENOTBLK, missing path ENOENT,
# zero-size devices (unbound loop, zram itself) EINVAL, a device another
# holder has exclusively (mount, dm target, another zram) EBUSY, after
# init EBUSY. backing_dev reads "none" after every failure.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
a_sys=$ZRAM_SYS

regular=$(mktemp /tmp/zram-regular.XXXXXX)
zram_defer rm -f "$regular"
truncate -s 16M "$regular"

ktap_plan 18

# try DESC ERRNO PATH: the write fails with ERRNO and backing_dev is none.
try() {
	local bd

	if expect_errno "$2" "$a_sys/backing_dev" "$3"; then
		bd=$(cat "$a_sys/backing_dev")
		ktap_eq "$1 -> $2, backing_dev none" "$bd" none
	else
		ktap_not_ok "$1 -> $2, backing_dev none"
	fi
}

try "regular file" ENOTBLK "$regular"
try "missing path" ENOENT /nonexistent/zram-bdev
try "zram itself (size 0)" EINVAL "$ZRAM_DEV"

modprobe loop >/dev/null 2>&1
if free=$(zram_losetup -f 2>/dev/null) && zram_wait_blockdev "$free" 2; then
	try "unbound loop device (size 0)" EINVAL "$free"
else
	ktap_skip "unbound loop device (size 0) -> EINVAL" "no free loop device"
fi

zram_nullb 16 || ktap_bail "cannot create null_blk"
nb1=$NULLB
zram_mktemp_dir
mnt=$MNT
if zram_mount_ext4 "$nb1" "$mnt" mkfs; then
	try "mounted device" EBUSY "$nb1"
	umount "$mnt"
else
	ktap_skip "mounted device -> EBUSY" "cannot mkfs.ext4/mount"
fi

if modprobe dm-mod >/dev/null 2>&1 && dmsetup version >/dev/null 2>&1 &&
	zram_dm lin "0 $(zram_sectors "$nb1") linear $nb1 0"; then
	try "device under a dm target" EBUSY "$nb1"
	dmsetup remove --retry "$DM_NAME" >/dev/null 2>&1
else
	ktap_skip "device under a dm target -> EBUSY" "no device mapper"
fi

# a second zram holds nb1 as its backing device
zram_add || ktap_bail "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS
ktap_check "second zram claims the device" expect_errno OK "$b_sys/backing_dev" "$nb1"
try "device held by another zram" EBUSY "$nb1"
ktap_check "the holder still reads the path" \
	test "$(cat "$b_sys/backing_dev")" = "$nb1"
echo 1 >"$b_sys/reset"

# success, replacement before init, EBUSY after init
zram_nullb 16 || ktap_bail "cannot create null_blk"
nb2=$NULLB
ktap_check "free device accepted" expect_errno OK "$a_sys/backing_dev" "$nb1"
ktap_eq "backing_dev reads the path" "$(cat "$a_sys/backing_dev")" "$nb1"
ktap_check "replacing it before init accepted" expect_errno OK "$a_sys/backing_dev" "$nb2"
ktap_eq "backing_dev reads the new path" "$(cat "$a_sys/backing_dev")" "$nb2"
ktap_check "the replaced device is released" expect_errno OK "$b_sys/backing_dev" "$nb1"
echo 1 >"$b_sys/reset"
echo 16M >"$a_sys/disksize"
ktap_check "backing_dev after init -> EBUSY" expect_errno EBUSY "$a_sys/backing_dev" "$nb1"
ktap_eq "backing_dev unchanged after EBUSY" "$(cat "$a_sys/backing_dev")" "$nb2"
ktap_check "backing_dev 'none' after init -> EBUSY" expect_errno EBUSY "$a_sys/backing_dev" none
ktap_eq "nb1 still free (EBUSY path did not claim it)" \
	"$(zram_write "$b_sys/backing_dev" "$nb1")" OK

ktap_finish
