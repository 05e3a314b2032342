#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: install this driver with DKMS over a Debian kernel's
# zram, the way tools/testing/dkms/README.md says, in a fresh Debian root,
# then check that the installed module is ours and that it loads and
# works in the test VM. The kernel is the one the VM boots (KERNEL):
#   debian       Debian's 7.3 from trixie-backports, in a Debian 13 root
#   debian-6.12  Debian's 6.12 LTS from bookworm-security, in a Debian 12
#                root (DKMS builds with the compat header there: dkms.conf)
#
# The root: the fresh-machine root of make fresh-check
# (tools/testing/fresh/mkroot.sh: debootstrap --variant=minbase, the
# host's apt setup and a new machine's baseline), Debian 12's or 13's,
# cached in .cache/dkms/base-<suite>-<hash of mkroot.sh>, built when
# missing. On it the packages a user installs: for 7.3 the
# trixie-backports source first, then "apt-get install dkms
# linux-image-<KVER> linux-headers-<KVER>" (for 7.3 with -t
# trixie-backports), KVER being the kernel the VM boots. That
# layer is cached in .cache/dkms/<KVER>/layer-<hash>; every run mounts an
# overlay on both (.cache/dkms/<KVER>/run/), so each run starts from the
# fresh root with just the packages a user installs. The source: dkms.conf,
# drivers/block/zram and the compat header of the working tree (git stash
# create, or HEAD), extracted into /usr/src as its README says. In the
# root, "dkms add", "dkms build -k KVER", "dkms install -k KVER
# --force-version-override" (-k: the root does not run that kernel; the
# flag: see that README).
# Checks there: modinfo names updates/dkms/zram.ko*, that file has the
# functions of our module built from the same tree for that kernel with
# Debian's configuration (tools/build/module.sh, ZRAM_MULTI_COMP=n), which
# differ from the stock module's (neither module has a MODULE_VERSION, so
# there is no srcversion to compare), and modprobe resolves "zram" to it.
# Then the VM (which boots the same kernel) uses a copy of the root's
# /lib/modules/KVER (in the run's results folder, so that the 9p export
# holds one file system): "modprobe zram" must load a module whose functions (/proc/kallsyms)
# include every one only ours has and none only stock has, and a few
# selftests run against it (tools/testing/vm/guest/dkms-load.sh; their C
# helpers are built here first).
#
# Usage: tools/testing/dkms/dkms-check.sh [KERNEL=debian|debian-6.12]
#   (as root; needs network access to the host's Debian mirror on the
#   first run of each kernel)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../vm/lib.sh
. "$here/../vm/lib.sh"

log() { printf '[dkms] %s\n' "$*" >&2; }
die() { printf '[dkms] error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
if [ -z "${DKMS_CHECK_PRIVATE_NS:-}" ]; then
	exec env DKMS_CHECK_PRIVATE_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi

vm_options KERNEL -- "$@"
# the Debian release of the root, and where tools/build/module.sh builds
# ours without recompression
case ${ZRAM_KERNEL:-debian} in
debian) suite=trixie ko=$cache_dir/nocomp/zram/zram.ko ;;
debian-6.12) suite=bookworm ko=$cache_dir/k6.12/nocomp/zram/zram.ko ;;
*) die "KERNEL must be debian or debian-6.12" ;;
esac
# the programs below are make module's (deps.sh); mkroot.sh needs debootstrap
"$vm_dir/deps.sh" --only debootstrap=/usr/sbin/debootstrap
vm_kernel
# the kernel's packages that tools/kernel/fetch.sh downloaded
kernel_debs=$(dirname "$kernel_root")/debs
conf=$repo_dir/dkms.conf
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
if [ -z "$name" ] || [ -z "$ver" ]; then
	die "no PACKAGE_NAME/PACKAGE_VERSION in $conf"
fi
# the module of Debian's configuration (DKMS builds that), to compare with
log "building ours for $KVER without recompression, as Debian's config has it"
ZRAM_MULTI_COMP=n "$repo_dir/tools/build/module.sh" >"$cache_dir/dkms-module.log" 2>&1 ||
	{ tail -20 "$cache_dir/dkms-module.log" >&2; die "tools/build/module.sh failed"; }
[ -e "$ko" ] || die "tools/build/module.sh did not build $ko"
# the selftests' C helpers (zram_memfill for zram_swap_01), as make
# check-vm builds them: the VM runs them from the checkout
log "building the selftests' helpers"
make -s -C "$repo_dir/tools/testing/selftests/zram" all >&2

dir=$cache_dir/dkms
# each kernel's layer and runs: the two can run side by side
kdir=$dir/$KVER
run=$kdir/run
root=$run/root
t0=$SECONDS

