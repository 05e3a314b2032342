#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once, cached) the data set of the main job: ~170 MiB of kernel
# sources (fs/, then drivers/, from Debian's linux-source-7.3 tree) and
# ~50 MiB of that kernel's own .ko.xz modules (incompressible), plus a
# SHA256SUMS manifest, packed into an ext4 image.
#
# Usage: tools/testing/vm/mkmaindata.sh [IMAGE]
#   default IMAGE: .cache/vm/maindata-SRC_MIB-BIN_MIB.ext4. Prints the
#   image path last.
# Environment: SRC_MIB (default 170), BIN_MIB (default 50).

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

src_mib=${SRC_MIB:-170}
bin_mib=${BIN_MIB:-50}
image=${1:-$cache_dir/vm/maindata-$src_mib-$bin_mib.ext4}

"$vm_dir/deps.sh"
# the data set is 7.3's, whatever kernel the VM boots: one image for all
ZRAM_KERNEL=debian
vm_kernel
src_tree=$kernel_src

stamp="KVER=$KVER src=$src_mib bin=$bin_mib script=$(sha256sum "$0" | cut -d' ' -f1)"
if [ -e "$image" ] && [ "$(cat "$image.inputs" 2>/dev/null)" = "$stamp" ]; then
	vm_log "main job data up to date: $image"
	echo "$image"
	exit 0
fi

# First files of a sorted list ("size path" lines) up to LIMIT MiB.
take_mib() {
	awk -v limit=$(($1 * 1048576)) '{ total += $1; if (total <= limit) print $2 }'
}

vm_log "building main job data set ($src_mib MiB sources + $bin_mib MiB modules)"
mkdir -p "${image%/*}"
stage=$(mktemp -d "${image%/*}/.maindata.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/src" "$stage/bin"

(cd "$src_tree" && find fs drivers -type f -printf '%s %p\n' | LC_ALL=C sort -k2) |
	take_mib "$src_mib" >"$stage/src.list"
tar -C "$src_tree" -cf - -T "$stage/src.list" | tar -C "$stage/src" -xf -

(cd "$module_dir" && find kernel -type f -name '*.ko.xz' -printf '%s %p\n' | LC_ALL=C sort -k2) |
	take_mib "$bin_mib" >"$stage/bin.list"
tar -C "$module_dir" -cf - -T "$stage/bin.list" | tar -C "$stage/bin" -xf -
rm "$stage/src.list" "$stage/bin.list"

(cd "$stage" && find src bin -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$stage/SHA256SUMS"
files=$(wc -l <"$stage/SHA256SUMS")
mib=$(du -sm --apparent-size "$stage" | cut -f1)

# room for the files plus ext4 metadata
size_mib=$((mib * 3 / 2 + 64))
rm -f "$image" "$image.inputs"
mkfs.ext4 -q -F -L zdata -m 0 -b 4096 -d "$stage" "$image" "${size_mib}M" >&2
echo "$stamp" >"$image.inputs"
vm_log "main job data: $image ($files files, $mib MiB)"
echo "$image"
