#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad algorithm_params writes get 7.3's errno, in 7.3's order (parse
# errors, then EBUSY once initialized, then priority= and algo=, then the
# dict= file: its read's errno, EINVAL for an empty or non-regular one),
# and leave the device state unchanged; algo= with priority= must name
# the algorithm at that priority. Parameters an algorithm refuses are
# accepted by the write and refused at init, as 7.3's backends do:
# disksize fails with EINVAL for a level out of range, a deflate.winbits
# out of range or an lz4 dictionary too short to load, with EOPNOTSUPP
# for a level or dictionary given to an algorithm without them; the
# device stays uninitialized and comp_algorithm, the secondary algorithms
# and the parameters are back to the defaults, so disksize then works.
# Writing comp_algorithm or recomp_algorithm, even the same algorithm,
# resets that priority's parameters. A reset forgets the parameters:
# after deflate's refused level and a reset, text compresses as on a new
# device with deflate's default level.

. "$(dirname "$0")/zram_lib.sh"

zram_require_basic
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_algorithm_params

empty=$(mktemp /tmp/zram-empty.XXXXXX)
zram_defer rm -f "$empty"
dir=$(mktemp -d /tmp/zram-dir.XXXXXX)
zram_defer rmdir "$dir"
# shorter than the machine word lz4 hashes: LZ4_loadDict() loads nothing
short=$(mktemp /tmp/zram-short.XXXXXX)
zram_defer rm -f "$short"
printf 'abcd' >"$short"
nofile=/nonexistent/zram-dict
default=$(cat "$ZRAM_SYS/comp_algorithm")
read -r -a list <<<"$default"
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
	"algorithm_params|deflate.winbits=abc|EINVAL"
	"algorithm_params|deflate.winbits=2147483648|ERANGE"
	"algorithm_params|dict|EINVAL"
	"algorithm_params|dict=|EINVAL"
	"algorithm_params|dict=$nofile|ENOENT"
	"algorithm_params|dict=$empty|EINVAL"
	"algorithm_params|dict=$dir|EINVAL"
	"algorithm_params|algo=$cur dict=$empty|EINVAL"
	"algorithm_params|dict=$nofile level=abc|EINVAL"
	"algorithm_params|priority=$maxprio dict=$nofile|EINVAL"
	"algorithm_params|algo=nosuchalg dict=$nofile|EINVAL"
	"algorithm_params|algo=$cur priority=0 dict=$nofile|ENOENT"
	"algorithm_params|algo=$cur priority=0 level=1000000|OK"
	"algorithm_params|algo=$cur level=1000000|OK"
)
[ -n "$other" ] && rows+=("algorithm_params|algo=$other level=1|EINVAL"
	"algorithm_params|algo=$other priority=0|EINVAL")
# nothing at priority 1 yet
[ "$maxprio" -gt 1 ] && rows+=("algorithm_params|algo=$cur priority=1|EINVAL")

# the same on an initialized device: EBUSY unless it does not parse
busy_rows=(
	"algorithm_params|level=abc|EINVAL"
	"algorithm_params|level=1|EBUSY"
	"algorithm_params|priority=$maxprio|EBUSY"
	"algorithm_params|algo=nosuchalg|EBUSY"
	"algorithm_params|dict=$nofile|EBUSY"
)

# algorithm | parameters | disksize errno
init_rows=()
init_row() {
	zram_has_algorithm "$1" && init_rows+=("$1|$2|$3")
	return 0
}
init_row deflate "level=10" EINVAL
init_row deflate "level=-2" EINVAL
init_row deflate "deflate.winbits=8" EINVAL
init_row deflate "deflate.winbits=-16" EINVAL
init_row deflate "dict=$short" EOPNOTSUPP
init_row zstd "level=1000" EINVAL
init_row lz4hc "level=17" EINVAL
init_row lz4hc "level=0" EINVAL
init_row lz4 "level=0" EINVAL
init_row lz4 "dict=$short" EINVAL
init_row lzo "level=1" EOPNOTSUPP
init_row lzo-rle "dict=$short" EOPNOTSUPP
init_row 842 "level=1" EOPNOTSUPP

