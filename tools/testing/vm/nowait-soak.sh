#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nowait soak: io_uring write/writeback/verify cycles over a backing
# device that completes from a timer (guest/nowait-soak.sh), in the VM.
#
# Usage: tools/testing/vm/nowait-soak.sh [stock|ours] [SECONDS]
#   default: ours, 900 seconds. Exit status 0 = no error in any cycle.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

driver=${1:-ours}
secs=${2:-900}
exec "$vm_dir/run.sh" --timeout $((secs + 600)) --env "SOAK_SECS=$secs" \
	-- /repo/tools/testing/vm/guest/nowait-soak.sh "$driver"
