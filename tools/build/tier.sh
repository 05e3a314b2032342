#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The time of each tier of make check (and of whatever else is run through
# it), for the table make check and make fresh-check print at the end.
# Tiers are appended to one log as they end; tiers that run side by side
# (make -j2) overlap, so their times do not add up to the total.
#
# Usage: tools/build/tier.sh start             empty the log
#        tools/build/tier.sh run NAME -- CMD...  run CMD, log NAME's time
#                                              and exit status; exit as CMD
#        tools/build/tier.sh table [LOG]       print the log as a table
#   TIER_LOG  the log (default .cache/results/tiers.tsv): a line per tier,
#             "NAME<TAB>SECONDS<TAB>STATUS<TAB>END (UTC)<TAB>END (epoch)
#             <TAB>TESTS<TAB>ASSERTIONS" (the last two empty for a tier
#             that runs no tests)
#   TIER_COUNTS  set for CMD: a file where a test runner writes
#             "TESTS ASSERTIONS", what it ran (the tests, and the KTAP
#             result lines the tests printed), for the table
#   TIER_KEEP=1  "start" keeps the log (a caller that runs several make
#             targets and wants one table: make fresh-check)

set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TIER_LOG:-$top/.cache/results/tiers.tsv}

usage() {
	echo "usage: tier.sh start | run NAME -- CMD... | table [LOG]" >&2
	exit 2
}

# Prints log $1 as a table: each tier's wall time, the tests and
# assertions of the tiers that run tests, and its status; then the span
# from the first tier's start to the last one's end, and the tests and
# assertions of all tiers.
print_table() {
	[ -s "$1" ] || { echo "[tier] no tiers recorded in $1"; return 0; }
	awk -F '\t' '
	{
		name[NR] = $1; secs[NR] = $2; rc[NR] = $3; end = $5
		tests[NR] = $6 == "" ? "-" : $6
		asserts[NR] = $7 == "" ? "-" : $7
		all_tests += $6; all_asserts += $7
		if (NR == 1 || $5 - $2 < first)
			first = $5 - $2
		if ($5 > last)
			last = $5
	}
	END {
		fmt = "%-26s %8s %6s %6s %10s  %s\n"
		printf fmt, "tier", "seconds", "min", "tests", "assertions", "status"
		for (i = 1; i <= NR; i++)
			printf fmt, name[i], secs[i], sprintf("%.1f", secs[i] / 60),
				tests[i], asserts[i],
				rc[i] == 0 ? "ok" : "FAILED (" rc[i] ")"
		printf fmt, "(first start to last end)", last - first,
			sprintf("%.1f", (last - first) / 60), all_tests, all_asserts, ""
	}' "$1"
}

case ${1:-} in
start)
	mkdir -p "$(dirname "$log")"
	[ "${TIER_KEEP:-0}" = 1 ] || : >"$log"
	;;
run)
	if [ $# -lt 4 ] || [ "$3" != -- ]; then
		usage
	fi
	name=$2
	shift 3
	TIER_COUNTS=$(mktemp /tmp/tier-counts.XXXXXX) || exit 1
	export TIER_COUNTS
	start=$(date +%s)
	"$@"
	rc=$?
	end=$(date +%s)
	counts=()
	read -r -a counts <"$TIER_COUNTS"
	rm -f "$TIER_COUNTS"
	mkdir -p "$(dirname "$log")"
	printf '%s\t%d\t%d\t%s\t%d\t%s\t%s\n' "$name" $((end - start)) "$rc" \
		"$(date -u -d "@$end" +%FT%TZ)" "$end" "${counts[0]:-}" \
		"${counts[1]:-}" >>"$log"
	exit "$rc"
	;;
table)
	print_table "${2:-$log}"
	;;
*)
	usage
	;;
esac
