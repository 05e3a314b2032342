# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# Shared by the scripts of make series and make series-check: paths, and the
# scratch git repository that holds Debian's pristine linux-source-7.3
# (tools/kernel/fetch.sh unpacks its package into .cache/src-deb).
#
# The scratch repository (.cache/series/linux) has one commit of the whole
# pristine tree, tagged "pristine"; the series is built on it and checked on
# it. It is made again only when the source package changes.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
series_dir=$top/.cache/series
ktree=$series_dir/linux
out_dir=$top/build/series
# the Linux series the patches are made against
series_base=7.3
src_tar=$top/.cache/src-deb/usr/src/linux-source-$series_base.tar.xz
src_changelog=$top/.cache/src-deb/usr/share/doc/linux-source-$series_base/changelog.Debian.gz

series_log() { printf '[series] %s\n' "$*" >&2; }
series_die() { series_log "$*"; exit 1; }

# The Debian version of the unpacked source package, e.g. 7.3.4-1~bpo13+1.
series_src_version() {
	gzip -dc "$src_changelog" | sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p'
}

series_git() { git -C "$ktree" -c gc.auto=0 "$@"; }

# Make sure the scratch repository holds the current source package, and
# check out its pristine tree with nothing else in the work tree.
series_pristine() {
	local key

	[ -e "$src_tar" ] || series_die "no $src_tar: run tools/kernel/fetch.sh"
	key="$(series_src_version) $(stat -c %s "$src_tar")"
	if [ "$(cat "$series_dir/linux.key" 2>/dev/null)" != "$key" ] ||
		! git -C "$ktree" rev-parse -q --verify pristine >/dev/null; then
		series_log "unpacking linux-source $(series_src_version) into a scratch git repository"
		rm -rf "$ktree" "$series_dir/linux.key"
		mkdir -p "$ktree"
		tar -C "$ktree" --strip-components=1 -xf "$src_tar"
		series_git init -q -b base
		series_git add -A -f .
		# a fixed identity and date: the same source, the same commit id
		GIT_AUTHOR_NAME=linux-source GIT_AUTHOR_EMAIL=linux-source@invalid \
			GIT_COMMITTER_NAME=linux-source \
			GIT_COMMITTER_EMAIL=linux-source@invalid \
			GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
			GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
			series_git commit -q -m "linux-source-$series_base $(series_src_version)"
		series_git tag pristine
		printf '%s\n' "$key" >"$series_dir/linux.key"
	fi
	series_git checkout -q -f --detach pristine
	series_git clean -q -f -d -x
}
