#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fresh-check: run the README's two commands, "make run" then "make
# check", as root in a chroot that models a new machine of this kind, so
# that only what the project's own scripts install is there.
#
# The root: mkroot.sh's debootstrap minbase + baseline, cached in
# $ZRAM_KCACHE/fresh-base-<hash of mkroot.sh> (shared by every clone, as
# the kernel cache is; a cold cache builds it). Each run mounts an overlay
# on it, so every run starts from the baseline again, with the host's apt
# setup and resolver copied in. The overlay's writable layer is a scratch
# ext4 without a journal in a sparse image file
# (.cache/fresh/run.img, mounted on .cache/fresh/run/): the run writes
# ~100k files (the kernel source tree among them), and deleting them one
# by one took 4 minutes on this machine's disk, the image a second.
# The project: a copy of this checkout's files as "git add -A" would commit
# them (tracked, modified and untracked files, not ignored ones such as
# .cache/ or built objects), made a one-commit git repository at
# /root/zram in the root. Its .cache/ starts empty: the kernel packages
# are downloaded again, the initramfs and data image rebuilt.
# Bind-mounted from the host: /proc (a new proc mount), /sys, /dev (with
# /dev/pts, /dev/shm and /dev/kvm) and the kernel cache that outlives a
# checkout, $ZRAM_KCACHE (tools/testing/vm/lib.sh; created when missing),
# at the same path.
# All mounts live in a private mount namespace that ends with this script;
# they are also unmounted on exit. The run's image is deleted when every
# target passed and kept for a look when one failed.
#
# Usage: tools/testing/fresh/fresh-check.sh [TARGET...]
#   make targets to run in the root, in order (default: run check)
# Logs: .cache/fresh/logs/<time>-<target>.log. Needs root.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../vm/lib.sh
. "$here/../vm/lib.sh"

log() { printf '[fresh] %s\n' "$*" >&2; }
die() { printf '[fresh] error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
if [ -z "${FRESH_CHECK_PRIVATE_NS:-}" ]; then
	exec env FRESH_CHECK_PRIVATE_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi

targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(run check)
fresh=$cache_dir/fresh
img=$fresh/run.img
run=$fresh/run
root=$run/root
guest_repo=/root/zram
ts=$(date +%Y%m%d-%H%M%S)
t0=$SECONDS

# Delete a tree, refusing when anything is mounted below it.
rm_tree() {
	local dir=$1

	[ -e "$dir" ] || return 0
	if findmnt -rn -o TARGET | grep -q -F "$dir"; then
		die "something is still mounted below $dir"
	fi
	rm -rf --one-file-system "$dir"
}

cleanup() {
	local m

	for m in "$root" "$run"; do
		if findmnt -rn -o TARGET "$m" >/dev/null 2>&1; then
			umount -R "$m" 2>/dev/null || umount -R -l "$m" || true
		fi
	done
}
trap cleanup EXIT

"$vm_dir/deps.sh" --only debootstrap=/usr/sbin/debootstrap e2fsprogs=/sbin/mkfs.ext4
mkdir -p "$fresh/logs"

# The baseline root is never written to (the runs write to an overlay), so
# every clone on the machine shares it, as it shares the kernel cache.
key=$(sha256sum "$here/mkroot.sh" | cut -c1-16)
mkdir -p "$kcache_dir"
base=$kcache_dir/fresh-base-$key
exec 8>"$kcache_dir/.fresh-base.lock"
flock 8
if [ -e "$base/.complete" ]; then
	log "baseline root: $base (cached)"
else
	for old in "$kcache_dir"/fresh-base-*; do
		rm_tree "$old"
	done
	t=$SECONDS
	"$here/mkroot.sh" "$base"
	touch "$base/.complete"
	log "baseline root built in $((SECONDS - t)) s"
fi
exec 8>&-

rm_tree "$run"
rm -f "$img"
truncate -s 64G "$img"
mkfs.ext4 -q -F -m 0 -O ^has_journal "$img"
mkdir -p "$run"
mount -o loop,noatime "$img" "$run"
mkdir -p "$run/upper" "$run/work" "$root"
# xino=on: one device number for every file, as on a plain disk. Without
# it the layers' files and the overlay's directories differ in st_dev, and
# QEMU warns that the guest's 9p view of /repo may mix up inode numbers.
mount -t overlay fresh-check \
	-o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work,xino=on" "$root"
"$here/mkroot.sh" --apt "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mkdir -p "$kcache_dir" "$root$kcache_dir"
mount --bind "$kcache_dir" "$root$kcache_dir"

# The checkout's files as "git add -A" sees them, through a scratch index:
# neither the checkout nor its index or refs change.
index=$(mktemp)
cp "$(git -C "$repo_dir" rev-parse --path-format=absolute --git-path index)" "$index"
GIT_INDEX_FILE=$index git -C "$repo_dir" add -A
tree=$(GIT_INDEX_FILE=$index git -C "$repo_dir" write-tree)
rm -f "$index"
desc=$(git -C "$repo_dir" describe --always --dirty)
mkdir -p "$root$guest_repo"
git -C "$repo_dir" archive --format=tar "$tree" | tar -x -C "$root$guest_repo"
log "project: $repo_dir at $desc, copied to $guest_repo in the root"

# Runs a bash command in the root as root, with a login-like environment:
# nothing of the caller's but TERM, CI, proxy settings and ZRAM_KCACHE.
in_root() {
	local v envs=()

	for v in TERM CI http_proxy https_proxy no_proxy; do
		[ -z "${!v:-}" ] || envs+=("$v=${!v}")
	done
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 ZRAM_KCACHE="$kcache_dir" "${envs[@]}" \
		/bin/bash -c "$1"
}

in_root "cd $guest_repo && git init -q && git add -A &&
	git -c user.name=fresh-check -c user.email=fresh-check@localhost \
		commit -q -m 'fresh-check: $desc'"

times=()
rc=0
# one table of tiers for all the targets (tools/build/tier.sh)
in_root "cd $guest_repo && tools/build/tier.sh start"
for target in "${targets[@]}"; do
	tlog=$fresh/logs/$ts-$target.log
	log "make $target in the root (log: $tlog)"
	t=$SECONDS
	if ! in_root "cd $guest_repo && TIER_KEEP=1 make $target" 2>&1 | tee "$tlog"; then
		rc=1
	fi
	times+=("make $target $((SECONDS - t)) s")
	if [ "$rc" -ne 0 ]; then
		log "make $target FAILED in the fresh root"
		break
	fi
done

echo
log "the time of each tier, make ${targets[*]}"
tools_tier=$root$guest_repo/tools/build/tier.sh
"$tools_tier" table "$root$guest_repo/.cache/results/tiers.tsv" | tee "$fresh/logs/$ts-tiers.txt"
cleanup
echo
log "times: $(printf '%s, ' "${times[@]}")total $((SECONDS - t0)) s"
if [ "$rc" -ne 0 ]; then
	log "FAILED; the run's files are kept: mount -o loop $img DIR," \
		"then see DIR/upper$guest_repo"
	exit 1
fi
rm -f "$img"
rm_tree "$run"
log "PASS: make ${targets[*]} in a fresh $(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' "$base/etc/os-release") root"
# make check's closing count, last, for whoever reads the end of the log
grep -h -a -E '^selftests: [0-9]+ passed, [0-9]+ failed' "$fresh/logs/$ts-"*.log |
	tail -1 || true
