#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# REQ_NOWAIT bios that blk-throttle held back reach the driver later from
# its worker, still flagged REQ_NOWAIT, where no application can retry an
# EAGAIN (io_uring reissues only what fails in its own task). fio reads
# with io_uring (queue depth 8, crc32c headers checked) from a cgroup whose
# io.max allows RIOPS reads a second on the zram device, whose slots are on
# a backing device without nowait support (dm-delay over a null_blk with
# timer completions), so every read needs a blocking backing read. Every
# read returns its data: none fails with EAGAIN, none is refused. The same
# reads without the limit pass too. preadv2(RWF_NOWAIT) reads of these
# slots are refused at once with EAGAIN (they need a blocking read); from
# the throttled cgroup, those the throttle held back have waited already
# and are served (7.x's io_uring reissues a late EAGAIN, a synchronous
# caller gets it), the others are refused at once. Stock has no
# BLK_FEAT_NOWAIT: io_uring falls back to its workers and passes,
# RWF_NOWAIT is refused with EOPNOTSUPP (that row skips).

. "$(dirname "$0")/zram_lib.sh"

MIB=8
RIOPS=200
SECONDS_RUN=3

zram_require_basic
zram_require_cmd fio
zram_require_nullb
zram_require_cgroup io || ktap_skip_all "no cgroup v2 io controller"
zram_pv_init

zram_delay_dev irqmode=2 completion_nsec=200000
zram_wb_attach "$DM" 16M
zram_require_fio_uring "$ZRAM_DEV"

zram_cgroup io || ktap_skip_all "cannot create a cgroup"
echo "$(cat "$ZRAM_SYS/dev") riops=$RIOPS" >"$CG/io.max" ||
	ktap_skip_all "cannot set io.max (no CONFIG_BLK_DEV_THROTTLING)"

# job [FIO_OPTION...]: zram_pv_job over the first MIB MiB with io_uring,
# queue depth 8; writes by default
job() {
	zram_pv_job "$ZRAM_DEV" data 0 "${MIB}M" --ioengine=io_uring \
		--iodepth=8 "$@"
}

# reads CGROUP [FIO_OPTION...]: random reads for SECONDS_RUN seconds,
# every one checked, run from CGROUP; prints fio's error, then reads done
reads() {
	local cgroup=$1

	shift
	(echo "$BASHPID" >"$cgroup/cgroup.procs" &&
		job --rw=randread --do_verify=1 --time_based \
			--runtime="$SECONDS_RUN" "$@")
	echo "$(zram_pv_json job error) $(zram_pv_json read total_ios)" \
		"$(zram_pv_json job total_err)"
}

# preadv2(RWF_NOWAIT), going on after an EAGAIN (counted in total_err)
NOWAIT_READS=(--ioengine=pvsync2 --iodepth=1 --nowait=1
	--continue_on_error=read --ignore_error=EAGAIN)

ktap_plan 5
job || ktap_bail "cannot write $MIB MiB"
echo all >"$ZRAM_SYS/idle"
echo idle >"$ZRAM_SYS/writeback" || ktap_bail "cannot write back"
ktap_eq "setup: every slot is on the backing device" \
	"$(bd_count)" $((MIB * 256))

read -r err ios < <(reads "$CGROUP_ROOT")
ktap_info "unthrottled: error $err, $ios reads in $SECONDS_RUN s"
ktap_eq "unthrottled reads: no error" "$err" 0
read -r err ios < <(reads "$CG")
ktap_info "riops=$RIOPS: error $err, $ios reads in $SECONDS_RUN s"
[ "$err" = 0 ] || sed 's/^/# /' "$ZRAM_PV_WORK/fio.err" | head -5
ktap_eq "throttled reads: no error (no EAGAIN)" "$err" 0
# the limit held them back (so they went through blk-throttle's worker)
# and they went on to the end
ktap_check "throttled reads: $ios, within half and twice $RIOPS a second" \
	test "${ios:-0}" -ge $((RIOPS * SECONDS_RUN / 2)) -a \
	"${ios:-0}" -le $((RIOPS * SECONDS_RUN * 2))
desc="throttled RWF_NOWAIT reads: those held back are served, no other error"
read -r err ios eagain < <(reads "$CGROUP_ROOT" "${NOWAIT_READS[@]}" --runtime=1)
ktap_info "unthrottled RWF_NOWAIT: error $err, $ios reads, $eagain EAGAIN"
# fio reports the first error, also one it went on after (11: EAGAIN)
if [ "${err/#11/0}" != 0 ] || [ "$ios" != "$eagain" ]; then
	ktap_skip "$desc" "RWF_NOWAIT reads not all refused with EAGAIN"
else
	read -r err ios eagain < <(reads "$CG" "${NOWAIT_READS[@]}")
	ktap_info "riops=$RIOPS, RWF_NOWAIT: error $err, $ios reads, $eagain EAGAIN"
	ktap_check "$desc" test "${err/#11/0}" = 0 -a "$((ios - eagain))" -gt 0
fi
ktap_finish
