#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rewrites debug-costs.txt from the seconds a check-debug run measured:
# each selftest's "(Ns)" in its lane's console log, and the main job's
# wall seconds. Tests the run did not time (skipped, failed, or not run)
# keep their old figure; the header comment stays.
#
# Usage: tools/testing/vm/debug-costs.sh [RESULTS]
#   RESULTS: a check-debug results folder (default
#   .cache/results/check-debug, what make check-debug-ours writes)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
results=${1:-$here/../../../.cache/results/check-debug}
table=$here/debug-costs.txt
declare -A secs=()
lanes=0

for log in "$results"/*/console.log; do
	[ -e "$log" ] || continue
	case $log in */main-*) continue ;; esac
	lanes=$((lanes + 1))
	while read -r name s; do
		secs[$name]=$s
	done < <(sed -n -E \
		's/^ok [0-9]+ selftests: zram: (zram_[a-z0-9_]+\.sh) \(([0-9]+)s\)\r?$/\1 \2/p' \
		"$log")
done
[ "$lanes" -gt 0 ] || { echo "no lane console logs in $results" >&2; exit 1; }
for f in "$results"/main-*/main-secs; do
	[ -e "$f" ] && secs[main-job]=$(<"$f")
done

declare -A old=()
header=()
while IFS= read -r line; do
	if [[ $line == \#* || -z $line ]]; then
		header+=("$line")
	else
		old[${line%% *}]=${line#* }
	fi
done <"$table"
updated=${#secs[@]}
for name in "${!old[@]}"; do
	[ -n "${secs[$name]:-}" ] || secs[$name]=${old[$name]}
done
{
	printf '%s\n' "${header[@]}"
	echo "main-job ${secs[main-job]:-0}"
	for name in "${!secs[@]}"; do
		[ "$name" = main-job ] || echo "$name ${secs[$name]}"
	done | sort
} >"$table.new"
mv "$table.new" "$table"
echo "[debug-costs] $updated figures from $lanes lane(s) of $results"
