#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the Debian mirror the host's apt uses: the first URI of its enabled
# sources (one-line and deb822 formats) for SUITE (default: the host's own
# release), or http://deb.debian.org/debian when none names it. The other
# suites the project fetches (trixie, trixie-backports) come from the same
# mirror.
#
# Usage: tools/kernel/mirror.sh [SUITE]

set -euo pipefail

suite=${1:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}

mirror=$({
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/\[[^]]*\]//' |
		awk -v s="$suite" '$1 == "deb" && $3 == s { print $2 }'
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk -v s="$suite" '
		BEGIN { RS = "" }
		{
			types = ""; uris = ""; suites = ""; enabled = "yes"
			n = split($0, line, "\n")
			for (i = 1; i <= n; i++) {
				if (line[i] ~ /^[[:space:]]*#/)
					continue
				k = tolower(line[i]); sub(/:.*/, "", k)
				v = line[i]; sub(/^[^:]*:[[:space:]]*/, "", v)
				if (k == "types") types = v
				else if (k == "uris") uris = v
				else if (k == "suites") suites = v
				else if (k == "enabled") enabled = tolower(v)
			}
			if (enabled != "no" && (" " types " ") ~ / deb / &&
			    (" " suites " ") ~ (" " s " ")) {
				split(uris, u, " ")
				print u[1]
			}
		}'
} | head -1)
echo "${mirror:-http://deb.debian.org/debian}"
