#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel (or the debug kernel) with the test initramfs under
# QEMU (TCG) and run one command in the guest. The repo is shared read-only
# as /repo, a fresh results folder as /out. Exit status = the guest
# command's exit status.
#
# Usage: tools/testing/vm/run.sh [options] -- CMD [ARGS...]
#   CMD is a path as the guest sees it (/repo/...).
# Options:
#   --kernel debian|debian-6.12|debug
#                    the kernel to boot (default: $ZRAM_KERNEL, else debian):
#                    Debian's 7.3 image, Debian's 6.12 image or the debug
#                    kernel (tools/kernel/build-debug.sh); the initramfs is
#                    built from that kernel's modules, and ZRAM_KO in the
#                    guest names our zram.ko built for it (unless --env
#                    sets it)
#   --disk FILE[::SERIAL]
#                    attach FILE as a virtio-blk disk (repeatable; the guest
#                    sees vda, vdb, ... in this order). The serial
#                    (/sys/block/vdX/serial) is SERIAL, default the file name.
#                    A missing FILE is created sparse with --disk-size.
#   --ro-disk FILE[::SERIAL]   same, read-only
#   --disk-size SIZE size for disks created by --disk (default 1G)
#   --timeout SECS   kill QEMU and fail after SECS (default 900)
#   --out DIR        results folder (default .cache/results/vm/<time>-<pid>);
#                    it gets console.log, dmesg.txt, rc and whatever the
#                    command writes to /out
#   --env VAR=VALUE  set VAR in the guest command's environment (repeatable)
#   --mem SIZE       guest memory (default 4G)
#   --smp N          guest CPUs (default 2)
#   --append ARGS    extra kernel command line arguments
#   --initramfs FILE use this initramfs instead of building the default one
#   --quiet          do not stream the console to stdout (log file only)

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() { sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }

disks=()
disk_ro=()
disk_size=1G
timeout_s=900
out=
envs=()
mem=4G
smp=2
append=
initramfs=
quiet=0

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) ZRAM_KERNEL=${2:?}; export ZRAM_KERNEL; shift 2 ;;
	--disk) disks+=("${2:?}"); disk_ro+=(off); shift 2 ;;
	--ro-disk) disks+=("${2:?}"); disk_ro+=(on); shift 2 ;;
	--disk-size) disk_size=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--env) envs+=("${2:?}"); shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--initramfs) initramfs=${2:?}; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
[ $# -ge 1 ] || usage
[[ $timeout_s =~ ^[1-9][0-9]{0,6}$ ]] ||
	vm_die "the timeout must be a whole number of seconds, not '$timeout_s'"
[[ $smp =~ ^[1-9][0-9]?$ ]] || vm_die "--smp must be a CPU count, not '$smp'"

vm_kernel
if [ -z "$initramfs" ]; then
	initramfs=$vm_initramfs
	"$vm_dir/mkinitramfs.sh" "$initramfs"
fi
case " ${envs[*]} " in
*" ZRAM_KO="*) ;;
*) envs=("ZRAM_KO=$ours_ko_guest" "${envs[@]}") ;;
esac

if [ -z "$out" ]; then
	out=$results_dir/vm/$(date +%Y%m%d-%H%M%S)-$$
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/rc" "$out/console.log" "$out/dmesg.txt"
log=$out/console.log

# The command and its environment go to /out/cmd.sh, quoted for bash.
{
	echo '#!/bin/bash'
	for e in "${envs[@]}"; do
		printf 'export %q=%q\n' "${e%%=*}" "${e#*=}"
	done
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$out/cmd.sh"
chmod +x "$out/cmd.sh"

# Prefer cache=none,aio=native; fall back when the host file system or
# QEMU build does not support it.
drive_opts() {
	local file=$1 opts

	for opts in cache=none,aio=native cache=none,aio=threads cache=writeback,aio=threads; do
		if echo quit | qemu-system-x86_64 -machine none -nodefaults -display none \
			-monitor stdio -drive "file=$file,if=none,id=probe,format=raw,$opts" \
			>/dev/null 2>&1; then
			echo "$opts"
			return
		fi
	done
	vm_die "QEMU cannot open $file"
}

qemu=(
	qemu-system-x86_64
	-accel "tcg,thread=multi" -cpu max -smp "$smp" -m "$mem"
	-nographic -no-reboot -nic none
	-kernel "$kernel_image" -initrd "$initramfs"
	-append "console=ttyS0 panic=-1 loglevel=5 $kernel_append zcmd=/out/cmd.sh $append"
	-virtfs "local,path=$repo_dir,mount_tag=repo,security_model=none,readonly=on,id=repo"
	-virtfs "local,path=$out,mount_tag=out,security_model=none,id=out"
)
for i in "${!disks[@]}"; do
	file=${disks[$i]%%::*}
	serial=${file##*/}
	case ${disks[$i]} in
	*::*) serial=${disks[$i]#*::} ;;
	esac
	serial=${serial:0:20}
	if [ ! -e "$file" ]; then
		[ "${disk_ro[$i]}" = off ] || vm_die "$file does not exist"
		truncate -s "$disk_size" "$file"
	fi
	opts=$(drive_opts "$file")
	qemu+=(-drive "file=$file,if=none,id=disk$i,format=raw,$opts,readonly=${disk_ro[$i]}"
		-device "virtio-blk-pci,drive=disk$i,serial=$serial")
	letters=abcdefghijklmnopqrstuvwxyz
	vm_log "disk vd${letters:$i:1}: $file (serial $serial, $opts, readonly=${disk_ro[$i]})"
done

vm_log "kernel $KVER, results in $out"
vm_log "console log: $log"
# Boots the VM once; sets qemu_rc. --foreground keeps QEMU in our process
# group, so that a Ctrl-C (or a kill of the group) stops it with us rather
# than leaving it running until the guest ends or the timeout.
boot() {
	set +e
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 |
		sed -u 's/\r$//' | tee "$log" |
		if [ "$quiet" = 1 ]; then cat >/dev/null; else sed -u 's/^/[guest] /'; fi
	qemu_rc=${PIPESTATUS[0]}
	set -e
}

# QEMU ends with 0 on SIGINT: stop here, never boot again after it.
trap 'vm_log "interrupted; QEMU stopped"; exit 130' INT TERM HUP
start=$(date +%s.%N)
boot
# Under TCG the kernel rarely dies while booting (an int3 oops while it
# patches its own code, seen once in ~50 boots). The command had not been
# started then, so booting again is safe; a crash after it started is not
# retried.
if [ ! -s "$out/rc" ] && [ "$qemu_rc" != 124 ] && [ "$qemu_rc" != 137 ] &&
	! grep -q '\[init\] up .*running:' "$log"; then
	mv "$log" "$out/console-failed-boot.log"
	vm_log "the kernel died before the command started" \
		"(see $out/console-failed-boot.log); booting once more"
	boot
fi
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	vm_log "TIMEOUT after ${timeout_s}s, QEMU killed (wall ${wall}s, log $log)"
	exit 124
fi
if [ ! -s "$out/rc" ]; then
	vm_log "no exit code from the guest (QEMU rc $qemu_rc, wall ${wall}s, log $log)"
	exit 1
fi
rc=$(cat "$out/rc")
vm_log "guest command exit code $rc, QEMU rc $qemu_rc, wall ${wall}s"
if [ "${ZRAM_KERNEL:-debian}" = debug ]; then
	vm_log "debug kernel: $(vm_reports "$out") kernel report(s) in this boot" \
		"(see $out/reports.txt)"
fi
[ "$rc" -ge 0 ] 2>/dev/null || rc=1
exit "$rc"
