#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run shellcheck on every shell script of the repository: files named *.sh
# and files whose first line names sh or bash.

set -euo pipefail

cd "$(dirname "$0")/../.."
scripts=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) scripts+=("$f") ;;
	*)
		if head -n1 "$f" | grep -Eq '^#!.*/(ba)?sh( |$)|^#!/usr/bin/env (ba)?sh'; then
			scripts+=("$f")
		fi
		;;
	esac
done < <(git ls-files -z --cached --others --exclude-standard)

shellcheck -x "${scripts[@]}"
echo "[shellcheck] ${#scripts[@]} scripts clean"
