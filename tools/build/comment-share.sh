#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prints each driver file's lines, comment lines and comment share, and
# fails when the share of the whole driver is above the limit.
#
# A comment line is a line that holds nothing but comment: a line inside
# a /* */ block (kernel-doc included), or one that starts with //.  A
# line of code with a trailing comment counts as code; blank lines count
# towards the total only.
#
# usage: comment-share.sh [MAX_PERCENT [DIR]]   (default 20, drivers/block/zram)
set -euo pipefail

max=${1:-20}
dir=${2:-drivers/block/zram}

# count_file FILE: prints "TOTAL COMMENT" for one C source or header
count_file() {
	awk '
	{
		line = $0
		sub(/^[ \t]+/, "", line)
		if (inblock) {
			comment++
			if (index(line, "*/"))
				inblock = 0
			next
		}
		if (substr(line, 1, 2) == "//") {
			comment++
			next
		}
		if (substr(line, 1, 2) == "/*") {
			comment++
			rest = substr(line, 3)
			if (!index(rest, "*/"))
				inblock = 1
			next
		}
		# code that opens a block comment it does not close
		if (index(line, "/*") && !index(substr(line, index(line, "/*")), "*/"))
			inblock = 1
	}
	END { print NR, comment + 0 }' "$1"
}

main() {
	local f total comment all=0 com=0

	cd "$(git rev-parse --show-toplevel)"
	printf '%-40s %6s %8s %6s\n' file lines comments share
	while read -r f; do
		read -r total comment < <(count_file "$f")
		all=$((all + total))
		com=$((com + comment))
		printf '%-40s %6d %8d %5d%%\n' "$f" "$total" "$comment" \
			$((total ? comment * 100 / total : 0))
	done < <(git ls-files "$dir" | grep -E '\.[ch]$')
	printf '%-40s %6d %8d %5d.%d%% (at most %d%%)\n' total "$all" "$com" \
		$((com * 100 / all)) $((com * 1000 / all % 10)) "$max"
	if ((com * 100 > max * all)); then
		echo "comment-share: $dir is above $max% comment lines" >&2
		return 1
	fi
}

main "$@"
