#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# systemd's zram-generator (Debian's systemd-zram-generator) configures a
# zram device as swap from a config with zram-size, compression-algorithm,
# writeback-device and swap-priority.
#
# What runs for real: the generator itself (in its test mode,
# ZRAM_GENERATOR_ROOT: it reads the config below that root and writes the
# units, but does not load the module or hot_add devices, so it does not
# touch other devices; the test hot_adds its own), then the command line
# of systemd-zram-setup@.service's ExecStart (zram-generator
# --setup-device, which writes comp_algorithm, backing_dev, disksize and
# calls systemd-makefs, which runs mkswap), and at the end its ExecStop
# (--reset-device).
# What is replayed: the generated dev-zramN.swap unit is started by
# systemd (PID 1), which is not running here, so its swapon is run by the
# test from the unit's What=, Priority= and Options= the way systemd's
# swap units call it (swapon --fixpgsz [-p PRIO] [--discard[=POLICY]]
# [-o OTHER_OPTIONS] WHAT); its stop is replayed as swapoff.
#
# Expected: the sysfs state the config asked for, a swap signature, swap
# on with the asked priority, pages of a workload swapped out to it and
# written back to the configured device, and a reset device at the end.
# Skips when the zram-generator binary is absent (ZRAM_GENERATOR names
# another one).

. "$(dirname "$0")/zram_lib.sh"

GEN=${ZRAM_GENERATOR:-/lib/systemd/system-generators/zram-generator}
UNIT=${ZRAM_GENERATOR_UNIT:-/lib/systemd/system/systemd-zram-setup@.service}
SIZE_MB=64
ALG=zstd
PRIO=42
FILL_MB=32
LIMIT_MB=16

zram_require_basic
[ -x "$GEN" ] || ktap_skip_all "zram-generator not installed ($GEN)"
zram_require_nullb
zram_require_cmd swapon swapoff
zram_swap_require_alone
zram_require_memcg || ktap_skip_all "no cgroup v2 memory controller"
zram_add || ktap_skip_all "cannot hot_add a zram device"
zram_require_writeback
grep -qw "$ALG" "$ZRAM_SYS/comp_algorithm" ||
	ktap_skip_all "no $ALG in comp_algorithm: $(cat "$ZRAM_SYS/comp_algorithm")"
zram_nullb $((SIZE_MB * 2)) irqmode=2 completion_nsec=20000 ||
	ktap_skip_all "cannot create null_blk"
zram_zswap_off
name=zram$ZRAM_ID

root=$(mktemp -d /tmp/zram-generator.XXXXXX) || ktap_skip_all "mktemp failed"
zram_defer rm -rf "$root"
mkdir -p "$root/etc/systemd" "$root/proc" "$root/units"
cp /proc/meminfo "$root/proc/meminfo"
cat >"$root/etc/systemd/zram-generator.conf" <<EOF
[$name]
zram-size = $SIZE_MB
compression-algorithm = $ALG
writeback-device = $NULLB
swap-priority = $PRIO
EOF

