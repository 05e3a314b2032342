# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Recompression: the probe, the algorithm pair, device setup.

# ------------------------------------------------------- recompression

# zram_require_recompress: skip unless the device has recomp_algorithm
# and recompress (CONFIG_ZRAM_MULTI_COMP; Debian's stock module lacks it).
zram_require_recompress() {
	if ! zram_attr_exists recompress || ! zram_attr_exists recomp_algorithm; then
		ktap_skip_all "no recompression (CONFIG_ZRAM_MULTI_COMP)"
	fi
}

# zram_recomp_prologue: what every recompression test needs: root, the
# module, a fresh device with recompression, and an algorithm pair (see
# zram_recomp_algorithms); skips the test without them.
zram_recomp_prologue() {
	zram_require_basic
	zram_add || ktap_skip_all "cannot hot_add a zram device"
	zram_require_recompress
	zram_recomp_algorithms || ktap_skip_all "no lz4/lzo plus zstd/deflate"
}

# zram_recomp_algorithms: pick a primary algorithm without an entropy
# coder (lz4, lzo) and a secondary one with one (zstd, deflate); sets
# RECOMP_PRIMARY and RECOMP_SECONDARY, fails when comp_algorithm lacks
# either kind.
zram_recomp_algorithms() {
	local a

	RECOMP_PRIMARY=''
	RECOMP_SECONDARY=''
	for a in lz4 lzo-rle lzo; do
		if zram_has_algorithm "$a"; then
			RECOMP_PRIMARY=$a
			break
		fi
	done
	for a in zstd deflate; do
		if zram_has_algorithm "$a"; then
			RECOMP_SECONDARY=$a
			break
		fi
	done
	[ -n "$RECOMP_PRIMARY" ] && [ -n "$RECOMP_SECONDARY" ]
}

# zram_recomp_init SIZE [BDEV]: reset, BDEV as the backing device (when
# given), RECOMP_PRIMARY as the algorithm, RECOMP_SECONDARY as priority 1,
# disksize SIZE.
zram_recomp_init() {
	echo 1 >"$ZRAM_SYS/reset" || return 1
	if [ -n "${2:-}" ]; then
		echo "$2" >"$ZRAM_SYS/backing_dev" || return 1
	fi
	echo "$RECOMP_PRIMARY" >"$ZRAM_SYS/comp_algorithm" &&
		echo "algo=$RECOMP_SECONDARY" >"$ZRAM_SYS/recomp_algorithm" &&
		echo "$1" >"$ZRAM_SYS/disksize"
}

# zram_hex_file N: a file of N pages of random characters from 16 symbols
# (4 bits of entropy per byte). lz4 and lzo find almost no repeats, so
# every page is stored huge; zstd and deflate code it into about half a
# page, and never into less than 2048 bytes. Sets HEX_FILE.
zram_hex_file() {
	local f=/tmp/zram-hex.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		tr -dc 'a-p' </dev/urandom | head -c $(($1 * 4096)) >"$f" ||
			return 1
	fi
	HEX_FILE=$f
}

# zram_mm_huge: huge_pages, the 8th field of mm_stat.
zram_mm_huge() { zram_field mm_stat 8; }

# zram_mm_compr: compr_data_size, the 2nd field of mm_stat (bytes).
zram_mm_compr() { zram_field mm_stat 2; }
