#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bundle the host's perf (Debian's linux-perf, installed when missing) for
# the benchmark guest, whose initramfs has no perf: the binary, the shared
# libraries ldd lists and the dynamic loader, in .cache/perf/. The guest
# runs it through that loader with --library-path (tools/bench/guest/io.sh,
# bench_perf) from the read-only /repo share. perf of Debian 12 is 6.1;
# cpu-clock sampling and reports work on the 6.12 guest kernel.
# Prints the bundle's folder. Re-runs reuse a bundle of the same perf.
#
# Usage: tools/bench/perf-bundle.sh

set -euo pipefail

# shellcheck source=../testing/vm/lib.sh
. "$(dirname "$0")/../testing/vm/lib.sh"
dir=$cache_dir/perf
perf=/usr/bin/perf

"$vm_dir/deps.sh" --only linux-perf="$perf" >&2
stamp=$(sha256sum "$perf" | cut -c1-16)
if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/lib"
	cp "$perf" "$dir/perf"
	vm_libs_of "$perf" | while read -r lib; do
		cp -L "$lib" "$dir/lib/"
	done
	[ -e "$dir/lib/ld-linux-x86-64.so.2" ] ||
		vm_die "perf-bundle: ldd listed no loader for $perf"
	echo "$stamp" >"$dir/stamp"
fi
echo "$dir"
