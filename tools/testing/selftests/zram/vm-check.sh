#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side, for "make check": run the zram selftests in the test VM against
# the stock zram.ko and against ours, print both summaries and one total.
# Exits non-zero when either run failed.
#
# Usage: tools/testing/selftests/zram/vm-check.sh

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
logdir=$(cd "$here/../../../.." && pwd)/.cache/selftests
mkdir -p "$logdir"

rc=0
pass=0
fail=0
skip=0
summaries=()
for driver in stock ours; do
	log=$logdir/$driver.log
	echo "[selftests] $driver: running in the VM (log: $log)"
	if ! "$here/vm-run.sh" "$driver" 2>&1 | tee "$log"; then
		rc=1
	fi
	summary=$(grep -a -o 'zram selftests:.*' "$log" | tail -1 | tr -d '\r')
	if [ -z "$summary" ]; then
		echo "[selftests] $driver: no summary line (the VM run failed)"
		rc=1
		fail=$((fail + 1))
		continue
	fi
	read -r p f s < <(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' <<<"$summary")
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	summaries+=("$driver: $summary")
done

echo
echo "[selftests] summaries"
printf '  %s\n' "${summaries[@]}"
[ "$fail" -eq 0 ] || rc=1
echo "selftests: $pass passed, $fail failed, $skip skipped"
exit "$rc"
