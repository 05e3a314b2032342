#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the make targets need, if any are missing: every
# program a host-side script calls (directly, through the kernel's build
# system, or copied into the guest image by mkinitramfs.sh) and the libraries
# of the hand-extracted kernel packages (dpkg-deb -x installs none of their
# Depends). A new machine of this kind has only gcc, make, perl, python3 and
# git; make fresh-check proves this list complete on such a machine.
#
# Usage: tools/testing/vm/deps.sh [--only] [kernel] [PACKAGE=FILE...]
#   kernel        also what building a kernel from source needs
#                 (tools/kernel/build-debug.sh)
#   PACKAGE=FILE  also need PACKAGE (FILE tells whether it is installed)
#   --only        need just the arguments, not the list below
# Runs "apt-get update" when a missing package is not known to apt, and once
# more when the install fails (package lists older than the registry).

set -euo pipefail

# package -> a file it provides, to tell whether it is present
declare -A need=(
	# the VM harness (run.sh, mkinitramfs.sh, mkmaindata.sh) and the
	# programs mkinitramfs.sh copies into the guest
	[qemu-system-x86]=/usr/bin/qemu-system-x86_64
	[busybox-static]=/bin/busybox
	[bash]=/bin/bash
	# guest-fio.sh builds the guest's fio with its libaio engine
	[libaio-dev]=/usr/include/libaio.h
	[e2fsprogs]=/sbin/mke2fs
	[kmod]=/sbin/depmod
	[cpio]=/bin/cpio
	[util-linux]=/sbin/zramctl
	[mount]=/sbin/losetup
	[xz-utils]=/usr/bin/xz
	[dmsetup]=/sbin/dmsetup
	[coreutils]=/usr/bin/timeout
	[findutils]=/usr/bin/find
	[gzip]=/bin/gzip
	[libc-bin]=/usr/bin/ldd
	# make module: 7.3's build runs in tools/kernel/toolchain.sh's root
	# (gcc-14), which debootstrap makes; 6.12's on the host, with the
	# Depends of linux-kbuild and linux-headers (objtool and
	# resolve_btfids link libelf and zlib, sign-file libssl, the BTF step
	# runs pahole)
	[debootstrap]=/usr/sbin/debootstrap
	[make]=/usr/bin/make
	[gcc-12]=/usr/bin/x86_64-linux-gnu-gcc-12
	[binutils]=/usr/bin/ld
	[dwarves]=/usr/bin/pahole
	[libelf1]=/usr/lib/x86_64-linux-gnu/libelf.so.1
	[libssl3]=/usr/lib/x86_64-linux-gnu/libssl.so.3
	[zlib1g]=/usr/lib/x86_64-linux-gnu/libz.so.1
	# make slot-size: extract-vmlinux takes the vmlinux (and its BTF)
	# out of Debian's zstd-compressed image
	[zstd]=/usr/bin/unzstd
	# make sparse, checkpatch (perl), shellcheck (git ls-files)
	[sparse]=/usr/bin/sparse
	[perl]=/usr/bin/perl
	[shellcheck]=/usr/bin/shellcheck
	[git]=/usr/bin/git
	# make unit: gcc with -fsanitize=address,undefined; make helpers:
	# the selftests' C helpers, linked statically
	[gcc]=/usr/bin/gcc
	[libc6-dev]=/usr/lib/x86_64-linux-gnu/libc.a
	[libasan8]=/usr/lib/x86_64-linux-gnu/libasan.so.8
	[libubsan1]=/usr/lib/x86_64-linux-gnu/libubsan.so.1
	# the kselftest install from the kernel tree (lib.mk copies with rsync)
	[rsync]=/usr/bin/rsync
	# make bench: tools/bench/report.py
	[python3]=/usr/bin/python3
	# the guest image: systemd-makefs, which zram-generator's setup calls
	[systemd]=/lib/systemd/systemd-makefs
)

if [ "${1:-}" = --only ]; then
	need=()
	shift
fi
for arg in "$@"; do
	case $arg in
	?*=/?*) need[${arg%%=*}]=${arg#*=} ;;
	kernel)
		need+=(
			[make]=/usr/bin/make
			[gcc]=/usr/bin/gcc
			[flex]=/usr/bin/flex
			[bison]=/usr/bin/bison
			[bc]=/usr/bin/bc
			[libelf-dev]=/usr/include/libelf.h
			[libssl-dev]=/usr/include/openssl/ssl.h
			[perl]=/usr/bin/perl
			[rsync]=/usr/bin/rsync
		)
		;;
	*) echo "usage: deps.sh [--only] [kernel] [PACKAGE=/FILE...]" >&2; exit 2 ;;
	esac
done

installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${!need[@]}" 2>/dev/null |
	awk '$NF == "installed" { print $1 }' || true)
missing=()
for pkg in "${!need[@]}"; do
	if [ ! -e "${need[$pkg]}" ] || ! grep -qx "$pkg" <<<"$installed"; then
		missing+=("$pkg")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

printf '[deps] installing: %s\n' "${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
for pkg in "${missing[@]}"; do
	if ! apt-cache show "$pkg" >/dev/null 2>&1; then
		"${sudo[@]}" apt-get update -qq
		updated=1
		break
	fi
done
install=("${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}")
if ! "${install[@]}"; then
	[ "$updated" = 0 ] || exit 1
	echo "[deps] install failed; updating the package lists and trying again" >&2
	"${sudo[@]}" apt-get update -qq
	"${install[@]}"
fi
