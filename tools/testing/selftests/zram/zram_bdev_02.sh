#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The backing device is released on reset and on hot_remove, also when
# disksize was never set: another zram (O_EXCL claim) and mount can take it
# afterwards.

. "$(dirname "$0")/zram_lib.sh"

zram_wb_device
a_id=$ZRAM_ID
a_sys=$ZRAM_SYS
zram_add || ktap_skip_all "cannot hot_add a second zram device"
b_sys=$ZRAM_SYS
zram_nullb 16 || ktap_skip_all "cannot create null_blk"

ktap_plan 11

ktap_check "A claims the device (no disksize)" expect_errno OK "$a_sys/backing_dev" "$NULLB"
ktap_check "B cannot claim it -> EBUSY" expect_errno EBUSY "$b_sys/backing_dev" "$NULLB"
echo 1 >"$a_sys/reset"
ktap_eq "A reads none after reset" "$(cat "$a_sys/backing_dev")" none
ktap_check "B claims it after A's reset (uninitialized)" \
	expect_errno OK "$b_sys/backing_dev" "$NULLB"
echo 1 >"$b_sys/reset"

# initialized, with data written back, then reset
echo "$NULLB" >"$a_sys/backing_dev"
echo 16M >"$a_sys/disksize"
zram_fill_pages "/dev/zram$a_id" 0 32 random
echo all >"$a_sys/idle"
echo idle >"$a_sys/writeback"
ktap_eq "A wrote back 32 pages" "$(ZRAM_SYS=$a_sys bd_count)" 32
echo 1 >"$a_sys/reset"
ktap_check "B claims it after A's reset (initialized, written back)" \
	expect_errno OK "$b_sys/backing_dev" "$NULLB"
echo 1 >"$b_sys/reset"

# hot_remove, never initialized
echo "$NULLB" >"$a_sys/backing_dev"
ktap_check "hot_remove of A holding the device" \
	expect_errno OK "$ZRAM_CONTROL/hot_remove" "$a_id"
ktap_check "B claims it after A's hot_remove" expect_errno OK "$b_sys/backing_dev" "$NULLB"

# hot_remove, initialized; then prove with a mount
echo 16M >"$b_sys/disksize"
ktap_check "hot_remove of B (initialized)" \
	expect_errno OK "$ZRAM_CONTROL/hot_remove" "$ZRAM_ID"
zram_mktemp_dir
mnt=$MNT
ktap_check "mkfs.ext4 on the released device" mkfs.ext4 -q -F "$NULLB"
if zram_mount_ext4 "$NULLB" "$mnt"; then
	ktap_ok "mount of the released device"
	umount "$mnt"
else
	ktap_not_ok "mount of the released device"
fi

ktap_finish
