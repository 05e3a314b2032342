# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the host-side VM scripts. Source it, do not run it.

vm_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$vm_dir/../../.." && pwd)
cache_dir=$repo_dir/.cache
# Caches that outlive a checkout (the debug kernel build), shared by every
# clone on the machine, CI's included: ZRAM_KCACHE, default
# /var/cache/zram-rework. make fresh-check bind-mounts it into its root.
# shellcheck disable=SC2034 # for the scripts that source this file
kcache_dir=${ZRAM_KCACHE:-/var/cache/zram-rework}
# Every job's results, one folder per job: .cache/results/<job>/
# (run, selftests, kselftest, check-vm, check-debug, bench, soak, dkms,
# and vm for run.sh alone). OUT=DIR puts one job's elsewhere.
# shellcheck disable=SC2034 # for the scripts that source this file
results_dir=$cache_dir/results

vm_log() { printf '[vm] %s\n' "$*" >&2; }
vm_die() { printf '[vm] error: %s\n' "$*" >&2; exit 1; }
# vm_libs_of PROGRAM...: the shared libraries each PROGRAM loads and the
# dynamic loader, one absolute path per line, as ldd reports them (the
# lines "name => path" and the loader's own absolute path).
vm_libs_of() {
	local path

	for path in "$@"; do
		ldd "$path" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// { print $1 }'
	done
}

# vm_usage: the "# Usage:" paragraph of the running script; exits 2.
vm_usage() { sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }

# vm_options NAME... -- ARG...: the options of a VM job. Every job takes
# them the same way: NAME=VALUE in the environment or as arguments (as
# on make's command line; an argument wins). An argument that is not
# NAME=VALUE for one of the NAMEs prints the usage, and so does a variable
# of the environment that looks like a misspelt option: one named
# PREFIX_... where two or more NAMEs start with PREFIX_ (BENCH_, SOAK_).
# The options are left exported; for a job that takes KERNEL, KERNEL
# (debian, debian-6.12 or debug) also sets ZRAM_KERNEL, what vm_kernel,
# run.sh and tools/build/module.sh read. The table of every job's options
# is in README.md.
vm_options() {
	local -a names=()
	local arg

	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		names+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	for arg in "$@"; do
		case $arg in
		*=*) ;;
		*) vm_log "not an option of this job: '$arg'"; vm_usage ;;
		esac
		case " ${names[*]} " in
		*" ${arg%%=*} "*) export "${arg?}" ;;
		*) vm_log "not an option of this job: '${arg%%=*}'"; vm_usage ;;
		esac
	done
	vm_options_env "${names[@]}"
	case " ${names[*]} " in
	*" KERNEL "*)
		if [ -n "${KERNEL:-}" ]; then
			ZRAM_KERNEL=$KERNEL
			export ZRAM_KERNEL
		fi
		;;
	esac
}

# vm_options_env NAME...: prints the usage when the environment has a
# variable PREFIX_... that is none of the NAMEs, for each PREFIX_ that
# starts two or more of them: BENCH_IOWB_QDD=1 would otherwise be ignored.
vm_options_env() {
	local name prefix var
	local -A count=()

	for name in "$@"; do
		[[ $name == *_* ]] && count[${name%%_*}]=$((${count[${name%%_*}]:-0} + 1))
	done
	for prefix in "${!count[@]}"; do
		[ "${count[$prefix]}" -ge 2 ] || continue
		while read -r var; do
			case " $* " in
			*" $var "*) ;;
			*) vm_log "not an option of this job: '$var' (in the environment)"
			   vm_usage ;;
			esac
		done < <(compgen -e -X "!${prefix}_*")
	done
}

# vm_check_drivers DRIVER...: dies unless every DRIVER (ZRAM's values) is
# stock or ours.
vm_check_drivers() {
	local driver

	for driver in "$@"; do
		case $driver in
		stock | ours) ;;
		*) vm_die "ZRAM: '$driver' is neither stock nor ours" ;;
		esac
	done
}

# vm_kernel: selects the kernel the VM boots, from ZRAM_KERNEL:
#   debian       (default) Debian's 7.3 image, tools/kernel/fetch.sh
#   debian-6.12  Debian's 6.12 LTS image, tools/kernel/fetch.sh --series 6.12
#   debug        the debug kernel, tools/kernel/build-debug.sh (lockdep,
#                KASAN, kmemleak, fault injection; stock zram is an in-tree
#                module)
# Sets and exports KVER, kernel_root (a root with boot/ and lib/modules/),
# kernel_image, module_dir, kernel_src (the unpacked linux-source tree of
# its series), kernel_append (command line additions), vm_initramfs (the
# default initramfs for it), ours_ko and ours_ko_guest (our zram.ko built
# for that kernel, on the host and as the guest sees it).
vm_kernel() {
	case ${ZRAM_KERNEL:-debian} in
	debian)
		vm_kernel_debian 7.3 "$cache_dir"
		vm_initramfs=$cache_dir/vm/initramfs.cpio.gz
		ours_ko=$repo_dir/drivers/block/zram/zram.ko
		;;
	debian-6.12)
		vm_kernel_debian 6.12 "$cache_dir/k6.12"
		vm_initramfs=$cache_dir/vm/initramfs-6.12.cpio.gz
		ours_ko=$cache_dir/k6.12/zram/zram.ko
		;;
	debug) vm_kernel_debug ;;
	*) vm_die "ZRAM_KERNEL must be debian, debian-6.12 or debug, not '$ZRAM_KERNEL'" ;;
	esac
	ours_ko_guest=/repo/${ours_ko#"$repo_dir"/}
	kernel_image=$kernel_root/boot/vmlinuz-$KVER
	module_dir=$kernel_root/lib/modules/$KVER
	export KVER kernel_root kernel_image module_dir kernel_src kernel_append \
		vm_initramfs ours_ko ours_ko_guest
}

