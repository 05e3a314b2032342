#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make run): boot the test VM with the main job's data disk and
# a fresh sparse 1 GiB backing disk and run guest/main-job.sh there.
# JOB=swap (make run JOB=swap) runs guest/swap-job.sh instead: zram as swap
# under a memory cgroup, writeback and re-read, on both drivers (each with
# a fresh sparse 1 GiB backing disk), the verdict from the ZRAM driver.
#
# Usage: tools/testing/vm/run-main-job.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   JOB=main|swap      the job (default main)
#   ZRAM=ours|stock    the driver; the swap job runs both and this one's
#                      result is the verdict (default ours)
#   KERNEL=NAME        the kernel the VM boots: debian (Debian's 7.3),
#                      debian-6.12 or debug (default $ZRAM_KERNEL, else
#                      debian)
#   TIMEOUT=SECONDS    kill the VM after this (default 900)
#   OUT=DIR            results folder (default
#                      .cache/results/run/JOB-ZRAM-TIME)
#   VM_RUN_ARGS        more options for run.sh (e.g. "--quiet")
#   DISKSIZE=1G        zram's disksize
#   FILL_MB=256 LIMIT_MB=64  the swap job's workload and memory cgroup limit
#   SRC_MIB=170 BIN_MIB=50   the main job's data: MiB of kernel sources and
#                      of compressed modules (tools/testing/vm/mkmaindata.sh)
#   ZRAM_KO=PATH       our zram.ko as the guest sees it (/repo/...)
#   Exit status 0 = PASS.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

vm_options JOB ZRAM KERNEL TIMEOUT OUT VM_RUN_ARGS DISKSIZE FILL_MB LIMIT_MB \
	ZRAM_KO SRC_MIB BIN_MIB -- "$@"
job=${JOB:-main}
zram=${ZRAM:-ours}
zram_ko=${ZRAM_KO:-}
disksize=${DISKSIZE:-1G}
timeout_s=${TIMEOUT:-900}
out=${OUT:-}
extra_envs=()
[ -z "${FILL_MB:-}" ] || extra_envs+=(--env "FILL_MB=$FILL_MB")
[ -z "${LIMIT_MB:-}" ] || extra_envs+=(--env "LIMIT_MB=$LIMIT_MB")
vm_check_drivers "$zram"
case $job in
main | swap) ;;
*) vm_die "JOB must be main or swap" ;;
esac

vm_kernel
if [ "$zram" = ours ] && [ -z "$zram_ko" ] && [ ! -e "$ours_ko" ]; then
	vm_die "$ours_ko is not built (build it first, or use ZRAM=stock)"
fi
[ -n "$out" ] || out=$results_dir/run/$job-$zram-$(date +%Y%m%d-%H%M%S)
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
	data=$(SRC_MIB=${SRC_MIB:-170} BIN_MIB=${BIN_MIB:-50} "$vm_dir/mkmaindata.sh" | tail -1)
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
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
"$vm_dir/run.sh" --timeout "$timeout_s" --out "$out" "${envs[@]}" \
	"${disks[@]}" ${VM_RUN_ARGS:-} -- "$cmd" || rc=$?
rm -f "${backings[@]}"
exit "$rc"