# an algorithm and a level it refuses at init
bad=
for b in "lz4 level=0" "zstd level=1000" "lz4hc level=0" "deflate level=10"; do
	zram_has_algorithm "${b%% *}" && { bad=$b; break; }
done
resets=0
[ -n "$bad" ] && resets=1
[ -n "$bad" ] && zram_attr_exists recomp_algorithm && resets=3

forget=0
zram_has_algorithm deflate && forget=3
ktap_plan $((${#rows[@]} + ${#busy_rows[@]} + 2 * ${#init_rows[@]} + resets +
	forget))

zram_check_input_rows "" "${rows[@]}"
echo 1 >"$ZRAM_SYS/reset"
zram_init 16M || ktap_bail "cannot set disksize"
zram_check_input_rows "initialized: " "${busy_rows[@]}"

# back_to_default: comp_algorithm reads as on a new device, no secondary
# algorithm is set, and disksize works with what is left
back_to_default() {
	if [ "$(cat "$ZRAM_SYS/comp_algorithm")" != "$default" ]; then
		echo "# comp_algorithm: $(cat "$ZRAM_SYS/comp_algorithm")"
		return 1
	fi
	if zram_attr_exists recomp_algorithm &&
		[ -n "$(cat "$ZRAM_SYS/recomp_algorithm")" ]; then
		echo "# recomp_algorithm: $(cat "$ZRAM_SYS/recomp_algorithm")"
		return 1
	fi
	expect_errno OK "$ZRAM_SYS/disksize" 16M
}

for r in "${init_rows[@]}"; do
	IFS='|' read -r alg params want <<<"$r"
	desc="$alg ${params//$short/SHORT}"
	echo 1 >"$ZRAM_SYS/reset"
	echo "$alg" >"$ZRAM_SYS/comp_algorithm"
	if zram_attr_exists recomp_algorithm; then
		echo "algo=$alg" >"$ZRAM_SYS/recomp_algorithm"
	fi
	if ! echo "algo=$alg $params" >"$ZRAM_SYS/algorithm_params"; then
		ktap_not_ok "$desc: disksize -> $want (write refused)"
		ktap_not_ok "$desc: then the defaults are back (write refused)"
		continue
	fi
	if expect_errno "$want" "$ZRAM_SYS/disksize" 16M &&
		[ "$(cat "$ZRAM_SYS/initstate")" = 0 ]; then
		ktap_ok "$desc: disksize -> $want, still uninitialized"
	else
		ktap_not_ok "$desc: disksize -> $want, still uninitialized"
	fi
	if back_to_default; then
		ktap_ok "$desc: then the defaults are back, disksize works"
	else
		ktap_not_ok "$desc: then the defaults are back, disksize works"
	fi
done

# writing an algorithm resets its priority's parameters, even the same one
if [ "$resets" -gt 0 ]; then
	read -r alg params <<<"$bad"
	echo 1 >"$ZRAM_SYS/reset"
	echo "$alg" >"$ZRAM_SYS/comp_algorithm"
	echo "algo=$alg $params" >"$ZRAM_SYS/algorithm_params"
	echo "$alg" >"$ZRAM_SYS/comp_algorithm"
	ktap_check "$alg $params, then comp_algorithm $alg again: disksize works" \
		expect_errno OK "$ZRAM_SYS/disksize" 16M
fi
if [ "$resets" -gt 1 ]; then
	echo 1 >"$ZRAM_SYS/reset"
	echo "algo=$alg priority=2" >"$ZRAM_SYS/recomp_algorithm"
	echo "priority=2 $params" >"$ZRAM_SYS/algorithm_params"
	ktap_check "priority 2 $alg $params: disksize -> EINVAL" \
		expect_errno EINVAL "$ZRAM_SYS/disksize" 16M
	echo "algo=$alg priority=2" >"$ZRAM_SYS/recomp_algorithm"
	echo "priority=2 $params" >"$ZRAM_SYS/algorithm_params"
	echo "algo=$alg priority=2" >"$ZRAM_SYS/recomp_algorithm"
	ktap_check "... then recomp_algorithm $alg again: disksize works" \
		expect_errno OK "$ZRAM_SYS/disksize" 16M
fi

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
