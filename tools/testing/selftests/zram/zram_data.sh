# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Part of the zram selftests' library, sourced by zram_lib.sh (tests
# source zram_lib.sh, not this file).
# Test data (pages, text, files, fio), block_state, fio JSON output,
# and the io_uring verify cycles.

# ------------------------------------------------------- data

# zram_scaled N [MIN]: N divided by ZRAM_TEST_SCALE (default 1), at least
# MIN (default 1). The tests whose assertions do not depend on how much
# data they move size it with this: a slow kernel (the debug kernel
# under TCG, which looks for locking and memory faults, not volume) runs
# the same paths on less data.
zram_scaled() {
	local n=$(($1 / ${ZRAM_TEST_SCALE:-1}))

	[ "$n" -ge "${2:-1}" ] || n=${2:-1}
	echo "$n"
}

# zram_fill_pages DEV FIRST N KIND: write N 4 KiB pages from page FIRST;
# KIND is random (incompressible), text (compressible, not same-filled)
# or zero (same-filled). O_DIRECT, so nothing stays in the page cache.
zram_fill_pages() {
	local dev=$1 first=$2 n=$3 kind=$4 src

	case $kind in
	random) src=/dev/urandom ;;
	zero) src=/dev/zero ;;
	text)
		zram_text_file "$n" || return 1
		src=$TEXT_FILE
		;;
	esac
	dd if="$src" of="$dev" bs=4096 seek="$first" count="$n" \
		iflag=fullblock oflag=direct conv=notrunc 2>/dev/null
}

# zram_discard_alternate DEV N: discard every other 4 KiB page of DEV
# among its first N, from page 0 on (pages 0, 2, 4, ...): a BLKDISCARD
# ioctl each, as blkdiscard -o PAGE*4096 -l 4096 per page would issue,
# but in one fio process instead of N / 2.
zram_discard_alternate() {
	fio --name=discard --filename="$1" --ioengine=psync --rw=trim:4k \
		--bs=4k --offset=0 --size=$(($2 * 4096)) >/dev/null
}

# zram_text_file N: a file of N pages of distinct, compressible text;
# sets TEXT_FILE.
zram_text_file() {
	local f=/tmp/zram-text.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		awk -v n="$1" 'BEGIN {
			for (p = 0; p < n; p++)
				for (l = 0; l < 64; l++)
					printf "zram page %08d line %02d %s\n", p, l,
					       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		}' >"$f" || return 1
	fi
	TEXT_FILE=$f
}

# zram_words_file N: a file of N pages of words drawn from a vocabulary of
# 64 (fixed seed, skewed towards the first ones): each page compresses
# about 2:1 to 3:1 depending on the level, so levels and dictionaries
# make a difference to the compressed size. Sets WORDS_FILE.
zram_words_file() {
	local f=/tmp/zram-words.$$.$1

	if [ ! -s "$f" ]; then
		zram_defer rm -f "$f"
		awk -v n="$1" 'BEGIN {
			srand(42)
			for (i = 0; i < 64; i++) {
				w = ""
				len = 2 + int(rand() * 9)
				for (j = 0; j < len; j++)
					w = w sprintf("%c", 97 + int(rand() * 26))
				voc[i] = w
			}
			for (left = n * 4096; left > 0; left -= length(w)) {
				w = voc[int(rand() * rand() * 64)] " "
				if (length(w) > left)
					w = substr(w, 1, left)
				printf "%s", w
			}
		}' >"$f" || return 1
	fi
	WORDS_FILE=$f
}

