#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a script of the repo's tools/testing from a copy in /tmp (tmpfs)
# instead of the 9p share. bash reads a script as it runs it; a test
# killed by its timeout in the middle of such a read made 6.12's netfs
# retry the short 9p read recursively until the kernel stack overflowed
# (debug kernel, KASAN reports in the timer interrupt). Tests that may be
# killed therefore run from tmpfs.
#
# Usage: from-tmpfs.sh /repo/tools/testing/PATH [ARGS...]

set -euo pipefail

script=${1:?usage: from-tmpfs.sh /repo/tools/testing/PATH [ARGS...]}
shift
case $script in
/repo/tools/testing/*) ;;
*) echo "from-tmpfs: $script is not under /repo/tools/testing" >&2; exit 2 ;;
esac

mkdir -p /tmp/repo/tools
rm -rf /tmp/repo/tools/testing
cp -a /repo/tools/testing /tmp/repo/tools/
exec "/tmp${script}" "$@"
