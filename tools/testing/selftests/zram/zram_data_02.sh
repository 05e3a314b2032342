#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real file tree in ext4 on zram keeps its checksums across an idle
# writeback, a page-cache drop and re-reads, and across changes written
# after the writeback plus a second writeback.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_require_nullb
zram_require_cmd mkfs.ext4 sha256sum find xargs
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
zram_nullb 128 || ktap_skip_all "cannot create null_blk"
zram_mktemp_dir
mnt=$MNT
sums=$(mktemp /tmp/zram-sums.XXXXXX)
zram_defer rm -f "$sums"

ktap_plan 9

echo "$NULLB" >"$ZRAM_SYS/backing_dev"
zram_init 128M || ktap_bail "cannot set disksize"
zram_mount_ext4 "$ZRAM_DEV" "$mnt" mkfs || ktap_bail "cannot make/mount ext4"

# up to 40 MiB of real files (zram_scaled), these scripts first: the
# changes below edit them
src=()
for d in "$(cd "$zram_lib_dir" && pwd)" /usr/lib/modules /usr/bin /usr/sbin \
	/usr/lib/x86_64-linux-gnu /usr/share; do
	[ -d "$d" ] && src+=("$d")
done
max_mb=$(zram_scaled 40 12)
mkdir "$mnt/tree"
for d in "${src[@]}"; do
	used=$(du -sm "$mnt/tree" | cut -f1)
	[ "$(du -sm "$d" | cut -f1)" -le $((max_mb - used)) ] || continue
	mkdir -p "$mnt/tree/$d"
	cp -a "$d/." "$mnt/tree/$d/" 2>/dev/null
done
(cd "$mnt/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$sums"
files=$(wc -l <"$sums")
ktap_info "$files files, $(du -sh "$mnt/tree" | cut -f1)"
ktap_check "tree copied ($files files)" test "$files" -gt 50

# shellcheck disable=SC2317 # called through ktap_check
verify() {
	(cd "$mnt/tree" && sha256sum -c --quiet "$sums" >/dev/null 2>&1)
}

umount "$mnt"
echo all >"$ZRAM_SYS/idle"
ktap_check "idle writeback" expect_errno OK "$ZRAM_SYS/writeback" idle
ktap_eq "every stored slot but the same-filled ones was written back" "$(bd_count)" \
	$(($(zram_field mm_stat 1) / 4096 - $(zram_field mm_stat 6)))
zram_drop_caches
mount -t ext4 "$ZRAM_DEV" "$mnt" || ktap_bail "cannot remount"
ktap_check "checksums after writeback and drop_caches" verify
zram_drop_caches
ktap_check "checksums on a second read" verify

# change some files, write back again
reads=$(bd_reads)
find "$mnt/tree" -type f -name '*.sh' | head -50 | while read -r f; do
	echo "# changed" >>"$f"
done
(cd "$mnt/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$sums"
umount "$mnt"
echo all >"$ZRAM_SYS/idle"
ktap_check "second idle writeback" expect_errno OK "$ZRAM_SYS/writeback" idle
zram_drop_caches
mount -t ext4 "$ZRAM_DEV" "$mnt" || ktap_bail "cannot remount"
ktap_check "checksums after changes and a second writeback" verify
ktap_check "reads went to the backing device" test "$(bd_reads)" -gt "$reads"
umount "$mnt"
ktap_check "e2fsck clean" zram_quiet e2fsck -fn "$ZRAM_DEV"

ktap_finish
