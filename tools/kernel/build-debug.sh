#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel of the test VM (lockdep, KASAN, kmemleak, fault
# injection: tools/kernel/debug.config) from Debian's pristine
# linux-source-7.3, with the stock zram as an in-tree module, and install
# it into a cache outside the checkout:
#
#   $ZRAM_KCACHE/debug-<source version>-<config hash>/
#     boot/vmlinuz-<kver>, boot/config-<kver>, boot/System.map-<kver>
#     lib/modules/<kver>/            modules, depmod'ed; build -> the tree below
#     usr/src/linux-headers-<kver>/  what an out-of-tree (M=) build needs
#     kver, build.log, build-time
#
# Kconfig, the compiler and every tool of the build are those of the
# gcc-14 root of tools/kernel/toolchain.sh (Debian built 7.3 with gcc-14).
#
# The key covers the source package version, the config fragment, the
# root's compiler and this recipe, so a change to any of them builds anew;
# a complete entry is reused as it is; the three newest are kept. The
# object tree of each source version ($ZRAM_KCACHE/obj-<source version>)
# is kept for incremental rebuilds after a config change; the two used
# last are kept.
#
# Usage: tools/kernel/build-debug.sh (as root: the toolchain root's chroot)
#   ZRAM_KCACHE  cache folder (default /var/cache/zram-rework)
#   KJOBS        parallel jobs (default: nproc)
# Prints "KROOT=<entry>" and "KVER=<kver>" as its last two lines.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
fragment=$top/tools/kernel/debug.config
kcache=${ZRAM_KCACHE:-/var/cache/zram-rework}
jobs=${KJOBS:-$(nproc)}
# Bump when the steps below change what an entry holds.
recipe=2
# the kernel's tools and compiler: those of the toolchain root
in_root=("$top/tools/kernel/toolchain.sh" run --)

log() { printf '[kernel] %s\n' "$*" >&2; }
die() { printf '[kernel] error: %s\n' "$*" >&2; exit 1; }

"$top/tools/kernel/fetch.sh" "$top/.cache" >/dev/null
src=$top/.cache/linux-source
debs=("$top"/.cache/debs/linux-source-7.3_*.deb)
[ -e "${debs[-1]}" ] || die "no linux-source-7.3 package in .cache/debs"
srcver=$(dpkg-deb -f "${debs[-1]}" Version)

export ARCH=x86_64
# the root's own gcc (gcc-14); kbuild's default CC, so that the M= builds
# against this kernel use the same one
cc=gcc
ccver=$("${in_root[@]}" "$cc" --version | head -1) ||
	die "no $cc in the toolchain root (tools/kernel/toolchain.sh)"
hash=$({
	echo "recipe $recipe allnoconfig $ARCH"
	echo "$ccver"
	cat "$fragment"
} | sha256sum | cut -c1-12)
key=debug-$srcver-$hash
dest=$kcache/$key

print_result() {
	echo "KROOT=$dest"
	echo "KVER=$(cat "$dest/kver")"
}

mkdir -p "$kcache" || die "cannot create $kcache (set ZRAM_KCACHE)"
exec 9>"$kcache/.lock"
if ! flock -n 9; then
	log "waiting for another build in $kcache"
	flock 9
fi
if [ -e "$dest/.complete" ]; then
	log "debug kernel $(cat "$dest/kver") (cached: $dest)"
	print_result
	exit 0
fi

# one object tree per source version: another version's objects would
# make an incremental build of a different kernel
obj=$kcache/obj-$srcver
stage=$kcache/.stage-$key
mkdir -p "$obj"
touch "$obj"
rm -rf "$kcache"/.stage-*
mkdir -p "$stage/boot"
# the log stays next to the entries when the build fails
blog=$kcache/build-$key.log
: >"$blog"
cold=incremental
[ -e "$obj/vmlinux" ] || cold=cold
log "building the debug kernel ($cold, $jobs jobs): $key"
log "log: $blog"
start=$(date +%s)

