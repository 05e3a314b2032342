#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: run the zram selftests in the test VM.
#
# Usage: tools/testing/vm/vm-run.sh [stock|ours] [TEST...]
# Builds the selftests' C helpers (static, run from the source tree in the guest),
# boots the harness (tools/testing/vm/run.sh) and runs run_all.sh there;
# exits with its status. VM_RUN_ARGS adds options for run.sh (e.g.
# "--out DIR --quiet").

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
driver=${1:-stock}
[ $# -gt 0 ] && shift

make -s -C "$root/tools/testing/selftests/zram" all || exit 1
# shellcheck disable=SC2086 # VM_RUN_ARGS is a list of options
exec "$root/tools/testing/vm/run.sh" --timeout 3600 ${VM_RUN_ARGS:-} -- \
	/repo/tools/testing/selftests/zram/run_all.sh "$driver" "$@"
