#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A mounted device cannot be reset: EBUSY, and the file system keeps its
# files.

# shellcheck disable=SC2317 # the cases run through ktap_run_cases
. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_cmd mkfs.ext4
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_init 16M || ktap_skip_all "cannot set disksize"
zram_mktemp_dir
mnt=$MNT
zram_mount_ext4 "$ZRAM_DEV" "$mnt" mkfs || ktap_skip_all "cannot mkfs.ext4/mount"
echo hello >"$mnt/f"

try_reset() {
	ktap_check "reset while mounted -> EBUSY" expect_errno EBUSY "$ZRAM_SYS/reset" 1
}
file_kept() {
	zram_drop_caches
	ktap_eq "file intact after the refused reset" "$(cat "$mnt/f")" hello
}

ktap_run_cases try_reset file_kept
