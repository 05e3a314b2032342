#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# backing_dev refuses with EBUSY a device that another holder has
# exclusively: a mounted file system, a device-mapper target, another
# zram device (which keeps it); backing_dev reads "none" after each.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_nullb 16 || ktap_skip_all "cannot create null_blk"
nb=$NULLB
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
a_sys=$ZRAM_SYS
zram_add || ktap_skip_all "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS
ZRAM_SYS=$a_sys
zram_mktemp_dir
mnt=$MNT

mounted() {
	if zram_mount_ext4 "$nb" "$mnt" mkfs; then
		zram_bdev_refused "mounted device" EBUSY "$nb"
		umount "$mnt"
	else
		ktap_skip "mounted device -> EBUSY" "cannot mkfs.ext4/mount"
	fi
}
dm_target() {
	if modprobe dm-mod >/dev/null 2>&1 && dmsetup version >/dev/null 2>&1 &&
		zram_dm lin "0 $(zram_sectors "$nb") linear $nb 0"; then
		zram_bdev_refused "device under a dm target" EBUSY "$nb"
		dmsetup remove --retry "$DM_NAME" >/dev/null 2>&1
	else
		ktap_skip "device under a dm target -> EBUSY" "no device mapper"
	fi
}
other_claims() {
	ktap_check "a second zram claims the device" \
		expect_errno OK "$b_sys/backing_dev" "$nb"
}
other_holds() { zram_bdev_refused "device held by another zram" EBUSY "$nb"; }
holder_keeps() {
	ktap_eq "the holder still reads the path" "$(cat "$b_sys/backing_dev")" "$nb"
}

ktap_run_cases mounted dm_target other_claims other_holds holder_keeps
