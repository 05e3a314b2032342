#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series-check: apply build/series/*.patch with git am onto Debian's
# pristine linux-source-7.3 and prove every patch in order:
#   - checkpatch.pl --strict is clean on the patch (its question whether
#     MAINTAINERS needs updating is answered with get_maintainer.pl);
#   - scripts/kernel-doc -none -Wall is clean on the driver files;
#   - the distro config (Debian's, made current as olddefconfig makes it)
#     keeps every zram option it sets, and with it "make W=1
#     drivers/block/zram/" (CONFIG_ZRAM=m, writeback options on) prints
#     no warning;
#   - zram.ko, built from that tree as a module against the same prepared
#     tree, links (modpost against Debian's Module.symvers, BTF against
#     Debian's vmlinux) with no warning;
#   - every .c file of the driver compiles with W=1 and no warning, also
#     one that no enabled option builds yet (a patch may add a file that
#     only a later patch links in);
#   - with CONFIG_ZRAM=y and every zram option off the directory builds
#     with W=1 and no warning too (the header stubs).
# Before that, no patch may carry or name a file of tools/build/compat (the
# 6.12 module build's API mapping). After it, the tree must equal the one
# "make series" committed, and hold every file of the series exactly as
# the repository has it.
#
# Every make runs in tools/kernel/toolchain.sh's root, with the gcc-14
# Debian built 7.3 with (CC as Debian's kbuild names it, so that the
# config keeps the compiler the distro config was made for).
#
# The kernel tree is prepared once (Debian's config, modules_prepare, W=1)
# in .cache/series/obj/m and copied to obj/y, for the two configs; both are
# reused while the source package and Debian's config stay the same, so a
# patch rebuilds only what it changed. A patch that touches only
# Documentation/, tools/ and MAINTAINERS is not built again. Logs:
# .cache/series/check/.
#
# Usage: tools/series/check.sh

set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

objs=$series_dir/obj
ext=$series_dir/ext
logs=$series_dir/check
jobs=$(nproc)
kver=$(cat "$top/.cache/kver")
base_config=$top/.cache/root/boot/config-$kver
entry=$(head -n1 "$top/MAINTAINERS.fragment")
symvers=$top/.cache/root/usr/src/linux-headers-$kver/Module.symvers
# checkpatch.pl runs scripts/spdxcheck.py through "env python3": make that
# the system python3, which has the modules deps.sh installs (ply, git).
export PATH=/usr/bin:/bin:$PATH
# make in the toolchain root, with Debian's compiler for 7.3
tmake=("$top/tools/kernel/toolchain.sh" run -- nice make
	CC=x86_64-linux-gnu-gcc-14 -j"$jobs")

# kmake VARIANT ARGS...: make in the prepared tree of VARIANT (m or y)
kmake() {
	local variant=$1

	shift
	"${tmake[@]}" -C "$ktree" O="$objs/$variant" "$@"
}

# Fail, showing the lines of LOG that are warnings or errors.
no_warnings() {
	local what=$1 log=$2

	if grep -E 'warning:|error:|WARNING|ERROR' "$log" | grep -Ev '^make(\[[0-9]+\])?: '; then
		series_die "$what: warnings or errors (log: $log)"
	fi
}

# The zram symbols the current tree's Kconfig defines.
zram_symbols() {
	sed -n 's/^\(menu\)\{0,1\}config \(ZRAM[A-Z0-9_]*\)$/\2/p' \
		"$ktree/drivers/block/zram/Kconfig"
}

config_line() {
	grep -E "^(CONFIG_$1=|# CONFIG_$1 is not set)" "$2" || true
}

# configure VARIANT LOG: Debian's config, made current for this tree with
# syncconfig: olddefconfig's answers (the defaults of new symbols, read
# from an empty stdin, with their questions in LOG), and the files that
# kbuild would otherwise sync at the next make, which would parse Kconfig
# once more. "m" is the distro config as it is, which must keep every zram
# setting the tree still knows; "y" builds zram in with every zram option
# off. Runs only when the zram Kconfig changed since the last time: a
# symbol a patch brings back gets Debian's value again.
configure() {
	local variant=$1 log=$2 config=$objs/$1/.config sym want have stamp
	local -a args

	stamp=$(sha256sum <"$ktree/drivers/block/zram/Kconfig")
	if [ "$(cat "$objs/$variant/.zram-kconfig" 2>/dev/null)" = "$stamp" ]; then
		return
	fi
	cp "$base_config" "$config"
	if [ "$variant" = y ]; then
		args=(--set-val ZRAM y)
		for sym in $(zram_symbols); do
			[ "$sym" = ZRAM ] || args+=(-d "$sym")
		done
		"$ktree/scripts/config" --file "$config" "${args[@]}"
	fi
	kmake "$variant" syncconfig </dev/null >>"$log" 2>&1 ||
		series_die "syncconfig failed (log: $log)"
	if [ "$variant" = y ]; then
		[ "$(config_line ZRAM "$config")" = CONFIG_ZRAM=y ] ||
			series_die "CONFIG_ZRAM=y config: CONFIG_ZRAM is not y"
		if grep -E '^CONFIG_ZRAM_(WRITEBACK|TRACK_ENTRY_ACTIME|MEMORY_TRACKING)=y' "$config"; then
			series_die "CONFIG_ZRAM=y config: a zram option is still on"
		fi
	else
		for sym in $(zram_symbols); do
			want=$(config_line "$sym" "$base_config")
			have=$(config_line "$sym" "$config")
			if [ -n "$want" ] && [ "$want" != "$have" ]; then
				series_die "distro config: '$want' became '${have:-nothing}'"
			fi
		done
	fi
	printf '%s\n' "$stamp" >"$objs/$variant/.zram-kconfig"
}

