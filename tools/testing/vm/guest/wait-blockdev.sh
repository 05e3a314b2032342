#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wait until a block device node exists (devtmpfs creates them
# asynchronously). Usage: wait-blockdev.sh /dev/NAME [TIMEOUT_SECONDS]
# Fails if the node is not a block device after TIMEOUT (default 10 s).

set -euo pipefail

dev=${1:?usage: wait-blockdev.sh /dev/NAME [TIMEOUT_SECONDS]}
timeout_s=${2:-10}
tries=$((timeout_s * 10))

while [ ! -b "$dev" ]; do
	if [ -e "$dev" ]; then
		echo "wait-blockdev: $dev exists but is not a block device" >&2
		exit 1
	fi
	tries=$((tries - 1))
	if [ "$tries" -le 0 ]; then
		echo "wait-blockdev: $dev did not appear within ${timeout_s}s" >&2
		exit 1
	fi
	sleep 0.1
done
