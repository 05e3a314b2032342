#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian packages that only the test VM uses: downloaded with
# "apt-get download" into .cache/guest-debs and extracted with
# "dpkg-deb -x" into .cache/guest-debs/<package>/, never installed into
# the host. Re-runs reuse the cache.
#
# Usage: tools/testing/vm/guest-debs.sh
# Prints one line per package: "<package> <extracted directory>".

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

packages=(
	# zram-generator: configures zram devices (zram_generator_01.sh)
	systemd-zram-generator
)

dir=$cache_dir/guest-debs
mkdir -p "$dir"
for pkg in "${packages[@]}"; do
	if [ ! -e "$dir/$pkg/.extracted" ]; then
		if ! ls "$dir/${pkg}_"*.deb >/dev/null 2>&1; then
			vm_log "downloading $pkg (for the guest only)"
			if ! apt-cache show "$pkg" >/dev/null 2>&1; then
				apt-get update -qq >&2
			fi
			(cd "$dir" && apt-get download -q "$pkg" >&2)
		fi
		debs=("$dir/${pkg}_"*.deb)
		rm -rf "${dir:?}/$pkg"
		mkdir -p "$dir/$pkg"
		dpkg-deb -x "${debs[-1]}" "$dir/$pkg"
		touch "$dir/$pkg/.extracted"
	fi
	echo "$pkg $dir/$pkg"
done