# unit_value FILE KEY: the value of KEY= in a unit file (last one wins)
unit_value() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# unit_command KEY: the unit's ExecStart=/ExecStop= for our device, split
# into the array CMD (the unit quotes %i in single quotes)
unit_command() {
	local line

	line=$(unit_value "$UNIT" "$1")
	if [ -z "$line" ]; then
		line="$GEN --setup-device '%i'"
		[ "$1" = ExecStop ] && line="$GEN --reset-device '%i'"
	fi
	line=${line//%i/$name}
	line=${line//\'/}
	read -r -a CMD <<<"$line"
}

ktap_plan 10

# 1. the generator, as systemd runs it at boot (test mode, see above)
out=$(ZRAM_GENERATOR_ROOT=$root "$GEN" "$root/units" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/#   /'
swap_unit=$root/units/dev-$name.swap
if [ "$rc" -eq 0 ] && [ -e "$swap_unit" ]; then
	ktap_ok "the generator wrote dev-$name.swap"
else
	ktap_not_ok "the generator wrote dev-$name.swap (exit $rc)"
fi
sed 's/^/#   /' "$swap_unit" 2>/dev/null
after=$(grep -c "^After=.*systemd-zram-setup@$name.service" "$swap_unit" 2>/dev/null)
ktap_eq "the swap unit: What=, Priority=, after systemd-zram-setup@$name.service" \
	"$(unit_value "$swap_unit" What) $(unit_value "$swap_unit" Priority) $after" \
	"/dev/$name $PRIO 1"

# 2. systemd-zram-setup@zramN.service's ExecStart, for real
unit_command ExecStart
ktap_info "ExecStart: ${CMD[*]}"
out=$(ZRAM_GENERATOR_ROOT=$root "${CMD[@]}" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/#   /'
ktap_eq "systemd-zram-setup@$name.service ExecStart (--setup-device) exit status" "$rc" 0
ktap_eq "comp_algorithm: [$ALG] selected" \
	"$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$ZRAM_SYS/comp_algorithm")" "$ALG"
ktap_eq "backing_dev, disksize, initstate" \
	"$(cat "$ZRAM_SYS/backing_dev") $(cat "$ZRAM_SYS/disksize") $(cat "$ZRAM_SYS/initstate")" \
	"$NULLB $((SIZE_MB << 20)) 1"
ktap_eq "systemd-makefs made swap (SWAPSPACE2 signature)" \
	"$(dd if="/dev/$name" bs=1 skip=4086 count=10 2>/dev/null)" "SWAPSPACE2"

# 3. dev-zramN.swap, replayed
swapon_args=(--fixpgsz)
prio=$(unit_value "$swap_unit" Priority)
[ -n "$prio" ] && swapon_args+=(-p "$prio")
other=()
IFS=, read -r -a opts <<<"$(unit_value "$swap_unit" Options)"
for o in "${opts[@]}"; do
	case $o in
	discard | discard=*) swapon_args+=("--$o") ;;
	*) other+=("$o") ;;
	esac
done
[ "${#other[@]}" -gt 0 ] && swapon_args+=(-o "$(IFS=,; echo "${other[*]}")")
ktap_info "replaying the swap unit: swapon ${swapon_args[*]} /dev/$name"
if zram_quiet swapon "${swapon_args[@]}" "/dev/$name"; then
	zram_defer swapoff "/dev/$name"
fi
ktap_eq "swap on /dev/$name with priority $PRIO" \
	"$(awk -v d="/dev/$name" '$1 == d { print $1, $5 }' /proc/swaps)" "/dev/$name $PRIO"
grep -q "^/dev/$name " /proc/swaps || ktap_bail "no swap on /dev/$name"

# 4. used: a workload swapped out there, written back to the configured
# device, read back intact
zram_memcg "$LIMIT_MB" || ktap_bail "cannot create a memory cgroup"
zram_memfill_start "$MEMCG" "$FILL_MB"
echo all >"$ZRAM_SYS/idle" && echo idle >"$ZRAM_SYS/writeback"
ktap_info "mm_stat $(cat "$ZRAM_SYS/mm_stat"); bd_stat $(bd_stat)"
if [ "$(bd_count)" -ge $(((FILL_MB - LIMIT_MB) * 256 / 2)) ]; then
	ktap_ok "swapped pages written back to the configured writeback-device"
else
	ktap_not_ok "swapped pages written back to the configured writeback-device"
fi
zram_memfill_cmd verify
ktap_info "checksum after the fill $MEMFILL_FILL_SUM, after the re-read $MEMFILL_SUM"
ktap_eq "the workload reads every page back intact, the fill's checksum" \
	"$MEMFILL_REPLY, $MEMFILL_SUM" "verified $((FILL_MB * 256)) pages, 0 bad, $MEMFILL_FILL_SUM"
zram_memfill_stop "$MEMFILL_PID"

# 5. stopping: the swap unit (replayed), then ExecStop, for real
echo max >"$MEMCG/memory.max"
swapoff "/dev/$name"
unit_command ExecStop
ktap_info "ExecStop: ${CMD[*]}"
"${CMD[@]}" 2>&1 | sed 's/^/#   /'
ktap_eq "after ExecStop (--reset-device): initstate, disksize, backing_dev" \
	"$(cat "$ZRAM_SYS/initstate") $(cat "$ZRAM_SYS/disksize") $(cat "$ZRAM_SYS/backing_dev")" \
	"0 0 none"
ktap_finish
