#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make run): boot the test VM with the main job's data disk and
# a fresh sparse 1 GiB backing disk and run guest/main-job.sh there.
# JOB=swap (make run JOB=swap) runs guest/swap-job.sh instead: zram as swap
# under a memory cgroup, writeback and re-read, on both drivers (each with
# a fresh sparse 1 GiB backing disk), the verdict from the ZRAM driver.
#
# Usage: tools/testing/vm/run-main-job.sh [JOB=main|swap] [ZRAM=ours|stock]
#        [ZRAM_KO=PATH] [DISKSIZE=1G] [TIMEOUT=SECONDS] [OUT=DIR]
#        [FILL_MB=256] [LIMIT_MB=64] [KERNEL=debian|debug]
#   ZRAM_KO is a path inside the guest (/repo/...). Exit status 0 = PASS.
#   FILL_MB, LIMIT_MB: the swap job's workload and memory cgroup limit.
#   KERNEL (default $ZRAM_KERNEL, else debian) is the kernel the VM boots
#   (run.sh --kernel).

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

job=main
extra_envs=()
zram=ours
zram_ko=
disksize=1G
timeout_s=900
out=
for arg in "$@"; do
	case $arg in
	JOB=*) job=${arg#JOB=} ;;
	ZRAM=*) zram=${arg#ZRAM=} ;;
	ZRAM_KO=*) zram_ko=${arg#ZRAM_KO=} ;;
	DISKSIZE=*) disksize=${arg#DISKSIZE=} ;;
	TIMEOUT=*) timeout_s=${arg#TIMEOUT=} ;;
	OUT=*) out=${arg#OUT=} ;;
	FILL_MB=* | LIMIT_MB=*) extra_envs+=(--env "$arg") ;;
	KERNEL=*) ZRAM_KERNEL=${arg#KERNEL=}; export ZRAM_KERNEL ;;
	*) sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
case $zram in
ours | stock) ;;
*) vm_die "ZRAM must be ours or stock" ;;
esac
case $job in
main | swap) ;;
*) vm_die "JOB must be main or swap" ;;
esac

vm_kernel
if [ "$zram" = ours ] && [ -z "$zram_ko" ] && [ ! -e "$ours_ko" ]; then
	vm_die "$ours_ko is not built (build it first, or use ZRAM=stock)"
fi
[ -n "$out" ] || out=$cache_dir/vm/runs/$job-$zram-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
envs=(--env "ZRAM=$zram" --env "DISKSIZE=$disksize" "${extra_envs[@]}")
[ -z "$zram_ko" ] || envs+=(--env "ZRAM_KO=$zram_ko")

# fresh sparse backing disks, removed afterwards
disks=()
backings=()
new_backing() {
	rm -f "$out/$1"
	truncate -s 1G "$out/$1"
	backings+=("$out/$1")
	disks+=(--disk "$out/$1::$1")
}
if [ "$job" = main ]; then
	data=$("$vm_dir/mkmaindata.sh" | tail -1)
	disks+=(--ro-disk "$data::zdata")
	new_backing zbacking
	cmd=/repo/tools/testing/vm/guest/main-job.sh
else
	# the workload runs from the shared tree
	make -s -C "$repo_dir/tools/testing/selftests/zram" all
	drivers="stock ours"
	[ "$zram" = stock ] && drivers="ours stock"
	for d in $drivers; do
		new_backing "zback-$d"
	done
	envs+=(--env "DRIVERS=$drivers")
	cmd=/repo/tools/testing/vm/guest/swap-job.sh
fi

rc=0
"$vm_dir/run.sh" --timeout "$timeout_s" --out "$out" "${envs[@]}" \
	"${disks[@]}" -- "$cmd" || rc=$?
rm -f "${backings[@]}"
exit "$rc"
