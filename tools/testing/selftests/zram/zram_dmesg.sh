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

# kmemleak_zram_records FILE: the records of FILE whose backtrace has a zram
# function (the module's or a zram_* one).
kmemleak_zram_records() {
	awk '
	/^unreferenced object/ { if (rec != "" && hit) printf "%s", rec; rec = ""; hit = 0 }
	{ rec = rec $0 "\n" }
	/\[zram\]|zram_/ { hit = 1 }
	END { if (rec != "" && hit) printf "%s", rec }' "$1"
}
