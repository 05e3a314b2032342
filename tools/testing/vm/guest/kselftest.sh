#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/testing/vm/kselftest.sh: load a zram driver and run
# the installed zram kselftests with the kernel's own runner,
#   ZRAM_DRIVER=DRIVER DIR/run_kselftest.sh -c zram
# keeping its TAP in /out/kselftest.tap for the host to judge; on the
# console each test's result line also gives the test's time.
#
# Usage: kselftest.sh stock|ours DIR
#   DIR is the INSTALL_PATH of "make -C tools/testing/selftests install".
# Environment: KSFT_TIMEOUT  per-test timeout for the runner's -o (default:
#   the suite's settings file); TESTS  only these tests of the collection
#   (-t zram:TEST each; default -c zram, all of them).
# Exits non-zero when the driver does not load, when it is no longer the
# loaded zram after the run, or when the kernel logged a warning while
# loading it or during the run;
# the TAP itself is checked on the host.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
driver=${1:?usage: kselftest.sh stock|ours DIR}
dir=${2:?usage: kselftest.sh stock|ours DIR}
warn_re='WARNING:|BUG:|Oops|general protection|list_(add|del) corruption'

say() { echo "[kselftest] $*"; }

# Which zram is loaded: ours taints the kernel (O, E), stock does not.
zram_id() {
	[ -d /sys/module/zram ] || return 0
	echo "taint '$(cat /sys/module/zram/taint)'," \
		"$(cat /sys/module/zram/coresize) bytes"
}

# counted before the load: a warning the driver's init logs is its own
warn0=$(dmesg | grep -c -E "$warn_re")
"$here/zram-load.sh" "$driver" || exit 1
loaded=$(zram_id)

opts=(-c zram)
if [ -n "${TESTS:-}" ]; then
	opts=()
	for t in $TESTS; do
		opts+=(-t "zram:$t")
	done
fi
[ -z "${KSFT_TIMEOUT:-}" ] || opts+=(-o "$KSFT_TIMEOUT")
say "ZRAM_DRIVER=$driver $dir/run_kselftest.sh ${opts[*]}"
# with_times: copies the runner's lines, with the test's wall time after
# the name in each test's result line, "(Ns)", as run_all.sh prints it
# (the TAP file keeps the runner's lines as they are)
with_times() {
	local line secs start=$SECONDS

	while IFS= read -r line; do
		case $line in
		'# selftests: zram: '*) start=$SECONDS ;;
		'ok '*' selftests: zram: '* | 'not ok '*' selftests: zram: '*)
			secs="($((SECONDS - start))s)"
			case $line in
			*' # '*) line="${line%% # *} $secs # ${line#* # }" ;;
			*) line="$line $secs" ;;
			esac
			;;
		esac
		printf '%s\n' "$line"
	done
}

# the tests read ZRAM_DRIVER (which driver's behaviour to expect)
ZRAM_DRIVER=$driver "$dir/run_kselftest.sh" "${opts[@]}" 2>&1 |
	tee /out/kselftest.tap | with_times

rc=0
if [ "$(zram_id)" != "$loaded" ]; then
	say "the $driver zram module ($loaded) is no longer the loaded one" \
		"(now: $(zram_id))"
	rc=1
fi
if [ "$(dmesg | grep -c -E "$warn_re")" -gt "$warn0" ]; then
	say "new kernel warnings, from the driver's load on:"
	dmesg | grep -E -B1 -A5 "$warn_re" | tail -40
	rc=1
fi
exit "$rc"
