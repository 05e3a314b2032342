#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the root file system that make fresh-check runs the project in: a
# model of a new machine of this kind before the project touches it.
#   - debootstrap --variant=minbase bookworm (essential packages and apt),
#     from the mirror the host's apt sources use for bookworm;
#   - the host's apt setup (/etc/apt: sources, keys, apt.conf.d), so apt in
#     the root reaches the same registry the same way; a root of another
#     release than the host's (--suite trixie: make dkms-check's Debian 13)
#     keeps the host's keys and apt.conf.d, and its sources name its own
#     release (main and -updates) on the host's mirror for it;
#   - the baseline below: what a new machine has that the project may rely
#     on (platform.md, "Fresh-machine facts"). Nothing else: whatever else a
#     make target needs, the project's own scripts must install.
#   - /usr/sbin/policy-rc.d refusing to start services (a package's daemon
#     must not outlive the chroot), as in any chroot.
# fresh-check caches the result keyed by this script's content: edit the
# baseline here and the next run builds a new root.
#
# Usage: tools/testing/fresh/mkroot.sh [--suite SUITE] DIR
#            build the root of SUITE (default bookworm) in DIR
#        tools/testing/fresh/mkroot.sh --apt DIR
#            only copy the host's apt setup into the root DIR (for the
#            release DIR/etc/os-release names)
# Needs root. The log of the build is DIR.log.

set -euo pipefail

baseline=(ca-certificates gcc git libc6-dev make perl python3)
suite=bookworm

log() { printf '[fresh] %s\n' "$*" >&2; }
die() { printf '[fresh] error: %s\n' "$*" >&2; exit 1; }

# The codename of the Debian release of root $1 (/ for the host).
codename() {
	sed -n 's/^VERSION_CODENAME=//p' "$1/etc/os-release"
}

# Replace the root's /etc/apt with the host's; add the keyrings that the
# sources name with Signed-By and the root lacks; the host's resolver. A
# root of another release gets sources of its own instead of the host's.
copy_apt_setup() {
	local root=$1 key suite

	suite=$(codename "$root")
	rm -rf "${root:?}/etc/apt"
	cp -a /etc/apt "$root/etc/apt"
	if [ "$suite" != "$(codename /)" ]; then
		rm -rf "$root/etc/apt/sources.list.d"/* "$root/etc/apt/sources.list"
		printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
			"$(suite_mirror "$suite")" "$suite" "$(suite_mirror "$suite")" "$suite-updates" \
			>"$root/etc/apt/sources.list"
	fi
	while read -r key; do
		[ -e "$root$key" ] || [ ! -f "$key" ] || install -D -m 0644 "$key" "$root$key"
	done < <(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -o -i -E 'signed-by[=:][[:space:]]*/[^] ]+' | sed -E 's|^[^/]*||' | sort -u)
	rm -f "$root/etc/resolv.conf"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

suite_mirror() { "$(dirname "$0")/../../kernel/mirror.sh" "$1"; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
if [ "${1:-}" = --apt ]; then
	copy_apt_setup "${2:?usage: mkroot.sh --apt DIR}"
	exit 0
fi
if [ "${1:-}" = --suite ]; then
	suite=${2:?usage: mkroot.sh [--suite SUITE] DIR}
	shift 2
fi
dest=${1:?usage: mkroot.sh [--suite SUITE] DIR}
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac

# The mounts below live in a private mount namespace, which ends with
# this script however it ends.
if [ -z "${MKROOT_PRIVATE_NS:-}" ]; then
	exec env MKROOT_PRIVATE_NS=1 unshare --mount --propagation private -- \
		"$0" --suite "$suite" "$dest"
fi

command -v debootstrap >/dev/null || die "debootstrap is not installed"
tmp=$dest.tmp
# nothing is mounted below $tmp in this new namespace
rm -rf --one-file-system "$tmp"
mkdir -p "$tmp"
mirror=$(suite_mirror "$suite")
buildlog=$dest.log

log "debootstrap --variant=minbase $suite from $mirror (log: $buildlog)"
if ! debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$buildlog" 2>&1; then
	tail -20 "$buildlog" >&2
	die "debootstrap failed (log: $buildlog)"
fi
copy_apt_setup "$tmp"
printf '#!/bin/sh\n# fresh-check: no services in this chroot\nexit 101\n' \
	>"$tmp/usr/sbin/policy-rc.d"
chmod 0755 "$tmp/usr/sbin/policy-rc.d"

mount -t proc proc "$tmp/proc"
mount --rbind /sys "$tmp/sys"
mount --rbind /dev "$tmp/dev"
trap 'umount -R "$tmp/dev" "$tmp/sys" "$tmp/proc" 2>/dev/null || true' EXIT

log "installing the baseline: ${baseline[*]}"
# shellcheck disable=SC2016 # expanded by the shell in the root
if ! chroot "$tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 /bin/sh -ec '
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "$@"
	apt-get clean' _ "${baseline[@]}" >>"$buildlog" 2>&1; then
	tail -20 "$buildlog" >&2
	die "installing the baseline failed (log: $buildlog)"
fi

umount -R "$tmp/dev" "$tmp/sys" "$tmp/proc"
trap - EXIT
mv "$tmp" "$dest"
log "root ready: $dest ($(du -sh --one-file-system "$dest" | cut -f1))"
