#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, in the test VM: put real data (kernel sources + modules from
# the disk with serial "zdata") on an ext4 file system on /dev/zram0, write
# all idle pages back to the backing device (disk with serial "zbacking"),
# then drop the page cache and verify every file's sha256.
#
# Environment: ZRAM=ours|stock (default ours), DISKSIZE (default 1G),
# ZRAM_KO (passed on to zram-load.sh).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
zram_mode=${ZRAM:-ours}
disksize=${DISKSIZE:-1G}
zsys=/sys/block/zram0
data_mnt=/mnt/data
zram_mnt=/mnt/zram
sums=/tmp/sha256.guest

now() { read -r t _ </proc/uptime; echo "$t"; }
t_start=$(now)
say() { printf '[main-job %7.1fs] %s\n' "$(awk -v a="$t_start" -v b="$(now)" 'BEGIN { print b - a }')" "$*"; }
die() { say "FAILED: $*"; exit 1; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# with_progress FUNC CMD...: run CMD, printing a progress line made by
# FUNC every 10 seconds while it runs (to fd 3, the console, so that CMD's
# output can be redirected). Returns CMD's exit status.
exec 3>&1
with_progress() {
	local pid rc=0 n=0 progress=$1

	shift
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		if [ $((n % 10)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
			say "  ... $("$progress")" >&3
		fi
	done
	wait "$pid" || rc=$?
	return "$rc"
}

# the stat fields: zram_field, bd_count, bd_reads, bd_writes
# shellcheck source=../../selftests/zram/zram_sys.sh
. "$here/../../selftests/zram/zram_sys.sh"
ZRAM_SYS=$zsys

# mm_stat fields by name
mm() {
	local i
	case $1 in
	orig) i=1 ;; compr) i=2 ;; used) i=3 ;; huge) i=8 ;; same) i=6 ;;
	esac
	zram_field mm_stat "$i"
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
pages_mib() { awk -v p="$1" 'BEGIN { printf "%.1f MiB", p * 4096 / 1048576 }'; }
show_stats() {
	say "$1 mm_stat: $(cat "$zsys/mm_stat")"
	say "$1 bd_stat: $(cat "$zsys/bd_stat")"
	say "$1 orig $(mib "$(mm orig)"), compr $(mib "$(mm compr)"), mem_used $(mib "$(mm used)"), on backing dev $(pages_mib "$(bd_count)")"
}

say "driver: $zram_mode, disksize $disksize"
"$here/zram-load.sh" "$zram_mode" || die "cannot load the $zram_mode zram driver"

