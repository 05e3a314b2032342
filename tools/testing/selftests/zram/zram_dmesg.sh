# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernel reports ("splats") in dmesg text and kmemleak: run_all.sh checks
# them after every test, the host side of the debug-kernel check on whole
# logs. Source it, do not run it. Busybox awk/grep are enough.

# The first line of every kind of report: WARN_ON and lockdep (WARNING:),
# BUG_ON, KASAN, sleeping in atomic context, list corruption (BUG:, or a
# plain line when it only warns), oopses, hung tasks, soft lockups, RCU
# stalls, UBSAN and kmemleak records.
ZRAM_SPLAT_RE='WARNING:|BUG:|Oops|general protection fault|kernel BUG at'
ZRAM_SPLAT_RE+='|list_(add|del) corruption|sleeping function called from invalid context'
ZRAM_SPLAT_RE+='|INFO: task .* blocked for more than|soft lockup|rcu: INFO: .*detected stall'
ZRAM_SPLAT_RE+='|UBSAN:|unreferenced object 0x'

# splat_count FILE: number of report headlines in FILE.
splat_count() {
	grep -a -c -E "$ZRAM_SPLAT_RE" "$1"
}

# splat_reports FILE [MAX]: each report of FILE with what follows it (its
# trace), from two lines before the headline to the end of the report
# (a KASAN report's closing "=====" rule, else the end of its stack or
# "---[ end trace"; at most 150 lines), at most MAX lines (default 400) in
# all.
splat_reports() {
	awk -v re="$ZRAM_SPLAT_RE" -v max="${2:-400}" '
	function out(l) {
		if (printed++ < max)
			print l
	}
	{
		line[NR % 3] = $0
	}
	$0 ~ re {
		if (!inrep) {
			out("")
			if (NR > 2)
				out(line[(NR - 2) % 3])
			if (NR > 1)
				out(line[(NR - 1) % 3])
		}
		inrep = 1
		kasan = $0 ~ /KASAN/
		n = 0
		out($0)
		next
	}
	inrep {
		out($0)
		n++
		if (n >= 150 || ($0 ~ /=====/ && n > 1) ||
		    (!kasan && $0 ~ /---\[ end trace|<\/TASK>/))
			inrep = 0
	}' "$1"
}

# dmesg_mark: the last line of dmesg now (the anchor of dmesg_since).
dmesg_mark() {
	dmesg | tail -n 1
}

# dmesg_since MARK: the dmesg lines after MARK (all of dmesg when MARK is
# gone, as after the ring buffer wrapped).
dmesg_since() {
	dmesg | awk -v mark="$1" '
		seen { print; next }
		$0 == mark { seen = 1; next }
		{ held[++n] = $0 }
		END {
			if (!seen && mark != "")
				for (i = 1; i <= n; i++)
					print held[i]
		}'
}

# The slot lock canary's reports lie between these two dmesg lines; whole
# log scans (splat_free_log) leave them out.
ZRAM_CANARY_BEGIN='zram slot lock canary: begin'
ZRAM_CANARY_END='zram slot lock canary: end'

# splat_free_log FILE: FILE without the slot lock canary's lines.
splat_free_log() {
	awk -v b="$ZRAM_CANARY_BEGIN" -v e="$ZRAM_CANARY_END" '
		index($0, b) { skip = 1 }
		!skip { print }
		index($0, e) { skip = 0 }' "$1"
}

# slot_lock_canary KO: load KO (tools/testing/slot-lock-canary) between the
# canary's marker lines; true when dmesg then holds its two reports, a
# sleeping call and recursive locking, with zram->slot_lock held in each.
slot_lock_canary() {
	local mark new loaded=0

	mark=$(dmesg_mark)
	echo "$ZRAM_CANARY_BEGIN" >/dev/kmsg
	insmod "$1" && loaded=1 && rmmod zram_slot_lock_canary
	echo "$ZRAM_CANARY_END" >/dev/kmsg
	[ "$loaded" = 1 ] || return 1
	new=$(dmesg_since "$mark")
	grep -q 'sleeping function called from invalid context' <<<"$new" &&
		grep -q 'possible recursive locking detected' <<<"$new" &&
		[ "$(grep -c 'zram->slot_lock' <<<"$new")" -ge 2 ]
}

ZRAM_KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_usable: kmemleak is built in and running.
kmemleak_usable() {
	[ -w "$ZRAM_KMEMLEAK" ] && echo scan=off >"$ZRAM_KMEMLEAK" 2>/dev/null
}

# kmemleak_scan FILE: scan, append the records of new suspected leaks to
# FILE and mark them reported (so the next scan shows only newer ones).
# Objects younger than 5 seconds are not reported by a scan, nor are those
# whose contents changed since the previous scan: an object freshly
# orphaned is first reported by the second scan, so this scans twice.
kmemleak_scan() {
	echo scan >"$ZRAM_KMEMLEAK" || return 1
	echo scan >"$ZRAM_KMEMLEAK" || return 1
	cat "$ZRAM_KMEMLEAK" >>"$1"
	echo clear >"$ZRAM_KMEMLEAK"
}

# module_range NAME: "LO HI", the addresses of module NAME's memory from
# /proc/modules (16 hex digits each, HI excluded); fails when NAME is not
# loaded. kmemleak prints the frames of an unloaded module as bare
# addresses: this range attributes them.
module_range() {
	local base size

	read -r base size < <(awk -v m="$1" '$1 == m { print $6, $2 }' /proc/modules)
	[ -n "$base" ] && [ -n "$size" ] || return 1
	printf '%016x %016x\n' "$base" "$((base + size))"
}

# kmemleak_records FILE PATTERN [LO HI]: the records of FILE whose
# backtrace has a frame matching PATTERN (an awk regex) or, given LO HI
# (module_range), a bare address in that range.
kmemleak_records() {
	awk -v re="$2" -v lo="${3:-}" -v hi="${4:-}" '
	function flush() {
		if (rec != "" && hit)
			printf "%s", rec
		rec = ""
		hit = 0
	}
	/^unreferenced object/ { flush() }
	{ rec = rec $0 "\n" }
	/^    / && $0 ~ re { hit = 1 }
	lo != "" && /^    0x[0-9a-f]+$/ {
		a = substr($1, 3) ""
		if (length(a) == 16 && a >= lo "" && a < hi "")
			hit = 1
	}
	END { flush() }' "$1"
}

# kmemleak_zram_records FILE [LO HI]: the records of FILE allocated by zram
# (a frame in the module or in a zram_* function; with LO HI, the range
# the module had before it was unloaded).
kmemleak_zram_records() {
	kmemleak_records "$1" '\[zram\]|zram_' "${2:-}" "${3:-}"
}

# kmemleak_canary KO FILE: load KO (the kernel's samples/kmemleak module,
# which leaks on purpose), unload it, scan, and append the records to FILE.
# Returns 0 when the scan reports the planted leaks (records with a frame
# in the module as it was loaded): kmemleak and this scanner see a leak.
kmemleak_canary() {
	local range i

	insmod "$1" || return 1
	range=$(module_range kmemleak_test)
	rmmod kmemleak_test || return 1
	# a conservative scan may still find a stale pointer to every leak
	for ((i = 0; i < 3; i++)); do
		sleep "${ZRAM_KMEMLEAK_WAIT:-5}"
		kmemleak_scan "$2" || return 1
		# shellcheck disable=SC2086 # range is "LO HI"
		kmemleak_records "$2" 'kmemleak_test' $range |
			grep -q '^unreferenced object' && return 0
	done
	return 1
}