# mount_pseudo ROOT: /proc, /sys, /dev for chroot'ed package scripts
mount_pseudo() {
	mount -t proc proc "$1/proc"
	mount --rbind /sys "$1/sys"
	mount --rbind /dev "$1/dev"
}

umount_below() {
	local m

	# deepest first
	findmnt -rn -o TARGET | awk -v d="$1/" 'index($0, d) == 1' | sort -r |
		while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
}

mkroot=$repo_dir/tools/testing/fresh/mkroot.sh
mkroot_key=$(sha256sum "$mkroot" | cut -c1-16)
# the fresh-machine root of the suite
fresh_base=$dir/base-$suite-$mkroot_key
# the packages a user installs; Debian 13 has 7.3 from trixie-backports,
# which also has the newer packages 7.3's need (linux-base)
packages=(dkms "linux-image-$KVER" "linux-headers-$KVER")
[ "$suite" != trixie ] || packages=(-t trixie-backports "${packages[@]}")

# add_backports ROOT: the trixie-backports source, as a Debian 13 user adds
# it for 7.3
add_backports() {
	[ "$suite" = trixie ] || return 0
	printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie-backports main\n' \
		"$("$repo_dir/tools/kernel/mirror.sh" trixie)" >"$1/etc/apt/sources.list.d/backports.list"
}

