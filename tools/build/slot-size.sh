#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bytes per slot of zram's slot table (struct zram_table_entry, as pahole
# reads it from each module's BTF): ours (drivers/block/zram/zram.ko) must
# be no larger than stock's (the zram.ko of Debian's 7.3 kernel). Ours has
# BTF of its own; stock's is split, and its base is the vmlinux inside the
# kernel's image, taken out with the kernel's extract-vmlinux. Prints both; fails when ours is
# larger or a size cannot be read.
#
# usage: slot-size.sh [OURS_KO [STOCK_KO]]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$(cat "$top/.cache/kver")
ours=${1:-$top/drivers/block/zram/zram.ko}
stock=${2:-$top/.cache/root/lib/modules/$kver/kernel/drivers/block/zram/zram.ko.xz}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$top/.cache/linux-source/scripts/extract-vmlinux" "$top/.cache/root/boot/vmlinuz-$kver" \
	>"$work/vmlinux" 2>/dev/null

# entry_size KO: the size pahole prints for struct zram_table_entry
# (pahole's complaints about BTF kinds it does not know are dropped)
entry_size() {
	local ko=$1 tmp=$work/module.ko

	case $ko in
	*.xz) xz -dc "$ko" >"$tmp" ;;
	*.zst) zstd -qdc "$ko" >"$tmp" ;;
	*) cp "$ko" "$tmp" ;;
	esac
	{
		pahole -C zram_table_entry "$tmp" ||
			pahole --btf_base "$work/vmlinux" -C zram_table_entry "$tmp"
	} 2>/dev/null | sed -n 's/.*size: \([0-9]*\),.*/\1/p'
}

o=$(entry_size "$ours")
s=$(entry_size "$stock")
if [ -z "$o" ] || [ -z "$s" ]; then
	echo "[slot-size] cannot read struct zram_table_entry (ours '$o', stock '$s')" >&2
	exit 1
fi
echo "[slot-size] bytes per slot: ours $o, stock $s ($kver)"
[ "$o" -le "$s" ] || { echo "[slot-size] ours is larger than stock" >&2; exit 1; }
