#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The zram selftests' README lists exactly the tests of their Makefile:
# every test of TEST_PROGS has an entry in the README's "Tests" section
# (a line that starts with its name, without .sh), every entry there is a
# test of TEST_PROGS, and every test of TEST_PROGS exists. Fails with the
# names that differ.
#
# Usage: tools/build/selftests-list.sh [SELFTEST_DIR]

set -euo pipefail

dir=${1:-$(cd "$(dirname "$0")/../.." && pwd)/tools/testing/selftests/zram}
readme=$dir/README

# TEST_PROGS as make sees it, one name per line (without .sh)
makefile_tests() {
	# shellcheck disable=SC2016 # $(TEST_PROGS) is make's, not the shell's
	make -s --no-print-directory -C "$dir" -f Makefile \
		--eval 'selftests-list-print: ; @printf "%s\n" $(TEST_PROGS)' \
		selftests-list-print | sed 's/\.sh$//' | sort
}

# the entries of the README's "Tests" section (from its underlined title
# to the next underlined title): its lines that start with a test name
readme_tests() {
	awk 'NR > 1 && /^-+$/ { on = prev == "Tests" }
	     on && /^zram_[a-z0-9]+_[0-9]+( |$)/ { print $1 }
	     { prev = $0 }' "$readme" | sort -u
}

mk=$(makefile_tests)
rd=$(readme_tests)
if [ -z "$mk" ]; then
	echo "[selftests-list] FAILED: no TEST_PROGS in $dir/Makefile"
	exit 1
fi

fail=0
missing=$(comm -23 <(echo "$mk") <(echo "$rd") | tr '\n' ' ')
extra=$(comm -13 <(echo "$mk") <(echo "$rd") | tr '\n' ' ')
if [ -n "$missing" ]; then
	echo "[selftests-list] in TEST_PROGS ($dir/Makefile) but not in the" \
		"Tests section of $readme: $missing"
	fail=1
fi
if [ -n "$extra" ]; then
	echo "[selftests-list] in the Tests section of $readme but not in" \
		"TEST_PROGS: $extra"
	fail=1
fi
for t in $mk; do
	if [ ! -f "$dir/$t.sh" ]; then
		echo "[selftests-list] $t.sh is in TEST_PROGS but does not exist"
		fail=1
	fi
done
if [ "$fail" != 0 ]; then
	echo "[selftests-list] FAILED: the README's Tests section must have one" \
		"entry (a line starting with the test name) per test of TEST_PROGS"
	exit 1
fi
echo "[selftests-list] README lists the $(echo "$mk" | wc -l) tests of TEST_PROGS"
