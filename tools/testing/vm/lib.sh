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

vm_log() { printf '[vm] %s\n' "$*" >&2; }
vm_die() { printf '[vm] error: %s\n' "$*" >&2; exit 1; }

# Sets KVER (unless already set) and checks the kernel cache is there.
# Runs tools/kernel/fetch.sh when the cache is missing.
vm_kernel() {
	local images=()

	if [ -z "${KVER:-}" ]; then
		shopt -s nullglob
		images=("$cache_dir"/root/boot/vmlinuz-*)
		shopt -u nullglob
		if [ "${#images[@]}" -gt 0 ]; then
			KVER=$(printf '%s\n' "${images[@]##*/vmlinuz-}" | sort -V | tail -1)
		fi
	fi
	if [ -z "${KVER:-}" ] ||
		[ ! -e "$cache_dir/root/boot/vmlinuz-$KVER" ] ||
		[ ! -e "$cache_dir/root/lib/modules/$KVER/modules.dep" ]; then
		vm_log "kernel cache missing, running tools/kernel/fetch.sh"
		KVER=$("$repo_dir/tools/kernel/fetch.sh" "$cache_dir" | sed -n 's/^KVER=//p' | tail -1)
		[ -n "$KVER" ] || vm_die "fetch.sh did not print KVER"
	fi
	export KVER
	kernel_image=$cache_dir/root/boot/vmlinuz-$KVER
	module_dir=$cache_dir/root/lib/modules/$KVER
	export kernel_image module_dir
}