# allnoconfig + the fragment, then every requested value must be there
(cd "$src" && "${in_root[@]}" scripts/kconfig/merge_config.sh -n -O "$obj" "$fragment") \
	>>"$blog" 2>&1 || die "merge_config.sh failed (see $blog)"
"${in_root[@]}" make -C "$src" O="$obj" olddefconfig >>"$blog" 2>&1 ||
	die "olddefconfig failed (see $blog)"
missing=()
while read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	if [[ $want == "# "* ]]; then
		name=${want#\# }
		name=${name%% *}
		grep -q "^$name=" "$obj/.config" && missing+=("$want")
	else
		grep -qxF "$want" "$obj/.config" || missing+=("$want")
	fi
done <"$fragment"
if [ "${#missing[@]}" -gt 0 ]; then
	printf '[kernel] not in the final .config: %s\n' "${missing[@]}" >&2
	die "tools/kernel/debug.config asks for options the kernel did not take"
fi

kmake=("${in_root[@]}" nice -n 10 make -C "$src" O="$obj" -j"$jobs")
"${kmake[@]}" bzImage modules >>"$blog" 2>&1 || {
	tail -40 "$blog" >&2
	die "kernel build failed (see $blog)"
}
kver=$(cat "$obj/include/config/kernel.release")
"${kmake[@]}" INSTALL_MOD_PATH="$stage" modules_install >>"$blog" 2>&1 ||
	die "modules_install failed (see $blog)"
cp "$obj/arch/x86/boot/bzImage" "$stage/boot/vmlinuz-$kver"
cp "$obj/.config" "$stage/boot/config-$kver"
cp "$obj/System.map" "$stage/boot/System.map-$kver"

# the files an M= build needs, as Debian's linux-headers package has them
headers=$stage/usr/src/linux-headers-$kver
(cd "$obj" && srctree=$src SRCARCH=x86 CC=$cc HOSTCC=$cc MAKE=make \
	"${in_root[@]}" sh "$src/scripts/package/install-extmod-build" "$headers") \
	>>"$blog" 2>&1 || die "install-extmod-build failed (see $blog)"
cp "$obj/.config" "$headers/.config"
rm -f "$stage/lib/modules/$kver/build" "$stage/lib/modules/$kver/source"
ln -s "../../../usr/src/linux-headers-$kver" "$stage/lib/modules/$kver/build"
[ -e "$stage/lib/modules/$kver/modules.dep" ] || "${in_root[@]}" depmod -b "$stage" "$kver"

secs=$(($(date +%s) - start))
# CPU time of the build (this shell's children), a figure that the load of
# other work on the machine does not change
times >"$stage/times"
cpu=$(awk 'END {
	t = 0
	for (i = 1; i <= 2; i++) {
		split($i, a, "m")
		t += a[1] * 60 + a[2]
	}
	printf "%d", t
}' "$stage/times")
rm -f "$stage/times"
echo "$kver" >"$stage/kver"
printf '%s build: %d s (%d:%02d) wall, %d s CPU, %s jobs, load %s, %s\n' "$cold" \
	"$secs" $((secs / 60)) $((secs % 60)) "$cpu" "$jobs" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$(date -u +%FT%TZ)" >>"$stage/build-time"
mv "$blog" "$stage/build.log"
touch "$stage/.complete"
rm -rf "$dest"
mv "$stage" "$dest"
# keep the three newest entries (other branches may use other configs)
# and the object trees of the two source versions used last
prune() {
	find "$kcache" -mindepth 1 -maxdepth 1 -type d -name "$1" -printf '%T@ %p\n' |
		sort -rn | tail -n +$(($2 + 1)) | cut -d' ' -f2- | while read -r old; do
		log "removing the old $old"
		rm -rf "$old"
	done
}
prune 'debug-*' 3
prune 'obj*' 2
log "debug kernel $kver built in $((secs / 60))m$((secs % 60))s ($cold): $dest"
print_result