# Bump when prepare() changes what the prepared trees hold.
prepare_recipe=2

# Configure and modules_prepare the pristine tree once (with W=1, as every
# build here uses it), then copy it for the second variant.
prepare() {
	local key log=$logs/prepare.log

	key="$(cat "$series_dir/linux.key") $(sha256sum <"$base_config") $prepare_recipe"
	if [ "$(cat "$objs/key" 2>/dev/null)" = "$key" ]; then
		return
	fi
	series_log "preparing the kernel tree in ${objs#"$top"/} (config, modules_prepare; once)"
	rm -rf "$objs"
	mkdir -p "$objs/m"
	: >"$log"
	configure m "$log"
	kmake m W=1 modules_prepare >>"$log" 2>&1 ||
		series_die "modules_prepare failed (log: $log)"
	cp "$symvers" "$objs/m/Module.symvers"
	# the BTF base of Debian's kernel: zram.ko gets its BTF as Debian's
	# modules do (without it kbuild skips that step)
	cp "$(dirname "$symvers")/vmlinux" "$objs/m/vmlinux"
	cp -a "$objs/m" "$objs/y"
	rm -f "$objs/y/.zram-kconfig"
	configure y "$log"
	printf '%s\n' "$key" >"$objs/key"
}

# Copy the driver directory to the external module's directory, touching
# only the files that changed, so that kbuild rebuilds only what it must.
# kbuild cannot tell when a config option the objects depend on changed: an
# M= build runs in the module's directory, where the include/config/ paths
# fixdep records (relative to the kernel's output directory) name nothing.
# So the objects go whenever the prepared tree's configuration is not the
# one they were built with.
sync_ext() {
	local f src=$ktree/drivers/block/zram config

	config=$(sha256sum <"$objs/m/include/config/auto.conf")
	if [ "$(cat "$ext/.auto.conf.sha256" 2>/dev/null)" != "$config" ]; then
		rm -rf "$ext"
	fi
	mkdir -p "$ext"
	printf '%s\n' "$config" >"$ext/.auto.conf.sha256"
	for f in "$ext"/*.[chS] "$ext"/Makefile "$ext"/Kconfig; do
		[ -e "$f" ] && [ ! -e "$src/${f##*/}" ] && rm -f "$f"
	done
	for f in "$src"/*; do
		cmp -s "$f" "$ext/${f##*/}" || cp "$f" "$ext/"
	done
}