data_dev=$("$here/disk-by-serial.sh" zdata) || die "no data disk (serial zdata) attached"
back_dev=$("$here/disk-by-serial.sh" zbacking) || die "no backing disk (serial zbacking) attached"
zram_wait_blockdev "$data_dev" || die "$data_dev did not appear"
zram_wait_blockdev "$back_dev" || die "$back_dev did not appear"
say "data disk $data_dev, backing device $back_dev ($(($(cat "/sys/block/${back_dev#/dev/}/size") / 2048)) MiB)"

echo "$back_dev" >"$zsys/backing_dev" || die "cannot set backing_dev"
echo "$disksize" >"$zsys/disksize" || die "cannot set disksize"
say "zram0: backing_dev $(cat "$zsys/backing_dev"), comp_algorithm: $(cat "$zsys/comp_algorithm")"

mkdir -p "$data_mnt" "$zram_mnt"
mount -t ext4 -o ro "$data_dev" "$data_mnt" || die "cannot mount the data disk"
t=$(now)
mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 /dev/zram0 ||
	die "mkfs.ext4 on zram0 failed"
mount -t ext4 /dev/zram0 "$zram_mnt" || die "cannot mount zram0"
say "mkfs.ext4 + mount: $(since "$t") s"

files=$(wc -l <"$data_mnt/SHA256SUMS")
say "copying $files files ($(du -sm "$data_mnt" | cut -f1) MiB) into zram"
copy_progress() { echo "copied $(du -sm "$zram_mnt" | cut -f1) MiB, zram orig $(mib "$(mm orig)")"; }
t=$(now)
with_progress copy_progress cp -a "$data_mnt/src" "$data_mnt/bin" "$zram_mnt/" || die "copy failed"
with_progress copy_progress sync || die "sync failed"
t_copy=$(since "$t")
say "copy + sync: $t_copy s"

say "recording sha256 of every file on zram"
hash_progress() { echo "$(wc -l <"$sums") files hashed"; }
t=$(now)
(cd "$zram_mnt" && find src bin -type f -print0 | sort -z |
	with_progress hash_progress xargs -0 sha256sum >"$sums") || die "hashing failed"
say "hashed $(wc -l <"$sums") files in $(since "$t") s"
if ! cmp -s "$sums" "$data_mnt/SHA256SUMS"; then
	diff "$data_mnt/SHA256SUMS" "$sums" | sed -n 1,20p
	die "the copy on zram differs from the host's manifest"
fi
say "copy matches the host's manifest"
sync

show_stats "before writeback:"
used_before=$(mm used)
writes_before=$(bd_writes)

echo all >"$zsys/idle" || die "cannot mark pages idle"
say "writeback of idle pages started"
wb_progress() { echo "written back $(pages_mib "$(bd_count)")"; }
t=$(now)
writeback() { echo idle >"$zsys/writeback"; }
with_progress wb_progress writeback || die "writeback failed"
t_wb=$(since "$t")
say "writeback took $t_wb s"

show_stats "after writeback:"
used_after=$(mm used)
written=$(($(bd_writes) - writes_before))
freed=$((used_before - used_after))

echo 1 >"$zsys/compact" || say "note: compact failed"
used_compact=$(mm used)
say "after compaction: mem_used $(mib "$used_compact")"

echo 3 >/proc/sys/vm/drop_caches
reads_before=$(bd_reads)
say "caches dropped, verifying all $files checksums"
verify_progress() { echo "read back $(pages_mib $(($(bd_reads) - reads_before))) from the backing device"; }
t=$(now)
set +e
(cd "$zram_mnt" && with_progress verify_progress sha256sum -c "$sums") >/tmp/verify.out 2>&1
verify_rc=$?
set -e
t_verify=$(since "$t")
n_ok=$(grep -c ': OK$' /tmp/verify.out || true)
n_failed=$((files - n_ok))
if [ "$n_failed" -ne 0 ] || [ "$verify_rc" -ne 0 ]; then
	# sed reads all its input: no SIGPIPE for pipefail to turn into a
	# silent exit before the summary below.
	grep -v ': OK$' /tmp/verify.out | sed -n 1,20p || true
fi
read_back=$(($(bd_reads) - reads_before))
show_stats "after verify:"

umount "$zram_mnt"
umount "$data_mnt"
echo 1 >"$zsys/reset"

echo "================ main job summary ================"
echo "driver:            $zram_mode zram, disksize $disksize, backing $back_dev"
echo "data:              $files files, copy + sync $t_copy s"
echo "writeback:         $(pages_mib "$written") ($written pages) written in $t_wb s"
echo "RAM freed:         $(mib "$freed") (mem_used $(mib "$used_before") -> $(mib "$used_after"), $(mib "$used_compact") after compaction)"
echo "read back:         $(pages_mib "$read_back") from the backing device during verify ($t_verify s)"
echo "checksums: $files files, $n_ok ok, $n_failed failed"
echo "total wall time:   $(since "$t_start") s"
echo "=================================================="

if [ "$verify_rc" -ne 0 ] || [ "$n_failed" -ne 0 ] || [ "$n_ok" -ne "$files" ]; then
	die "checksum verification failed"
fi
[ "$written" -gt 0 ] || die "writeback wrote nothing"
say "PASS"
