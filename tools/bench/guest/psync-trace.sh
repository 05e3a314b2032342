#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a synchronous 4 KiB read or write spends its time, stock zram.ko
# against ours in one boot: ftrace's function_graph tracer follows every
# call below zram_submit_bio for 256 O_DIRECT 4 KiB reads, then 256
# writes, of compressible data (same algorithm on both drivers). Writes
# per driver and direction the trace and a summary: calls per bio, and
# the functions with the most time per bio. Call counts do not depend on
# the host's load; the times do (TCG), so compare them within one run.
#
# Usage (in the VM): psync-trace.sh [DRIVER...]   (default: stock ours)
# Results: /out/psync-trace/<driver>-<read|write>.{trace,summary}

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
vm_guest=$here/../../testing/vm/guest
T=/sys/kernel/tracing
out=/out/psync-trace
drivers=("$@")
[ ${#drivers[@]} -gt 0 ] || drivers=(stock ours)

say() { echo "[psync-trace] $*"; }

# summary TRACE: calls and time per zram_submit_bio, top functions by
# total time (function_graph prints "TIME us | func() {" ... "} /* func */")
summary() {
	awk '
	{ sub(/ \[[a-z_0-9]+\]/, "") }
	/zram_submit_bio\(\) \{/ { bios++ }
	/\|/ && (/\(\) \{/ || /\(\);/) { calls++ }
	/\(\);/ || /\} \/\* / {
		n = split($0, f, "|")
		t = f[n - 1]
		gsub(/[^0-9.]/, "", t)
		fn = f[n]
		sub(/^ *\} \/\* /, "", fn)
		sub(/ \*\/.*/, "", fn)
		sub(/^ */, "", fn)
		sub(/\(\);.*/, "", fn)
		if (t != "") {
			tot[fn] += t
			cnt[fn]++
		}
	}
	END {
		if (!bios)
			exit 1
		printf "bios %d, calls per bio %.1f\n", bios, calls / bios
		for (fn in tot)
			printf "%10.2f us/bio %6.1f calls/bio  %s\n",
			       tot[fn] / bios, cnt[fn] / bios, fn
	}' "$1" | {
		read -r head
		echo "$head"
		sort -k1,1 -rn | head -40
	}
}

trace_io() {
	local drv=$1 dir=$2 f=$out/$1-$2

	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	if [ "$dir" = read ]; then
		dd if=/dev/zram0 of=/dev/null bs=4096 count=256 iflag=direct 2>/dev/null
	else
		dd if=/tmp/psync-data of=/dev/zram0 bs=4096 count=256 oflag=direct \
			conv=notrunc 2>/dev/null
	fi
	echo 0 >"$T/tracing_on"
	cp "$T/trace" "$f.trace"
	summary "$f.trace" >"$f.summary"
	say "$drv $dir: $(head -1 "$f.summary"), top:"
	sed -n 2,9p "$f.summary"
}

mkdir -p "$out"
grep -q " $T " /proc/mounts || mount -t tracefs nodev "$T"
awk 'BEGIN { for (i = 0; i < 256 * 64; i++)
	printf "psync trace line %08d xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", i }' \
	>/tmp/psync-data
alg=''
for drv in "${drivers[@]}"; do
	"$vm_guest/zram-load.sh" "$drv" >/dev/null
	# the algorithm stock picks by default, on both
	[ -n "$alg" ] || alg=$(sed 's/.*\[\([^]]*\)\].*/\1/' /sys/block/zram0/comp_algorithm)
	echo "$alg" >/sys/block/zram0/comp_algorithm
	echo 64M >/sys/block/zram0/disksize
	dd if=/tmp/psync-data of=/dev/zram0 bs=4096 count=256 oflag=direct 2>/dev/null
	echo 0 >"$T/tracing_on"
	echo function_graph >"$T/current_tracer"
	echo zram_submit_bio >"$T/set_graph_function"
	echo 0 >"$T/options/funcgraph-irqs"
	say "$drv ($alg)"
	trace_io "$drv" read
	trace_io "$drv" write
	echo nop >"$T/current_tracer"
	echo >"$T/set_graph_function"
	echo 1 >/sys/block/zram0/reset
done
