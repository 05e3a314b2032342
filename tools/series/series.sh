#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: the repository as a git format-patch series against Debian's
# pristine linux-source-7.3, in build/series/. tools/series/manifest says
# which files make which patch; series.py derives every intermediate state.
# Each patch is committed in the scratch repository (.cache/series/linux,
# branch "series") and exported with a cover letter that carries the
# bench table tools/series/cover-bench names.
#
# Usage: tools/series/series.sh
#   BENCH=FILE  the bench table for the cover letter (default: the one
#               tools/series/cover-bench names)
# The author and Signed-off-by of every patch are git's user.name and
# user.email in this repository, else the author of its last commit.

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# The bench table of the cover letter: the one tools/series/cover-bench
# names (a path from the top of the repository, one line). It is named
# rather than found: git's commit times are gone in the fresh root of
# make fresh-check, and file times there are the copy's.
cover_bench() {
	local name

	name=$(sed -n '1p' "$top/tools/series/cover-bench") ||
		series_die "no tools/series/cover-bench"
	printf '%s\n' "$top/$name"
}

py=(python3 "$top/tools/series/series.py")
mapfile -t patches < <("${py[@]}" list)
[ "${#patches[@]}" -gt 0 ] || series_die "tools/series/manifest does not fit the repository"
bench=${BENCH:-$(cover_bench)}
if [ -z "$bench" ] || [ ! -e "$bench" ]; then
	series_die "no bench table '$bench' (BENCH, tools/series/cover-bench)"
fi

name=$(git -C "$top" config user.name || git -C "$top" log -1 --format=%an)
email=$(git -C "$top" config user.email || git -C "$top" log -1 --format=%ae)
# Dated like the repository's last commit: the same repository state gives
# the same series, byte for byte.
date=$(git -C "$top" log -1 --format=%cI)
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date

series_pristine
series_git checkout -q -B series pristine
msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
n=0
for patch in "${patches[@]}"; do
	n=$((n + 1))
	mapfile -t paths < <("${py[@]}" apply "$n" "$ktree")
	[ "${#paths[@]}" -gt 0 ] || series_die "patch $n ($patch): series.py apply failed"
	series_git add -A -f -- "${paths[@]}"
	# plumbing: a porcelain commit would stat all 90k files of the tree
	tree=$(series_git write-tree)
	if [ "$tree" = "$(series_git rev-parse 'HEAD^{tree}')" ]; then
		series_die "patch $n ($patch) changes nothing"
	fi
	{
		cat "$top/tools/series/msg/$patch"
		printf '\nSigned-off-by: %s <%s>\n' "$name" "$email"
	} >"$msg"
	commit=$(series_git commit-tree "$tree" -p HEAD -F "$msg")
	series_git update-ref refs/heads/series "$commit"
	series_log "$n/${#patches[@]} $(head -n1 "$top/tools/series/msg/$patch")"
done

rm -rf "$out_dir"
mkdir -p "$out_dir"
series_git format-patch -q --cover-letter --no-signature -o "$out_dir" pristine..series
"${py[@]}" cover "$out_dir"/0000-cover-letter.patch "$bench" \
	"$(series_src_version)"
series_log "wrote $((n + 1)) files to ${out_dir#"$top"/} (bench table: ${bench#"$top"/})"
