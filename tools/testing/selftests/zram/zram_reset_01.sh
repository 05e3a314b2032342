#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reset: EBUSY while the device is open (file descriptor or mount), data
# intact (hot_remove too); succeeds once closed and returns the device to the uninitialized
# state; writing 0 gives EINVAL.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_fill_pages "$ZRAM_DEV" 0 64 text
sum=$(zram_read_all "$ZRAM_DEV")

ktap_plan 12

exec 3<"$ZRAM_DEV"
ktap_check "reset with an open descriptor -> EBUSY" expect_errno EBUSY "$ZRAM_SYS/reset" 1
ktap_eq "data intact after the refused reset" "$(zram_read_all "$ZRAM_DEV")" "$sum"
ktap_eq "disksize unchanged" "$(cat "$ZRAM_SYS/disksize")" $((16 << 20))
ktap_check "hot_remove with an open descriptor -> EBUSY" \
	expect_errno EBUSY "$ZRAM_CONTROL/hot_remove" "$ZRAM_ID"
ktap_eq "data intact after the refused hot_remove" "$(zram_read_all "$ZRAM_DEV")" "$sum"
exec 3<&-

zram_mktemp_dir
mnt=$MNT
if command -v mkfs.ext4 >/dev/null && zram_mount_ext4 "$ZRAM_DEV" "$mnt" mkfs; then
	echo hello >"$mnt/f"
	ktap_check "reset while mounted -> EBUSY" expect_errno EBUSY "$ZRAM_SYS/reset" 1
	ktap_eq "file intact after the refused reset" "$(cat "$mnt/f")" hello
	umount "$mnt"
else
	ktap_skip "reset while mounted -> EBUSY" "cannot mkfs.ext4/mount"
	ktap_skip "file intact after the refused reset" "cannot mkfs.ext4/mount"
fi

ktap_check "reset 0 -> EINVAL" expect_errno EINVAL "$ZRAM_SYS/reset" 0
ktap_eq "initstate still 1 after reset 0" "$(cat "$ZRAM_SYS/initstate")" 1
ktap_check "reset once closed succeeds" expect_errno OK "$ZRAM_SYS/reset" 1
ktap_eq "initstate 0 after reset" "$(cat "$ZRAM_SYS/initstate")" 0
ktap_eq "disksize 0 after reset" "$(cat "$ZRAM_SYS/disksize")" 0

ktap_finish
