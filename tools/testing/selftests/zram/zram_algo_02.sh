#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad algorithm_params writes: an algo= no priority uses, a priority out
# of range, malformed numbers, a missing, empty or non-regular dictionary
# file get upstream's errno and leave the device state unchanged. A level
# the library does not take is accepted by the write (upstream checks it
# at init): deflate's then makes disksize fail with EINVAL, the device
# stays uninitialized and initializes once the level is fixed; zstd's and
# lz4hc's are clamped by the library and the data reads back equal. A
# reset forgets the parameters: after deflate's refused level and a
# reset, disksize works and text compresses as on a new device, which
# uses deflate's default level (under half the size).

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params

empty=$(mktemp /tmp/zram-empty.XXXXXX)
zram_defer rm -f "$empty"
dir=$(mktemp -d /tmp/zram-dir.XXXXXX)
zram_defer rmdir "$dir"
read -r -a list <"$ZRAM_SYS/comp_algorithm"
cur=
other=
for a in "${list[@]}"; do
	case $a in \[*) cur=${a//[\[\]]/} ;; *) other=$a ;; esac
done
# one past the last priority: 1 without recompression, 4 with
maxprio=1
zram_attr_exists recomp_algorithm && maxprio=4

# attribute | input | errno
rows=(
	"algorithm_params|algo=nosuchalg|EINVAL"
	"algorithm_params|algo=nosuchalg level=1|EINVAL"
	"algorithm_params|priority=-1|EINVAL"
	"algorithm_params|priority=$maxprio|EINVAL"
	"algorithm_params|priority=$maxprio level=1|EINVAL"
	"algorithm_params|priority=abc|EINVAL"
	"algorithm_params|priority=4294967296|ERANGE"
	"algorithm_params|level=|EINVAL"
	"algorithm_params|foo=|EINVAL"
	"algorithm_params|level=1x|EINVAL"
	"algorithm_params|level=-2147483649|ERANGE"
	"algorithm_params|dict|EINVAL"
	"algorithm_params|dict=|EINVAL"
	"algorithm_params|dict=/nonexistent/zram-dict|EINVAL"
	"algorithm_params|dict=$empty|EINVAL"
	"algorithm_params|dict=$dir|EINVAL"
	"algorithm_params|algo=$cur dict=$empty|EINVAL"
	"algorithm_params|algo=$cur level=1000000|OK"
)
[ -n "$other" ] && rows+=("algorithm_params|algo=$other level=1|EINVAL")

init_cases=()
zram_has_algorithm deflate && init_cases+=("deflate 10" "deflate -2")
clamp_cases=()
zram_has_algorithm zstd && clamp_cases+=("zstd 1000")
zram_has_algorithm lz4hc && clamp_cases+=("lz4hc 100")

forget=0
zram_has_algorithm deflate && forget=3
ktap_plan $((${#rows[@]} + 3 * ${#init_cases[@]} + ${#clamp_cases[@]} + forget))

zram_check_input_rows "" "${rows[@]}"

# clamped ALG LEVEL: initializes with that level, 16 pages read back equal
clamped() {
	zram_setup_params "$1" "algo=$1 level=$2" 16M &&
		zram_fill_pages "$ZRAM_DEV" 0 16 text &&
		[ "$(zram_read_all "$ZRAM_DEV" 16)" = \
			"$(sha256sum <"$TEXT_FILE" | cut -d' ' -f1)" ]
}

for c in "${init_cases[@]}"; do
	read -r alg level <<<"$c"
	echo 1 >"$ZRAM_SYS/reset"
	echo "$alg" >"$ZRAM_SYS/comp_algorithm"
	echo "algo=$alg level=$level" >"$ZRAM_SYS/algorithm_params"
	ktap_check "$alg level=$level: disksize -> EINVAL" \
		expect_errno EINVAL "$ZRAM_SYS/disksize" 16M
	ktap_eq "$alg level=$level: still uninitialized" \
		"$(cat "$ZRAM_SYS/initstate")" 0
	# 6.12 also drops the algorithm and parameters (comp_algorithm
	# back to the default); either way a valid level makes it work.
	ktap_info "comp_algorithm after the failed init:" \
		"$(cat "$ZRAM_SYS/comp_algorithm")"
	echo "level=1" >"$ZRAM_SYS/algorithm_params"
	ktap_check "$alg level=$level: initializes after level=1" \
		zram_init 16M
done

for c in "${clamp_cases[@]}"; do
	read -r alg level <<<"$c"
	desc="$alg level=$level: initializes (clamped), data intact"
	if clamped "$alg" "$level"; then
		ktap_ok "$desc"
	else
		ktap_not_ok "$desc"
	fi
done

# deflate_compr: reset, deflate with the parameters set, disksize, 16 text
# pages; their compr_data_size, or "no init" when disksize fails.
deflate_compr() {
	echo 1 >"$ZRAM_SYS/reset"
	echo deflate >"$ZRAM_SYS/comp_algorithm"
	zram_init 16M 2>/dev/null || { echo "no init"; return; }
	zram_fill_pages "$ZRAM_DEV" 0 16 text
	zram_field mm_stat 2
}

# reset forgets algorithm_params: a level deflate refuses, then a reset;
# deflate then works as on a device that never had parameters
if [ "$forget" -gt 0 ]; then
	zram_add || ktap_bail "cannot hot_add a second zram device"
	fresh=$(deflate_compr)
	ktap_info "deflate, default level, new device: 16 text pages in $fresh bytes"
	ktap_check "a new device's deflate compresses text to under half" \
		test "$fresh" -lt $((16 * 4096 / 2))
	echo 1 >"$ZRAM_SYS/reset"
	echo deflate >"$ZRAM_SYS/comp_algorithm"
	echo "algo=deflate level=10" >"$ZRAM_SYS/algorithm_params"
	echo 1 >"$ZRAM_SYS/reset"
	echo deflate >"$ZRAM_SYS/comp_algorithm"
	ktap_check "deflate level=10 then reset: disksize works" \
		expect_errno OK "$ZRAM_SYS/disksize" 16M
	ktap_eq "deflate after the reset: the new device's size again" \
		"$(deflate_compr)" "$fresh"
fi

ktap_finish
