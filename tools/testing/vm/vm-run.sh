#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: run the zram selftests in the test VM.
# Builds the selftests' C helpers (static, run from the source tree in the
# guest), boots the harness (tools/testing/vm/run.sh) and runs run_all.sh
# there; exits with its status.
#
# Usage: tools/testing/vm/vm-run.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   ZRAM=stock|ours      the driver (default stock)
#   TESTS="zram_x.sh ..." only these tests (default: every test)
#   KERNEL=NAME          the kernel the VM boots: debian (Debian's 7.3,
#                        default), debian-6.12 or debug
#   TIMEOUT=SECONDS      kill the VM after this (default 3600)
#   TEST_TIMEOUT=SECONDS per test (default: the suite's settings file)
#   OUT=DIR              results folder (default
#                        .cache/results/selftests/ZRAM-TIME)
#   VM_RUN_ARGS          more options for run.sh (e.g. "--quiet")
#   The older form "vm-run.sh [stock|ours] [TEST...]" still works.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the older form: a driver, then test names
case ${1:-} in
stock | ours) set -- "ZRAM=$1" "${@:2}" ;;
esac
opts=()
tests=()
for arg in "$@"; do
	case $arg in
	*=*) opts+=("$arg") ;;
	zram_*.sh) tests+=("$arg") ;;
	*) vm_log "neither NAME=VALUE nor a test (zram_*.sh): '$arg'"; vm_usage ;;
	esac
done
[ "${#tests[@]}" = 0 ] || opts+=("TESTS=${tests[*]}")
vm_options ZRAM TESTS KERNEL TIMEOUT TEST_TIMEOUT OUT VM_RUN_ARGS -- "${opts[@]}"
driver=${ZRAM:-stock}
vm_check_drivers "$driver"
read -r -a tests <<<"${TESTS:-}"

args=(--timeout "${TIMEOUT:-3600}"
	--out "${OUT:-$results_dir/selftests/$driver-$(date +%Y%m%d-%H%M%S)}")
[ -z "${TEST_TIMEOUT:-}" ] || args+=(--env "ZRAM_TEST_TIMEOUT=$TEST_TIMEOUT")
make -s -C "$repo_dir/tools/testing/selftests/zram" all
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
exec "$vm_dir/run.sh" "${args[@]}" ${VM_RUN_ARGS:-} -- \
	/repo/tools/testing/selftests/zram/run_all.sh "$driver" "${tests[@]}"