# zram_algorithms: the algorithms comp_algorithm lists, one per line.
zram_algorithms() {
	local a list

	read -r -a list <"$ZRAM_SYS/comp_algorithm"
	for a in "${list[@]}"; do
		a=${a#[}
		echo "${a%]}"
	done
}

# zram_has_algorithm NAME: comp_algorithm lists NAME.
zram_has_algorithm() {
	zram_algorithms | grep -qx -- "$1"
}

# zram_require_algorithm_params: skip unless the attribute exists.
zram_require_algorithm_params() {
	zram_attr_exists algorithm_params ||
		ktap_skip_all "no algorithm_params attribute"
}

# zram_setup_params ALG PARAMS SIZE: reset, select ALG, write PARAMS
# (may be empty) to algorithm_params, set disksize to SIZE.
zram_setup_params() {
	echo 1 >"$ZRAM_SYS/reset" || return 1
	echo "$1" >"$ZRAM_SYS/comp_algorithm" || return 1
	if [ -n "$2" ]; then
		echo "$2" >"$ZRAM_SYS/algorithm_params" || return 1
	fi
	echo "$3" >"$ZRAM_SYS/disksize"
}

# zram_store_file FILE: write FILE (whole pages) to the start of $ZRAM_DEV
# with O_DIRECT and read it back; prints compr_data_size from mm_stat, or
# fails when the data read back differs.
zram_store_file() {
	local pages=$(($(stat -c %s "$1") / 4096))

	dd if="$1" of="$ZRAM_DEV" bs=4096 count="$pages" oflag=direct \
		conv=notrunc 2>/dev/null || return 1
	if [ "$(zram_read_all "$ZRAM_DEV" "$pages")" != \
		"$(head -c $((pages * 4096)) "$1" | sha256sum | cut -d' ' -f1)" ]; then
		echo "# $1 read back differs" >&2
		return 1
	fi
	zram_field mm_stat 2
}

# zram_fill_fio DEV FIRST N: write N 4 KiB pages from page FIRST with the
# benchmark's data: fio's 50% compressible buffers (about 2 KiB each with
# lz4), a fixed seed, O_DIRECT.
zram_fill_fio() {
	fio --name=fill --filename="$1" --rw=write --bs=4k --direct=1 \
		--ioengine=psync --offset=$(($2 * 4096)) --size=$(($3 * 4096)) \
		--randseed=20261129 --buffer_compress_percentage=50 \
		--refill_buffers --buffer_compress_chunk=4k --eta=never \
		--output-format=terse >/dev/null 2>&1
}

# zram_read_sum DEV PAGES [DD_OPERAND...]: the sha256 of the device (or of
# its first PAGES pages, when PAGES is not empty) read with dd and the
# operands given.
zram_read_sum() {
	local dev=$1 pages=$2 opts=(bs=64k)

	shift 2
	if [ -n "$pages" ]; then
		if [ $((pages % 16)) -eq 0 ]; then
			opts=(bs=64k count=$((pages / 16)))
		else
			opts=(bs=4096 count="$pages")
		fi
	fi
	dd if="$dev" "${opts[@]}" "$@" 2>/dev/null | sha256sum | cut -d' ' -f1
}

# zram_read_all DEV [PAGES]: read the device (or its first PAGES pages)
# with O_DIRECT; prints the sha256.
zram_read_all() {
	zram_read_sum "$1" "${2:-}" iflag=direct
}

# zram_read_buffered DEV [PAGES]: the same through the page cache.
zram_read_buffered() {
	zram_read_sum "$1" "${2:-}"
}

# zram_block_state_count PATTERN: slots in debugfs block_state whose flag
# column matches the awk regex PATTERN.
zram_block_state_file() {
	echo "/sys/kernel/debug/zram/zram$ZRAM_ID/block_state"
}

zram_block_state_count() {
	awk -v re="$1" '$3 ~ re { n++ } END { print n + 0 }' "$(zram_block_state_file)"
}

# zram_slot_state N: the block_state line of slot N (access time, flags);
# empty without block_state.
zram_slot_state() {
	local f

	f=$(zram_block_state_file)
	[ -r "$f" ] && awk -v n="$1" '$1 == n' "$f"
}

# zram_block_state_range FIRST LAST PATTERN: slots FIRST..LAST whose flag
# column matches the awk regex PATTERN.
zram_block_state_range() {
	awk -v a="$1" -v b="$2" -v re="$3" \
		'$1 >= a && $1 <= b && $3 ~ re { n++ } END { print n + 0 }' \
		"$(zram_block_state_file)"
}

# zram_require_block_state: skip unless debugfs has the device's
# block_state (CONFIG_ZRAM_MEMORY_TRACKING).
zram_require_block_state() {
	[ -r "$(zram_block_state_file)" ] ||
		ktap_skip_all "no debugfs block_state (CONFIG_ZRAM_MEMORY_TRACKING)"
}

zram_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# zram_fio_json FILE DIR KEY: a value from fio's JSON output (one job or
# group_reporting). DIR is job (top-level fields), read or write; KEY is a
# field of that level (error, short_ios, total_ios...) or SECT_FIELD with
# SECT slat/clat/lat (slat_mean, clat_p99 for the 99th percentile).
zram_fio_json() {
	awk -v want="$2.$3" '
	{
		match($0, /^ */)
		ind = RLENGTH
		line = substr($0, ind + 1)
		if (line !~ /^"[^"]*" : /)
			next
		k = line
		sub(/^"/, "", k)
		sub(/".*/, "", k)
		v = line
		sub(/^"[^"]*" : /, "", v)
		sub(/,$/, "", v)
	}
	ind == 6 {
		s = ""
		d = "job"
		if (v == "{" && k ~ /^(read|write|trim|sync)$/)
			d = k
		else
			val["job." k] = v
	}
	ind == 8 {
		s = ""
		if (v == "{" && k ~ /_ns$/)
			s = substr(k, 1, length(k) - 3)
		else
			val[d "." k] = v
	}
	ind == 10 && s != "" && v != "{" { val[d "." s "_" k] = v }
	ind == 12 && s != "" && k == "99.000000" { val[d "." s "_p99"] = v }
	END { print val[want] }' "$1"
}

# zram_fio_pattern DIR PATTERN [FIO_OPTION...]: fio writes the zram device
# with O_DIRECT pwritev2 (pvsync2), every byte from the 3-byte PATTERN
# (compressible, not same-filled); options given override (--bs, --size,
# --rw...). fio runs in DIR, its JSON output goes to DIR/fio.json, its
# messages to DIR/fio.err. Returns fio's status.
zram_fio_pattern() {
	local dir=$1 pattern=$2

	shift 2
	(cd "$dir" && fio --name=pattern --filename="$ZRAM_DEV" \
		--ioengine=pvsync2 --direct=1 --rw=write \
		--buffer_pattern="$pattern" --output-format=json \
		--output="$dir/fio.json" "$@" >"$dir/fio.err" 2>&1)
}

# zram_page_patterns DEV PAGES: one letter for each of the first PAGES
# pages of DEV, read with O_DIRECT: A when all its bytes come from the
# pattern 0xa1a2a3, B from 0xb1b2b3, "?" otherwise.
zram_page_patterns() {
	dd if="$1" bs=4096 count="$2" iflag=direct 2>/dev/null |
		od -An -tx1 -v -w4096 | awk '
		{
			a = $0
			b = $0
			gsub(/ a[123]/, "", a)
			gsub(/ b[123]/, "", b)
			printf "%s", a == "" ? "A" : b == "" ? "B" : "?"
		}
		END { print "" }'
}

# zram_check_input_rows PREFIX ROW...: one KTAP line per "attr|input|errno"
# row: writing input to the attribute gives that errno (OK: accepted) and
# leaves zram_state_into's state unchanged. PREFIX starts each description.
zram_check_input_rows() {
	local prefix=$1 row attr input want desc before after rc

	shift
	for row in "$@"; do
		IFS='|' read -r attr input want <<<"$row"
		desc="$prefix$attr '${input:0:24}' -> $want, state unchanged"
		if ! zram_attr_exists "$attr"; then
			ktap_skip "$desc" "no $attr attribute"
			continue
		fi
		zram_state_into before
		expect_errno "$want" "$ZRAM_SYS/$attr" "$input"
		rc=$?
		zram_state_into after
		if [ "$rc" = 0 ] && [ "$after" = "$before" ]; then
			ktap_ok "$desc"
		else
			diff <(printf '%s' "$before") <(printf '%s' "$after") |
				sed 's/^/# /'
			ktap_not_ok "$desc"
		fi
	done
}

# ------------------------------------------- io_uring verify cycles

# zram_uring_cycle DIR DEPTH SIZE WB: one cycle of the io_uring job that
# io_uring users run: random O_DIRECT writes of 4-64 KiB (half
# compressible, crc32c headers) over SIZE bytes of $ZRAM_DEV, then
# everything marked idle and written back to the backing device, caches
# dropped, and the same job again with --verify_only, which reads every
# written block back and checks it. WB=1 keeps idle writebacks running in
# a loop during both fio runs. fio's output goes to DIR/{write,verify}.err.
# Sets UR_RC (0 when both fio runs exited 0), UR_EAGAIN (1 when an EAGAIN
# reached fio) and UR_WB (pages written back during the cycle).
zram_uring_cycle() {
	local dir=$1 depth=$2 size=$3 wb=$4 stop=$1/stop wb_pid='' before
	local job=(--name=uring --filename="$ZRAM_DEV" --ioengine=io_uring
		--direct=1 --rw=randwrite --bsrange=4k-64k --iodepth="$depth"
		--size="$size" --verify=crc32c --buffer_compress_percentage=50
		--refill_buffers --randrepeat=1 --verify_state_save=0)

	before=$(bd_writes)
	rm -f "$stop"
	if [ "$wb" = 1 ]; then
		while [ ! -e "$stop" ]; do
			echo all >"$ZRAM_SYS/idle" 2>/dev/null
			echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
			sleep 0.1
		done &
		wb_pid=$!
	fi
	UR_RC=0
	(cd "$dir" && fio "${job[@]}" --do_verify=0) >"$dir/write.err" 2>&1 ||
		UR_RC=1
	echo all >"$ZRAM_SYS/idle"
	echo idle >"$ZRAM_SYS/writeback" 2>/dev/null
	zram_drop_caches
	(cd "$dir" && fio "${job[@]}" --verify_only) >"$dir/verify.err" 2>&1 ||
		UR_RC=1
	if [ -n "$wb_pid" ]; then
		touch "$stop"
		wait "$wb_pid"
	fi
	UR_EAGAIN=0
	if grep -q -E 'Resource temporarily unavailable|err=11|error=11' \
		"$dir/write.err" "$dir/verify.err"; then
		UR_EAGAIN=1
	fi
	UR_WB=$(($(bd_writes) - before))
	if [ "$UR_RC" != 0 ]; then
		grep -h -E 'error|err=|verify' "$dir/write.err" "$dir/verify.err" |
			head -5 | sed 's/^/# fio: /'
	fi
}

# zram_uring_cycles BACKING [SIZE]: the cycles of the nowait verify tests
# over backing device BACKING (already created), SIZE bytes each (fio
# syntax, default $ZRAM_URING_SIZE, else 48 MiB scaled by zram_scaled):
# iodepth 16 twice, 1 and 32, then 16 with writebacks running meanwhile.
# Two KTAP lines per cycle: fio saw no error and every block verified; no
# EAGAIN reached fio. The device is 256 MiB, zram_scaled like the data
# (at least 64 MiB): every idle marking and writeback walks all its slots.
zram_uring_cycles() {
	local size=${2:-${ZRAM_URING_SIZE:-$(zram_scaled 48)M}}
	local dir spec depth wb n=0

	dir=$(mktemp -d /tmp/zram-uring.XXXXXX) || ktap_bail "no /tmp"
	zram_defer rm -rf "$dir"
	echo "$1" >"$ZRAM_SYS/backing_dev" || ktap_bail "cannot set backing_dev"
	zram_init "$(zram_scaled 256 64)M" || ktap_bail "cannot set disksize"
	for spec in 16:0 16:0 1:0 32:0 16:1; do
		depth=${spec%:*}
		wb=${spec#*:}
		n=$((n + 1))
		zram_uring_cycle "$dir" "$depth" "$size" "$wb"
		ktap_info "cycle $n (iodepth $depth, writeback loop $wb):" \
			"$UR_WB pages written back"
		ktap_eq "cycle $n: fio ran without error, every block verified" \
			"$UR_RC" 0
		ktap_eq "cycle $n: no EAGAIN reached the application" \
			"$UR_EAGAIN" 0
	done
}
