#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Upstream's own zram selftests, as the kernel ships them: zram01.sh (ext4
# on a 2 MB device, filled with zeros, compression ratio) and zram02.sh
# (mkswap, swapon, swapoff), with their zram_lib.sh. They are not copied
# into this repository: they are taken at run time from the kernel source
# tree the harness caches (tools/kernel/fetch.sh extracts Debian's
# linux-source-7.3 into .cache/linux-source), or from ZRAM_UPSTREAM_DIR
# (which the harness sets when it runs an installed copy of this suite).
#
# The upstream scripts exit 0 even when they fail: they print "FAIL ..."
# lines and end with "<TCID> : [FAIL]". A test fails here when it exits
# non-zero (4: skipped), prints a FAIL line, or does not end with [PASS].
# One FAIL line is not held against the driver: zram01.sh asks for lzo,
# and a module that does not list lzo in comp_algorithm (Debian's stock
# zram.ko has no LZO backend) rightly refuses it; that line is reported
# and skipped when the algorithm is missing from the "supported algs"
# the script printed. They run in a scratch copy, since they write into
# their directory.

. "$(dirname "$0")/zram_lib.sh"

root=$(cd "$(dirname "$0")/../../../.." && pwd)
upstream=${ZRAM_UPSTREAM_DIR:-$root/.cache/linux-source/tools/testing/selftests/zram}
tests=(zram01.sh zram02.sh)
TIMEOUT=${ZRAM_UPSTREAM_TIMEOUT:-300}

zram_require_basic
for t in "${tests[@]}" zram_lib.sh; do
	[ -e "$upstream/$t" ] ||
		ktap_skip_all "upstream's $t not found in $upstream (set ZRAM_UPSTREAM_DIR)"
done
zram_require_cmd mkswap swapon swapoff mkfs.ext4 dd awk seq timeout
zram_swap_require_alone
# zram01.sh mounts without -t: with busybox mount that only works once
# ext4 is loaded (its config needs EXT4), and if the mount fails it fills
# the scratch directory instead, which never ends; hence the timeout
modprobe ext4 >/dev/null 2>&1
grep -qw ext4 /proc/filesystems || ktap_skip_all "no ext4 file system"

scratch=$(mktemp -d /tmp/zram-upstream.XXXXXX) || ktap_skip_all "mktemp failed"
zram_defer rm -rf "$scratch"
cp "$upstream/zram_lib.sh" "${tests[@]/#/$upstream/}" "$scratch/" ||
	ktap_skip_all "cannot copy the upstream tests"
ktap_info "upstream tests from $upstream"

ktap_plan "${#tests[@]}"
for t in "${tests[@]}"; do
	out=$(cd "$scratch" && timeout "$TIMEOUT" bash "./$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/#   /'
	verdict=$(tail -n 1 <<<"$out")
	fails=$(grep -c '^FAIL' <<<"$out")
	algs=" $(sed -n 's/^supported algs: //p' <<<"$out" | tr -d '[]') "
	while read -r alg; do
		[ -n "$alg" ] || continue
		case $algs in
		*" $alg "*) ;;
		*)
			ktap_info "$t: not counted: FAIL setting '$alg'," \
				"which this module does not offer ($algs)"
			fails=$((fails - 1))
			;;
		esac
	done < <(sed -n \
		"s|^FAIL can't set '\([^']*\)' to /sys/block/zram[0-9]*/comp_algorithm\$|\1|p" \
		<<<"$out")
	if [ "$rc" -eq "$KSFT_SKIP" ]; then
		ktap_skip "upstream $t" "it skipped"
	elif [ "$rc" -eq 0 ] && [ "$fails" -eq 0 ] &&
		[ "$verdict" = "${t%.sh} : [PASS]" ]; then
		ktap_ok "upstream $t"
	else
		ktap_info "$t: exit $rc, $fails FAIL lines, last line '$verdict'"
		ktap_not_ok "upstream $t"
	fi
done
ktap_finish
