#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# backing_dev refuses a path that is not a usable block device: a regular
# file ENOTBLK, a missing path ENOENT, a directory (also through a symlink,
# and the empty path, which names the working directory) EISDIR, a device
# of size 0 (zram itself, an unbound loop device) or smaller than a page
# (a 2 KiB loop device) EINVAL; backing_dev reads "none" after each.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback

regular=$(mktemp /tmp/zram-regular.XXXXXX)
zram_defer rm -f "$regular"
truncate -s 16M "$regular"
dirlink=$regular.dir
zram_defer rm -f "$dirlink"
ln -s /tmp "$dirlink"
modprobe loop >/dev/null 2>&1
if ! loop=$(zram_losetup -f 2>/dev/null) || ! zram_wait_blockdev "$loop" 2; then
	loop=''
fi
small=''
zram_loop 2048 && small=$LOOP

# DESC|ERRNO|PATH (an empty PATH: not available here, skipped)
rows=(
	"regular file|ENOTBLK|$regular"
	"missing path|ENOENT|/nonexistent/zram-bdev"
	"directory|EISDIR|/tmp"
	"symlink to a directory|EISDIR|$dirlink"
	"zram itself (size 0)|EINVAL|$ZRAM_DEV"
	"unbound loop device (size 0)|EINVAL|$loop"
	"2 KiB loop device (under a page)|EINVAL|$small"
)

ktap_plan $((${#rows[@]} + 1))
cd /tmp || ktap_bail "no /tmp"
zram_bdev_refused "empty path (the working directory)" EISDIR ""
cd - >/dev/null || ktap_bail "cannot return to $OLDPWD"
for row in "${rows[@]}"; do
	IFS='|' read -r desc errno path <<<"$row"
	if [ -z "$path" ]; then
		ktap_skip "$desc -> $errno" "no free loop device"
	else
		zram_bdev_refused "$desc" "$errno" "$path"
	fi
done
ktap_finish
