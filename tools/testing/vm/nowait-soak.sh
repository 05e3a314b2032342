#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nowait soak: io_uring write/writeback/verify cycles over a backing
# device that completes from a timer (guest/nowait-soak.sh), in the VM.
#
# Usage: tools/testing/vm/nowait-soak.sh [NAME=VALUE...]
#   Options, in the environment or as arguments (README.md, "Options"):
#   ZRAM=ours|stock      the driver (default ours)
#   SOAK_SECS=900        how long the cycles go on
#   SOAK_MB=384          the fio job's size
#   KERNEL=NAME          the kernel the VM boots: debian (Debian's 7.3,
#                        default), debian-6.12 or debug
#   TIMEOUT=SECONDS      kill the VM after this (default SOAK_SECS + 600)
#   OUT=DIR              results folder (default
#                        .cache/results/soak/ZRAM-TIME)
#   VM_RUN_ARGS          more options for run.sh (e.g. "--quiet")
#   The older form "nowait-soak.sh [stock|ours] [SECONDS]" still works.
#   Exit status 0 = no error in any cycle.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# the older form: the driver, then the seconds
case ${1:-} in
stock | ours) set -- "ZRAM=$1" "${@:2}" ;;
esac
case ${2:-} in
[0-9]*) set -- "$1" "SOAK_SECS=$2" "${@:3}" ;;
esac
vm_options ZRAM SOAK_SECS SOAK_MB KERNEL TIMEOUT OUT VM_RUN_ARGS -- "$@"
driver=${ZRAM:-ours}
vm_check_drivers "$driver"
secs=${SOAK_SECS:-900}
args=(--timeout "${TIMEOUT:-$((secs + 600))}" --env "SOAK_SECS=$secs")
[ -z "${SOAK_MB:-}" ] || args+=(--env "SOAK_MB=$SOAK_MB")
args+=(--out "${OUT:-$results_dir/soak/$driver-$(date +%Y%m%d-%H%M%S)}")
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
exec "$vm_dir/run.sh" "${args[@]}" ${VM_RUN_ARGS:-} \
	-- /repo/tools/testing/vm/guest/nowait-soak.sh "$driver"
