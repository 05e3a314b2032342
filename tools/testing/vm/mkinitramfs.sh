#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the base initramfs for the zram test VM: busybox, bash, fio (built
# by guest-fio.sh) and the block tools, their shared libraries, the guest
# /init and the kernel modules the tests use (decompressed, with a fresh
# modules.dep). Also Debian's zram-generator (from guest-debs.sh, not
# installed on the host) and systemd-makefs, which its device setup calls.
#
# Usage: tools/testing/vm/mkinitramfs.sh OUT.cpio.gz
# Skips the build when OUT is up to date (a hash of all inputs is kept in
# OUT.inputs). The kernel is the one tools/testing/vm/lib.sh's vm_kernel
# selects (ZRAM_KERNEL=debian|debian-6.12|debug); modules built into it
# need no file.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

out=${1:?usage: mkinitramfs.sh OUT.cpio.gz}
case $out in /*) ;; *) out=$PWD/$out ;; esac

"$vm_dir/deps.sh"
vm_kernel

# Modules the tests need, by name or alias, each a module or built in on
# every kernel here; their dependencies are added from modules.dep. 6.12's
# ext4 asks the crypto API for crc32c at mount time (request_module), and
# 7.3's jbd2 names it as a soft dependency: the alias "crc32c" is
# whatever provides it (6.12: crc32c_generic and crc32c-intel, 7.3:
# crc32c-cryptoapi).
modules=(
	zram lz4_compress lz4hc_compress lz4 lz4hc zstd deflate lzo lzo-rle
	null_blk loop brd virtio_blk virtio_pci configfs
	dm-mod dm-flakey dm-delay
	netfs 9pnet 9p 9pnet_virtio
	ext4 jbd2 mbcache crc16 crc32c
)

# Programs, copied with the libraries ldd reports. Everything else comes
# from busybox applets. The kernel's kselftest runner (kselftest/runner.sh)
# calls GNU timeout as /usr/bin/timeout (--foreground is not in busybox's)
# and /usr/bin/stdbuf when present; stdbuf preloads $stdbuf_lib. The
# runner also uses /usr/bin/perl when present, for prefix.pl: without it,
# it prefixes with sed, its documented fallback, so perl stays out.
programs=(
	bash zramctl losetup blkdiscard mke2fs e2fsck sha256sum
	dmsetup find xargs timeout stdbuf mkswap swapon swapoff
)
# Programs outside PATH, at the same path in the guest.
program_files=(
	/lib/systemd/systemd-makefs
)
# Files of guest-only packages (guest-debs.sh): PACKAGE:PATH, at PATH in
# the guest; executables get their libraries too.
guest_files=(
	systemd-zram-generator:/lib/systemd/system-generators/zram-generator
	systemd-zram-generator:/lib/systemd/system/systemd-zram-setup@.service
)
stdbuf_lib=/usr/libexec/coreutils/libstdbuf.so

module_files=()
for mod in "${modules[@]}"; do
	while read -r what path _; do
		case $what in
		insmod) module_files+=("${path#"$module_dir"/}") ;;
		builtin) ;;
		*) vm_die "modprobe --show-depends $mod: unexpected '$what $path'" ;;
		esac
	done < <(modprobe -d "$kernel_root" -S "$KVER" --show-depends "$mod" ||
		vm_die "module $mod not found for $KVER")
done
mapfile -t module_files < <(printf '%s\n' "${module_files[@]}" | sort -u)

program_paths=()
for prog in "${programs[@]}"; do
	path=$(command -v "$prog") || vm_die "$prog not installed"
	program_paths+=("$(readlink -f "$path")")
done
for path in "${program_files[@]}"; do
	[ -x "$path" ] || vm_die "$path not installed"
	program_paths+=("$(readlink -f "$path")")
done

declare -A guest_pkg_dir
while read -r pkg pkgdir; do
	guest_pkg_dir[$pkg]=$pkgdir
done < <("$vm_dir/guest-debs.sh")
guest_srcs=()
guest_dests=()
for gf in "${guest_files[@]}"; do
	src=${guest_pkg_dir[${gf%%:*}]:?}${gf#*:}
	[ -e "$src" ] || vm_die "$src missing"
	guest_srcs+=("$src")
	guest_dests+=("${gf#*:}")
done
guest_srcs+=("$("$vm_dir/guest-fio.sh")") || vm_die "no fio for the guest"
guest_dests+=(/usr/bin/fio)
busybox=$(readlink -f "$(command -v busybox)")

mapfile -t libraries < <(
	for path in "${program_paths[@]}" "${guest_srcs[@]}"; do
		[ -x "$path" ] || continue
		vm_libs_of "$path"
	done | sort -u)

# Everything the image is made from, for the up-to-date check.
inputs_hash=$(
	{
		echo "KVER=$KVER"
		printf 'module %s\n' "${module_files[@]}"
		sha256sum "$0" "$vm_dir/lib.sh" "$vm_dir/guest/init" \
			"$module_dir/modules.dep" /etc/mke2fs.conf
		for f in "$busybox" "${program_paths[@]}" "${libraries[@]}" "$stdbuf_lib" \
			"${guest_srcs[@]}"; do
			stat -L -c '%n %s %Y' "$f"
		done
		# two builds of the debug kernel have the same KVER
		(cd "$module_dir" && stat -L -c '%n %s %Y' "${module_files[@]}")
	} | sha256sum | cut -d' ' -f1)

if [ -e "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs_hash" ]; then
	vm_log "initramfs up to date: $out"
	exit 0
fi

vm_log "building initramfs $out"
mkdir -p "${out%/*}"
stage=$(mktemp -d "${out%/*}/.initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/usr/{bin,sbin,lib,lib64} "$stage"/{dev,proc,sys,tmp,run,etc,repo,out,mnt,root}
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$stage/$d"
done
install -m 0755 "$busybox" "$stage/usr/bin/busybox"

for path in "${program_paths[@]}"; do
	dest=$stage/usr/${path#/usr/}
	case $path in
	/usr/*) ;;
	*) dest=$stage/usr$path ;;
	esac
	mkdir -p "${dest%/*}"
	install -m 0755 "$path" "$dest"
done
ln -s mke2fs "$stage/usr/sbin/mkfs.ext4"
install -D -m 0644 "$stdbuf_lib" "$stage$stdbuf_lib"
for i in "${!guest_srcs[@]}"; do
	dest=$stage/usr/${guest_dests[$i]#/usr/}
	case ${guest_dests[$i]} in
	/usr/*) ;;
	*) dest=$stage/usr${guest_dests[$i]} ;;
	esac
	mkdir -p "${dest%/*}"
	cp -p "${guest_srcs[$i]}" "$dest"
done
for lib in "${libraries[@]}"; do
	real=$(readlink -f "$lib")
	dest=$stage/usr/${lib#/usr/}
	case $lib in
	/usr/*) ;;
	*) dest=$stage/usr$lib ;;
	esac
	mkdir -p "${dest%/*}"
	cp -L "$real" "$dest"
done
cp /etc/mke2fs.conf "$stage/etc/"

# busybox applets for everything not provided by a real program
while read -r applet; do
	name=${applet##*/}
	if [ -e "$stage/usr/bin/$name" ] || [ -e "$stage/usr/sbin/$name" ]; then
		continue
	fi
	case $applet in
	*sbin/*) ln -s ../bin/busybox "$stage/usr/sbin/$name" ;;
	*) ln -s busybox "$stage/usr/bin/$name" ;;
	esac
done < <("$busybox" --list-full)

# modules, decompressed; depmod makes modules.dep & co. for busybox modprobe
mdest=$stage/lib/modules/$KVER
for rel in "${module_files[@]}"; do
	dest=$mdest/${rel%.xz}
	mkdir -p "${dest%/*}"
	case $rel in
	*.xz) xz -dc "$module_dir/$rel" >"$dest" ;;
	*) cp "$module_dir/$rel" "$dest" ;;
	esac
done
sed 's/\.ko\.xz$/.ko/' "$module_dir/modules.order" >"$mdest/modules.order"
cp "$module_dir/modules.builtin" "$module_dir/modules.builtin.modinfo" "$mdest/"
depmod -b "$stage" "$KVER"

install -m 0755 "$vm_dir/guest/init" "$stage/init"
printf 'root:x:0:0:root:/root:/bin/bash\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"

compress=(gzip -1)
if command -v pigz >/dev/null; then
	compress=(pigz -1)
fi
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | "${compress[@]}" >"$out.tmp"
mv "$out.tmp" "$out"
echo "$inputs_hash" >"$out.inputs"
vm_log "initramfs: $out ($(du -h "$out" | cut -f1), unpacked $(du -sh "$stage" | cut -f1))"
