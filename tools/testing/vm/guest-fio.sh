#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's fio: built from Debian's fio source package (the host's
# release) without the engines that need other libraries, and installed
# as .cache/guest-fio/<key>/fio. Debian's /usr/bin/fio links 60-odd
# libraries (Ceph, GlusterFS, RDMA, PMEM, ICU, Boost) that the dynamic
# loader maps and relocates at every start, which in a TCG guest (and
# most on the debug kernel) outweighs the I/O of a short fio run. This
# one links libc, libm, libaio and, when its headers are there, zlib.
#
# The key is a hash of this script (the configure options below), so a
# change to them builds anew. The source comes through apt-get source
# with the cache's own deb-src list (.cache/guest-fio/apt), never
# /etc/apt; only its upstream tarball is unpacked (no dpkg-dev needed).
#
# Usage: tools/testing/vm/guest-fio.sh
# Prints the path of the fio binary.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# psync, pvsync2, io_uring and libaio are the engines in use; the rest
# of fio's built-in engines cost nothing at start.
configure_opts=(
	--disable-native --disable-numa --disable-rdma --disable-rados
	--disable-rbd --disable-http --disable-gfapi --disable-libnfs
	--disable-lex --disable-pmem --disable-xnvme --disable-libzbc
	--disable-tcmalloc --disable-dfs
)

dir=$cache_dir/guest-fio
key=$(sha256sum "$0" | cut -c1-12)
dest=$dir/$key
mkdir -p "$dir"
# make check's two VM tiers build their initramfs side by side
exec 9>"$dir/.lock"
flock 9
if [ -x "$dest/fio" ]; then
	echo "$dest/fio"
	exit 0
fi

"$vm_dir/deps.sh" >&2
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
apt=$dir/apt
mkdir -p "$apt/lists/partial"
echo "deb-src $("$repo_dir/tools/kernel/mirror.sh" "$codename") $codename main" \
	>"$apt/sources.list"
apt_opts=(-q -o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt/lists" -o APT::Sandbox::User=root)
vm_log "fio for the guest: downloading Debian's source ($codename)"
apt-get "${apt_opts[@]}" update -qq >&2 || vm_die "apt-get update (deb-src) failed"
rm -rf "$dir/src"
mkdir -p "$dir/src"
(cd "$dir/src" && apt-get "${apt_opts[@]}" source --download-only fio >&2) ||
	vm_die "apt-get source fio failed"
tarballs=("$dir"/src/fio_*.orig.tar.[gx]z)
[ -e "${tarballs[0]}" ] || vm_die "no fio orig tarball in $dir/src"
tar -xf "${tarballs[0]}" -C "$dir/src"
build=("$dir"/src/fio-*/)
[ -d "${build[0]}" ] || vm_die "no fio source tree in $dir/src"

vm_log "fio for the guest: building $(basename "${build[0]}")"
(cd "${build[0]}" && ./configure "${configure_opts[@]}" >"$dir/build.log" 2>&1 &&
	make -j"$(nproc)" fio >>"$dir/build.log" 2>&1) ||
	vm_die "fio build failed (log: $dir/build.log)"
"${build[0]}/fio" --enghelp | grep -qw libaio ||
	vm_die "fio built without its libaio engine (log: $dir/build.log)"
# the builds of earlier keys are not used again
rm -rf "$dest" "$dir"/*/fio
find "$dir" -mindepth 1 -maxdepth 1 -type d -empty -delete
mkdir -p "$dest"
cp "${build[0]}/fio" "$dest/fio"
rm -rf "$dir/src"
echo "$dest/fio"