# vm_kernel_debian SERIES DIR: Debian's kernel of SERIES, cached in DIR by
# tools/kernel/fetch.sh (run when the cache is missing). KVER from the
# environment when DIR has that kernel (a caller's vm_kernel exported
# it), else the one DIR/kver names.
vm_kernel_debian() {
	local series=$1 dir=$2

	kernel_root=$dir/root
	kernel_src=$dir/linux-source
	kernel_append=
	if [ -n "${KVER:-}" ] && [ -e "$kernel_root/boot/vmlinuz-$KVER" ] &&
		[ -e "$kernel_root/lib/modules/$KVER/modules.dep" ]; then
		return
	fi
	KVER=$(cat "$dir/kver" 2>/dev/null || true)
	if [ -z "$KVER" ] || [ ! -e "$kernel_root/boot/vmlinuz-$KVER" ] ||
		[ ! -e "$kernel_root/lib/modules/$KVER/modules.dep" ] ||
		[ ! -e "$kernel_src/.extracted" ]; then
		vm_log "kernel cache missing, running tools/kernel/fetch.sh --series $series"
		KVER=$("$repo_dir/tools/kernel/fetch.sh" --series "$series" "$dir" |
			sed -n 's/^KVER=//p' | tail -1)
		[ -n "$KVER" ] || vm_die "fetch.sh did not print KVER"
	fi
}

# The debug kernel, built or taken from its cache ($ZRAM_KCACHE). Its KVER
# is its own, whatever the environment says.
vm_kernel_debug() {
	local out

	out=$("$repo_dir/tools/kernel/build-debug.sh") || vm_die "cannot build the debug kernel"
	kernel_root=$(sed -n 's/^KROOT=//p' <<<"$out" | tail -1)
	KVER=$(sed -n 's/^KVER=//p' <<<"$out" | tail -1)
	if [ -z "$kernel_root" ] || [ -z "$KVER" ]; then
		vm_die "build-debug.sh printed no KROOT/KVER"
	fi
	# every KASAN report, not just the first; room in the log for the
	# reports of a whole run; PCI interrupts routed without ACPI: the AML
	# loop of QEMU's _PRT method runs out of its 30 s under KASAN, lockdep
	# and TCG, and the devices then get no interrupt (virtio uses MSI-X).
	# The hang detectors wait longer than on hardware: this kernel under
	# TCG on a busy 2-core host is 10-50 times slower (hung task after
	# 480 s, soft lockup after 60 s, RCU stall after 100 s); a test's own
	# timeout is longer still, so a real hang is reported before it.
	# 4-level paging (no5lvl): with -cpu max the kernel runs 5-level, and
	# identify_cpu() clears the CPU's feature bits for a moment at boot;
	# KASAN then takes every direct-map address for a wild one, and an
	# interrupt in that window reports from the handler, again on each
	# tick, as long as the reports outlast a tick: the boot never ends.
	kernel_src=$cache_dir/linux-source
	kernel_append="kasan_multi_shot log_buf_len=8M acpi=noirq no5lvl"
	kernel_append+=" sysctl.kernel.hung_task_timeout_secs=480 watchdog_thresh=30"
	kernel_append+=" rcupdate.rcu_cpu_stall_timeout=100"
	vm_initramfs=$cache_dir/vm/initramfs-debug.cpio.gz
	ours_ko=$cache_dir/kdebug/zram/zram.ko
}

# shellcheck source=../selftests/zram/zram_dmesg.sh
. "$repo_dir/tools/testing/selftests/zram/zram_dmesg.sh"

# vm_reports OUT: the kernel reports of a finished run (results folder
# OUT): its dmesg.txt and the zram records of its kmemleak.txt, as
# splat_reports prints them, into OUT/reports.txt; prints their number.
vm_reports() {
	local out=$1 all=$1/reports.input range base size

	: >"$all"
	[ -e "$out/dmesg.txt" ] && splat_free_log "$out/dmesg.txt" >>"$all"
	range=
	if [ -s "$out/zram-module" ]; then
		read -r base size <"$out/zram-module"
		range=$(printf '%016x %016x' "$base" "$((base + size))")
	fi
	# shellcheck disable=SC2086 # range is "LO HI" or empty
	[ -e "$out/kmemleak.txt" ] && kmemleak_zram_records "$out/kmemleak.txt" $range >>"$all"
	splat_reports "$all" 100000 >"$out/reports.txt"
	splat_count "$all"
	rm -f "$all"
}

# vm_tier_counts TESTS ASSERTIONS: what a test runner ran, for the table
# of tools/build/tier.sh when it runs as a tier (TIER_COUNTS set).
vm_tier_counts() {
	[ -z "${TIER_COUNTS:-}" ] || echo "$1 $2" >"$TIER_COUNTS"
}

# vm_assertions LOG...: N of the last "zram assertions: N" line (run_all.sh's
# or kselftest.sh's) in the LOGs, empty when they have none.
vm_assertions() {
	grep -a -h -o 'zram assertions: [0-9]*' "$@" 2>/dev/null | tail -1 | sed 's/.*: //'
}