# build LOG: every build of the driver, with W=1 and no warning allowed.
build() {
	local log=$1 files

	# the directory, and each .c on its own too: a patch may add a file
	# that only a later patch's option links in
	configure m "$log"
	mapfile -t files < <(cd "$ktree" && ls drivers/block/zram/*.c)
	kmake m W=1 drivers/block/zram/ "${files[@]/%.c/.o}" >"$log.m" 2>&1 || {
		cat "$log.m" >&2
		series_die "build with CONFIG_ZRAM=m failed"
	}
	no_warnings "build with CONFIG_ZRAM=m" "$log.m"

	# the module, linked by modpost against Debian's Module.symvers
	sync_ext
	"${tmake[@]}" -C "$objs/m" W=1 M="$ext" modules >"$log.ko" 2>&1 || {
		cat "$log.ko" >&2
		series_die "zram.ko failed to build or link"
	}
	no_warnings "zram.ko" "$log.ko"
	[ -e "$ext/zram.ko" ] || series_die "no zram.ko (log: $log.ko)"

	configure y "$log"
	kmake y W=1 drivers/block/zram/ >"$log.y" 2>&1 || {
		cat "$log.y" >&2
		series_die "build with CONFIG_ZRAM=y and no options failed"
	}
	no_warnings "build with CONFIG_ZRAM=y, no options" "$log.y"
}

# check_patch PATCH LOG: prove the tree after PATCH. Prints what it built.
check_patch() {
	local patch=$1 log=$2 files added f sections

	# from the top of the tree: checkpatch seeds the identifiers it
	# accepts in CamelCase (LZ4_loadDict...) from the include/ of the git
	# tree it runs in
	(cd "$ktree" && perl scripts/checkpatch.pl --strict --quiet --no-summary \
		--ignore FILE_PATH_CHANGES "$patch") >>"$log" 2>&1 || {
		cat "$log" >&2
		series_die "checkpatch: $(basename "$patch")"
	}
	# checkpatch asks of a patch that adds files without touching
	# MAINTAINERS whether it should (FILE_PATH_CHANGES). Answer it: every
	# file added must be covered by the series' MAINTAINERS entry.
	if ! series_git diff --name-only HEAD~1 HEAD | grep -qx MAINTAINERS; then
		mapfile -t added < <(series_git diff --name-only --diff-filter=A HEAD~1 HEAD)
		for f in "${added[@]}"; do
			# the whole answer first: grep -q would stop reading at
			# the entry, and get_maintainer.pl die of SIGPIPE
			sections=$(cd "$ktree" && perl scripts/get_maintainer.pl \
				--nogit --nogit-fallback --sections -f "$f" 2>&1) ||
				series_die "get_maintainer.pl failed on $f: $sections"
			grep -qxF "$entry" <<<"$sections" ||
				series_die "$f is not covered by the MAINTAINERS entry '$entry'"
		done
	fi

	mapfile -t files < <(cd "$ktree" && ls drivers/block/zram/*.[ch])
	if (cd "$ktree" && python3 scripts/kernel-doc -none -Wall "${files[@]}") 2>&1 | tee -a "$log" | grep .; then
		series_die "kernel-doc: warnings on the driver files"
	fi

	# A patch that touches only documentation, tools/ and MAINTAINERS
	# leaves every build input as the previous patch had it.
	if series_git diff --name-only HEAD~1 HEAD |
		grep -Evq '^(Documentation/|tools/|MAINTAINERS$)'; then
		build "$log"
		echo "checkpatch, kernel-doc, builds (m and .o, zram.ko, y)"
	else
		echo "checkpatch, kernel-doc; no build input changed"
	fi
}

# no_compat PATCH...: fail if a patch carries a file of tools/build/compat
# or names one (an #include): the headers there map 7.3's APIs onto 6.12
# for the repository's module build only, and are no part of a kernel tree.
no_compat() {
	local -a pats=(-e '^(diff --git a/|[-+]{3} [ab]/)tools/build/compat/')
	local f hits

	for f in "$top"/tools/build/compat/*; do
		[ -e "$f" ] || continue
		f=${f##*/}
		pats+=(-e "${f//./\\.}")
	done
	hits=$(grep -HnE "${pats[@]}" "$@" || true)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" >&2
		series_die "a patch carries or names a file of tools/build/compat"
	fi
}

start=$(date +%s)
patches=()
for patch in "$out_dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $patch in
	*/0000-cover-letter.patch | *'*'*) ;;
	*) patches+=("$patch") ;;
	esac
done
[ "${#patches[@]}" -gt 0 ] || series_die "no patches in ${out_dir#"$top"/}: run make series"
if [ ! -e "$base_config" ] || [ ! -e "$symvers" ]; then
	series_die "no Debian kernel config: run tools/kernel/fetch.sh"
fi
no_compat "${patches[@]}"

# git am needs a committer; the patches bring their authors.
export GIT_COMMITTER_NAME=series-check GIT_COMMITTER_EMAIL=series-check@invalid
series_pristine
rm -rf "$logs"
mkdir -p "$logs"
prepare

n=0
for patch in "${patches[@]}"; do
	n=$((n + 1))
	t0=$(date +%s)
	log=$logs/$(basename "$patch" .patch).log
	series_git am -q "$patch" >"$log" 2>&1 || {
		cat "$log" >&2
		series_git am --abort || true
		series_die "git am failed: $(basename "$patch")"
	}
	done_what=$(check_patch "$patch" "$log")
	series_log "$n/${#patches[@]} ok ($(($(date +%s) - t0)) s, $done_what): $(series_git log -1 --format=%s)"
done

if ! series_git diff --quiet series HEAD --; then
	series_die "the applied series differs from the one make series committed"
fi
python3 "$top/tools/series/series.py" verify "$ktree"
series_log "series-check passed: ${#patches[@]} patches in $(($(date +%s) - start)) s"
