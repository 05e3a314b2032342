#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the zram selftests the way kernel CI does: install them from a kernel
# tree with the kselftest Makefile, then run the kernel's runner in the test
# VM with the chosen driver loaded:
#   make -C tools/testing/selftests TARGETS=zram install INSTALL_PATH=DIR
#   ZRAM_DRIVER=DRIVER DIR/run_kselftest.sh -c zram
# The kernel tree is the cached Debian linux-source of the kernel the VM
# boots (tools/kernel/fetch.sh; 7.3's for the debug kernel).
# This repo's tools/testing/selftests/zram is bind-mounted over the tree's
# zram folder for the install step only, in a private mount namespace that
# ends with it: neither the cached tree nor the repo changes, and the suite
# is never stored twice. Needs root (the bind mount), as the VM harness does.
#
# Usage: tools/testing/vm/kselftest.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   ZRAM=ours|stock      the driver (default ours)
#   TESTS="zram_x.sh ..." only these tests (run_kselftest.sh -t zram:TEST;
#                        default: the whole collection, -c zram)
#   KERNEL=NAME          the kernel the VM boots: debian (Debian's 7.3,
#                        default), debian-6.12 or debug
#   TIMEOUT=SECONDS      kill the VM after this (default 3600)
#   TEST_TIMEOUT=SECONDS per test, the runner's -o (default: the suite's
#                        settings file; KSFT_TIMEOUT is the older name)
#   OUT=DIR              results folder (default below)
#   VM_RUN_ARGS          more options for run.sh (e.g. "--quiet")
#   The older form "kselftest.sh [ours|stock]" still works.
# Results in .cache/results/kselftest/DRIVER-TIME/ (install/, install.log,
# kselftest.tap, console.log, dmesg.txt). The last lines are
#   zram kselftest (kernel runner, DRIVER): N passed, N failed, N skipped
#   zram assertions: N (N ok, N not ok)
# (the tests' own KTAP result lines).
# Exit status 0 when the runner's TAP has a result for every planned test,
# none of them "not ok", at least one plain "ok", and the guest saw the
# driver loaded throughout and no new kernel warning.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the older form: the driver alone
case ${1:-} in
stock | ours) set -- "ZRAM=$1" "${@:2}" ;;
esac
vm_options ZRAM TESTS KERNEL TIMEOUT TEST_TIMEOUT OUT VM_RUN_ARGS -- "$@"
driver=${ZRAM:-ours}
vm_check_drivers "$driver"
test_timeout=${TEST_TIMEOUT:-${KSFT_TIMEOUT:-}}

"$vm_dir/deps.sh"
vm_kernel
if [ "$driver" = ours ] && [ ! -e "$ours_ko" ]; then
	vm_die "$ours_ko is not built (make module, or make debug-module)"
fi
ksft=$kernel_src/tools/testing/selftests
[ -f "$ksft/run_kselftest.sh" ] || vm_die "no kselftest runner in $ksft"

out=${OUT:-$results_dir/kselftest/$driver-$(date +%Y%m%d-%H%M%S)}
install_dir=$out/install
mkdir -p "$out"

vm_log "installing the zram kselftests from the kernel tree into $install_dir"
# shellcheck disable=SC2016 # expanded by the inner shell
if ! unshare --mount --propagation private -- bash -euc '
	mount --bind "$1" "$2/zram"
	make -C "$2" TARGETS=zram install INSTALL_PATH="$3"' _ \
	"$repo_dir/tools/testing/selftests/zram" "$ksft" "$install_dir" \
	>"$out/install.log" 2>&1; then
	cat "$out/install.log" >&2
	vm_die "the kselftest install failed (log: $out/install.log)"
fi
grep -q '^zram:' "$install_dir/kselftest-list.txt" ||
	vm_die "the install listed no zram test (log: $out/install.log)"

args=(--timeout "${TIMEOUT:-3600}" --out "$out" --env "ZRAM_DRIVER=$driver")
# zram_upstream_01 runs upstream's own tests from the cached kernel tree,
# which an installed suite cannot find by its own path
args+=(--env "ZRAM_UPSTREAM_DIR=/repo/${ksft#"$repo_dir"/}/zram")
[ -z "$test_timeout" ] || args+=(--env "KSFT_TIMEOUT=$test_timeout")
[ -z "${TESTS:-}" ] || args+=(--env "TESTS=$TESTS")
rc=0
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
"$vm_dir/run.sh" "${args[@]}" ${VM_RUN_ARGS:-} -- \
	/repo/tools/testing/vm/guest/kselftest.sh "$driver" /out/install ||
	rc=$?

# The runner's own lines start at the beginning of a line; everything a
# test prints is prefixed with "# ".
tap=$out/kselftest.tap
touch "$tap"
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | head -1)
results=$(grep -c -E '^(not )?ok [0-9]+ ' "$tap" || true)
failed=$(grep -c -E '^not ok [0-9]+ ' "$tap" || true)
skipped=$(grep -c -E '^ok [0-9]+ .*# SKIP' "$tap" || true)
passed=$((results - failed - skipped))
# the tests' own KTAP result lines, which the runner prefixes with "# "
asserts_ok=$(grep -c -E '^# ok [0-9]+ ' "$tap" || true)
asserts_not_ok=$(grep -c -E '^# not ok [0-9]+ ' "$tap" || true)

echo
vm_log "kernel runner TAP: $tap"
# the guest's own verdicts (driver unloaded, kernel warnings), which
# --quiet keeps off the terminal
if [ "$rc" -ne 0 ]; then
	sed -n '/^\[kselftest\] \(the\|new\)/,/^\[init\]/p' "$out/console.log" |
		grep -v '^\[init\]' | sed 's/^/[vm]   /' >&2
fi
grep -E '^not ok [0-9]+ ' "$tap" | sed 's/^/[vm]   /' >&2 || true
if [ -z "$plan" ] || [ "$results" -ne "$plan" ]; then
	vm_log "the runner planned ${plan:-no} tests and reported $results"
	rc=1
fi
if [ "$passed" -eq 0 ]; then
	vm_log "no test passed"
	rc=1
fi
[ "$failed" -eq 0 ] || rc=1
echo "zram kselftest (kernel runner, $driver): $passed passed, $failed failed, $skipped skipped"
echo "zram assertions: $((asserts_ok + asserts_not_ok)) ($asserts_ok ok, $asserts_not_ok not ok)"
vm_tier_counts "$results" $((asserts_ok + asserts_not_ok))
exit "$rc"
