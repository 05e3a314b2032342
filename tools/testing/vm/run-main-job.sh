#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make run): boot the test VM with the main job's data disk and
# a fresh sparse 1 GiB backing disk and run guest/main-job.sh there.
#
# Usage: tools/testing/vm/run-main-job.sh [ZRAM=ours|stock] [ZRAM_KO=PATH]
#        [DISKSIZE=1G] [TIMEOUT=SECONDS] [OUT=DIR]
#   ZRAM_KO is a path inside the guest (/repo/...). Exit status 0 = PASS.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

zram=ours
zram_ko=
disksize=1G
timeout_s=900
out=
for arg in "$@"; do
	case $arg in
	ZRAM=*) zram=${arg#ZRAM=} ;;
	ZRAM_KO=*) zram_ko=${arg#ZRAM_KO=} ;;
	DISKSIZE=*) disksize=${arg#DISKSIZE=} ;;
	TIMEOUT=*) timeout_s=${arg#TIMEOUT=} ;;
	OUT=*) out=${arg#OUT=} ;;
	*) sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
case $zram in
ours | stock) ;;
*) vm_die "ZRAM must be ours or stock" ;;
esac
if [ "$zram" = ours ] && [ -z "$zram_ko" ] &&
	[ ! -e "$repo_dir/drivers/block/zram/zram.ko" ]; then
	vm_die "drivers/block/zram/zram.ko is not built (build it first, or use ZRAM=stock)"
fi

vm_kernel
data=$("$vm_dir/mkmaindata.sh" | tail -1)
[ -n "$out" ] || out=$cache_dir/vm/runs/main-$zram-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
backing=$out/zbacking
rm -f "$backing"
truncate -s 1G "$backing"

envs=(--env "ZRAM=$zram" --env "DISKSIZE=$disksize")
[ -z "$zram_ko" ] || envs+=(--env "ZRAM_KO=$zram_ko")

rc=0
"$vm_dir/run.sh" --timeout "$timeout_s" --out "$out" "${envs[@]}" \
	--ro-disk "$data::zdata" --disk "$backing::zbacking" \
	-- /repo/tools/testing/vm/guest/main-job.sh || rc=$?
rm -f "$backing"
exit "$rc"
