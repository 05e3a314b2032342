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

# one shellcheck per CPU, each on an equal share of the scripts
jobs=$(nproc)
per_job=$(((${#scripts[@]} + jobs - 1) / jobs))
printf '%s\0' "${scripts[@]}" | xargs -0 -P "$jobs" -n "$per_job" shellcheck -x
echo "[shellcheck] ${#scripts[@]} scripts clean"
