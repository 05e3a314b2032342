#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the /dev path of the virtio-blk disk whose serial is SERIAL (the
# host's run.sh --disk FILE::SERIAL). Usage: disk-by-serial.sh SERIAL
# Fails when no disk has that serial.

set -euo pipefail

serial=${1:?usage: disk-by-serial.sh SERIAL}

for f in /sys/block/vd*/serial; do
	[ -e "$f" ] || continue
	if [ "$(cat "$f")" = "$serial" ]; then
		f=${f%/serial}
		echo "/dev/${f##*/}"
		exit 0
	fi
done
exit 1