# build_layer DIR: the DKMS packages on the fresh root, as an overlay
# upper directory
build_layer() {
	local tmp=$kdir/tmp-layer mnt=$kdir/tmp-mnt

	umount_below "$mnt"
	umount -l "$mnt" 2>/dev/null || true
	rm -rf --one-file-system "$tmp" "$mnt"
	mkdir -p "$tmp/upper" "$tmp/work" "$mnt"
	mount -t overlay overlay \
		-o "lowerdir=$fresh_base,upperdir=$tmp/upper,workdir=$tmp/work,xino=on" "$mnt"
	"$mkroot" --apt "$mnt"
	add_backports "$mnt"
	# the kernel packages the harness already downloaded, for apt's cache
	cp -l "$kernel_debs"/*.deb "$mnt/var/cache/apt/archives/" 2>/dev/null ||
		cp "$kernel_debs"/*.deb "$mnt/var/cache/apt/archives/" 2>/dev/null || true
	mount_pseudo "$mnt"
	log "apt-get install ${packages[*]}"
	# shellcheck disable=SC2016 # expanded by the shell in the root
	if ! chroot "$mnt" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 /bin/sh -ec '
		apt-get update -qq
		apt-get install -y -q --no-install-recommends "$@"
		apt-get clean' _ "${packages[@]}" >"$kdir/apt.log" 2>&1; then
		tail -20 "$kdir/apt.log" >&2
		umount_below "$mnt"
		umount -l "$mnt"
		die "apt-get install failed (log: $kdir/apt.log)"
	fi
	umount_below "$mnt"
	umount "$mnt"
	rm -rf "$kdir"/layer-*
	mv "$tmp/upper" "$1"
	rm -rf "$tmp" "$mnt"
}

mkdir -p "$kdir"
if [ ! -d "$fresh_base" ]; then
	log "building the fresh-machine root of $suite with $mkroot"
	"$mkroot" --suite "$suite" "$fresh_base"
fi
# keyed by the kernel, the fresh root and the code that builds the layer
layer=$kdir/layer-$({ echo "$fresh_base" "${packages[@]}"
	declare -f build_layer mount_pseudo add_backports; } | sha256sum | cut -c1-12)
[ -d "$layer" ] || build_layer "$layer"
pkgver() { chroot "$root" dpkg-query -W -f="\${Version}" "$1"; }

# a fresh overlay on the cached root for this run
umount_below "$run"
rm -rf --one-file-system "$run"
mkdir -p "$run/upper" "$run/work" "$root"
mount -t overlay overlay \
	-o "lowerdir=$layer:$fresh_base,upperdir=$run/upper,workdir=$run/work,xino=on" "$root"
trap 'umount_below "$run"; umount -l "$root" 2>/dev/null || true' EXIT
mount_pseudo "$root"
"$mkroot" --apt "$root"
log "Debian root: $fresh_base + $layer (dkms $(pkgver dkms)," \
	"linux-headers-$KVER $(pkgver "linux-headers-$KVER"))"

# The README's steps: the source into /usr/src, then dkms add, build, install
src=$(git -C "$repo_dir" stash create 2>/dev/null || true)
src=${src:-HEAD}
log "source: dkms.conf, drivers/block/zram and the compat header of" \
	"$(git -C "$repo_dir" rev-parse --short "$src")" \
	"$([ "$src" = HEAD ] || echo '(working tree)')"
git -C "$repo_dir" archive --prefix="$name-$ver/" "$src" dkms.conf drivers/block/zram \
	tools/build/compat/zram-6.12.h | tar -x -C "$root/usr/src"
# a command in the root, with a login-like environment, not the caller's
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 "$@"
}
dkms_step() {
	local step=$1

	shift
	log "dkms $step $*"
	if ! in_root dkms "$step" "$@" >"$run/dkms-$step.log" 2>&1; then
		sed 's/^/  /' "$run/dkms-$step.log" >&2
		find "$root/var/lib/dkms/$name/$ver" -name make.log -exec tail -n 30 {} + >&2 2>/dev/null
		die "dkms $step failed"
	fi
	sed 's/^/  /' "$run/dkms-$step.log" >&2
}
dkms_step add "$name/$ver"
dkms_step build "$name/$ver" -k "$KVER"
# --force-version-override: neither module has a MODULE_VERSION, so DKMS's
# version sanity check finds them equal and would keep the kernel's zram
# (README)
dkms_step install "$name/$ver" -k "$KVER" --force-version-override
in_root dkms status >&2

fail=0
check() {
	if [ "$2" = "$3" ]; then
		log "ok: $1"
	else
		log "FAILED: $1: got '$2', want '$3'"
		fail=1
	fi
}
# funcs KO: the module's functions, but for init code and __pfx_ symbols
funcs() {
	objdump -t "$1" | awk 'NF >= 6 && $(NF - 3) == "F" && $(NF - 2) ~ /^\.text/ &&
		$NF !~ /^__pfx_/ { print $NF }' | sort -u
}
out=$results_dir/dkms/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
installed=$(in_root modinfo -k "$KVER" -F filename zram)
check "modinfo zram names the DKMS module ($installed)" "${installed%/zram.ko*}" \
	"/lib/modules/$KVER/updates/dkms"
# DKMS 3.2 (Debian 13) moves the kernel's module aside, into its tree, and
# puts it back on "dkms remove"; 3.0 (Debian 12) leaves it in place
stock_ko=$root/lib/modules/$KVER/kernel/drivers/block/zram/zram.ko.xz
[ -e "$stock_ko" ] ||
	stock_ko=$root/var/lib/dkms/$name/original_module/$KVER/$(uname -m)/zram.ko.xz
xz -dc "$root$installed" >"$out/installed.ko"
xz -dc "$stock_ko" >"$out/stock.ko"
funcs "$ko" >"$out/ours.funcs"
funcs "$out/stock.ko" >"$out/stock.funcs"
check "the installed module has the functions of ${ko#"$repo_dir"/}" \
	"$(funcs "$out/installed.ko" | sha256sum)" "$(sha256sum <"$out/ours.funcs")"
comm -23 "$out/ours.funcs" "$out/stock.funcs" >"$out/ours-only"
comm -13 "$out/ours.funcs" "$out/stock.funcs" >"$out/stock-only"
if [ -s "$out/ours-only" ] && [ -s "$out/stock-only" ]; then
	log "ok: and not the stock module's ($(wc -l <"$out/ours-only") functions only" \
		"in ours, $(wc -l <"$out/stock-only") only in stock)"
else
	log "FAILED: the stock module has the same functions"
	fail=1
fi
check "modprobe resolves zram to it" \
	"$(in_root modprobe -S "$KVER" --show-depends zram | awk '$1 == "insmod" { p = $2 } END { print p }')" \
	"$installed"
log "installed in $((SECONDS - t0)) s"

# the module tree DKMS installed into, copied for the VM (/out/modules
# there); the root is unmounted, so the VM's 9p export of the checkout
# holds one file system
mkdir -p "$out/modules"
cp -a "$root/lib/modules/$KVER" "$out/modules/"
umount_below "$run"
trap - EXIT
if findmnt -rn -o TARGET | grep -q -F "$run/"; then
	die "cannot unmount the root below $run"
fi

log "booting the VM with the root's /lib/modules/$KVER"
rc=0
"$vm_dir/run.sh" --timeout 900 --out "$out" --env DKMS_MODULES=/out/modules \
	-- /repo/tools/testing/vm/guest/dkms-load.sh || rc=$?
[ "$rc" -eq 0 ] || fail=1

if [ "$fail" -ne 0 ]; then
	log "dkms-check FAILED ($((SECONDS - t0)) s, results in $out)"
	exit 1
fi
rm -rf "$out/modules"
log "dkms-check passed ($((SECONDS - t0)) s, results in $out)"
