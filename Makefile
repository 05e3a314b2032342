# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry points of the zram rework:
#   make run    - the main job: idle writeback of real data, checksums verified
#                 (JOB=swap: zram as swap under a memory cgroup, both drivers)
#   make check  - host checks, unit tests, the series check, the
#                 kselftests in a VM, and check-debug-ours
#   make check-debug - kselftests, the main job and fault injection on the
#                 debug kernel (lockdep, KASAN, kmemleak), stock and ours
#   make check-debug-ours - the same for ours only, its suite in two VMs
#   make fresh-check - make run and make check in a fresh Debian root
#   make bench  - stock zram.ko vs ours in one VM boot
#   make series - the kernel patch series, in build/series/
#   make series-check - apply it to linux-source-7.3 and prove every patch
#   make check-6.12 - the 6.12 LTS tier (not part of check: CI's time)
# Variables: the VM jobs (run, check-vm, kselftest, check-debug, bench)
# take their options as NAME=VALUE, on make's command line or in the
# environment, which reaches them unchanged: ZRAM (driver), TESTS, KERNEL,
# TIMEOUT, TEST_TIMEOUT, OUT, VM_RUN_ARGS, JOB, FILL_MB, LIMIT_MB, BENCH_*
# (the table: tools/testing/vm/README.md, "Options"; the defaults are the
# scripts'). ZRAM_KCACHE: where the debug kernel is built and cached
# (default /var/cache/zram-rework).

SHELL := /bin/bash
# KERNEL: the kernel the VM jobs boot, debian (Debian's 7.3, the default),
# debian-6.12 or debug; unset, the scripts take ZRAM_KERNEL's. make module
# builds ours for the Debian kernel it names (7.3 for debug); the VM jobs
# need ours for whichever it names.
VM_KERNEL := $(or $(KERNEL),$(ZRAM_KERNEL),debian)
VM_MODULE := $(if $(filter debug,$(VM_KERNEL)),debug-module,module)
MODULE_KERNEL := $(if $(filter debian-6.12,$(VM_KERNEL)),debian-6.12,debian)
SERIES := $(if $(filter debian-6.12,$(MODULE_KERNEL)),6.12,7.3)

VM := tools/testing/vm
# runs a tier's command and logs its time for the table make check prints
TIER := tools/build/tier.sh run
SELFTESTS := tools/testing/selftests/zram
UNIT := tools/testing/zram-unit

.PHONY: all deps kernel module module-nocomp sparse checkpatch shellcheck comment-share check-vm-ours \
	selftests-list slot-size unit helpers \
	check check-host check-host-debug check-vm check-debug check-debug-ours debug-kernel \
	debug-module \
	kselftest fresh-check run bench series-deps series series-check \
	check-6.12 dkms-check clean

all: module

deps:
	$(VM)/deps.sh

kernel: deps
	$(TIER) kernel -- tools/kernel/fetch.sh --series $(SERIES)

module: kernel
	ZRAM_KERNEL=$(MODULE_KERNEL) $(TIER) module -- tools/build/module.sh

# the module without recompression (CONFIG_ZRAM_MULTI_COMP off, as in
# Debian's config) must build clean too; it is built in .cache/nocomp
module-nocomp: kernel
	ZRAM_MULTI_COMP=n $(TIER) module-nocomp -- tools/build/module.sh

sparse: kernel
	$(TIER) sparse -- tools/build/module.sh C=2

checkpatch: kernel
	$(TIER) checkpatch -- tools/build/checkpatch.sh

shellcheck: deps
	$(TIER) shellcheck -- tools/build/shellcheck.sh

# comment lines at most 20% of the driver's lines (upstream's density)
comment-share:
	$(TIER) comment-share -- tools/build/comment-share.sh 20

selftests-list:
	$(TIER) selftests-list -- tools/build/selftests-list.sh

# make check builds these first (CHECK_PREP), then runs its VM tiers and
# the other host tiers side by side with CHECK_BUILT=1, which drops their
# build prerequisites: the 7.3 module builds in place, a second kbuild
# there would race the first, and the 7.3 VM loads zram.ko from there.
CHECK_PREP := module module-nocomp sparse helpers
# for make only: the VM jobs refuse variables they do not know
unexport CHECK_BUILT
# $(call unbuilt,PREREQS): PREREQS, or none once make check built them
unbuilt = $(if $(CHECK_BUILT),,$(1))

# bytes per slot of the slot table: ours no more than stock's (pahole)
slot-size: $(call unbuilt,module)
	$(TIER) slot-size -- tools/build/slot-size.sh

unit: deps
	$(TIER) unit -- $(MAKE) -C $(UNIT) check

# the selftests' C helpers, rebuilt with warnings as errors
helpers: deps
	$(TIER) helpers -- $(MAKE) -B -C $(SELFTESTS) all CFLAGS="-O2 -Wall -Wextra -Werror"

check-host: module module-nocomp sparse checkpatch shellcheck comment-share selftests-list \
	slot-size unit helpers series-check

check-vm: $(VM_MODULE) helpers
	$(VM)/vm-check.sh

# ours only, through the kernel's runner (check-vm runs it too)
kselftest: $(VM_MODULE)
	$(VM)/kselftest.sh

# the debug kernel (cached outside the checkout) and our zram.ko for it
debug-kernel: deps
	$(TIER) debug-kernel -- tools/kernel/build-debug.sh

debug-module: debug-kernel
	ZRAM_KERNEL=debug tools/build/module.sh

check-debug: debug-module helpers
	$(VM)/check-debug.sh

# ours only, its suite split over two VMs (SHARDS): what make check runs
check-debug-ours: debug-module $(call unbuilt,helpers)
	ZRAM=ours SHARDS=$${SHARDS:-2} $(TIER) check-debug-ours -- $(VM)/check-debug.sh

# make check runs ours only, on both kernels, so that CI fits its 90
# minutes on two cores: stock's suites are make check-vm (Debian's kernel,
# beside ours) and make check-debug (the debug kernel, beside ours).
check-vm-ours: $(call unbuilt,$(VM_MODULE) helpers)
	ZRAM=ours $(TIER) check-vm-ours -- $(VM)/vm-check.sh

# check's second branch, beside check-vm-ours: the rest of check-host,
# then the debug kernel's suite (its kernel is built here when not cached)
check-host-debug: checkpatch shellcheck comment-share selftests-list slot-size unit \
	series-check
	@$(MAKE) --no-print-directory check-debug-ours

# After the builds, check-vm-ours runs beside the other host tiers and
# then check-debug-ours (-j2; -k so that one failing does not stop the
# other): the two debug lanes meet the 7.3 VM only for its last part, as
# tests run several times slower when three VMs' vCPUs share the two
# cores. The main job on the debug kernel starts when the first debug
# lane ends.
check:
	@tools/build/tier.sh start
	@$(MAKE) --no-print-directory $(CHECK_PREP) && \
		$(MAKE) --no-print-directory -j2 -k CHECK_BUILT=1 check-vm-ours check-host-debug; \
		rc=$$?; echo; echo "[check] each tier: its time, tests and assertions"; \
		tools/build/tier.sh table; echo "$(CHECK_6_12_NOTE)"; exit $$rc

# The 6.12 LTS tier: ours built for Debian's 6.12 through the compat header
# (W=1), the main job on ours and on stock 6.12, the swap job, and one
# selftest or two of each area (writeback, its limit and mem_limit,
# packed, nowait, recompression; discards that reschedule, which 7.x on
# x86 cannot show) through the kernel's runner.
CHECK_6_12_TESTS := zram_wb_02.sh zram_wb_08.sh zram_stat_01.sh zram_packed_01.sh \
	zram_nowait_01.sh zram_nowait_14.sh zram_recomp_01.sh zram_data_05.sh
CHECK_6_12_NOTE := [check] not run: the 6.12 LTS tier (CI's 90 minutes \
	have no room for it); run it with make check-6.12
check-6.12: deps
	$(TIER) kernel-6.12 -- tools/kernel/fetch.sh --series 6.12
	ZRAM_KERNEL=debian-6.12 $(TIER) module-6.12 -- tools/build/module.sh
	$(TIER) run-6.12 -- $(VM)/run-main-job.sh KERNEL=debian-6.12 JOB=main ZRAM=ours
	$(TIER) run-6.12-stock -- $(VM)/run-main-job.sh KERNEL=debian-6.12 JOB=main ZRAM=stock
	$(TIER) swap-6.12 -- $(VM)/run-main-job.sh KERNEL=debian-6.12 JOB=swap ZRAM=ours
	$(TIER) kselftest-6.12 -- $(VM)/kselftest.sh KERNEL=debian-6.12 ZRAM=ours \
		TESTS="$(CHECK_6_12_TESTS)"

fresh-check:
	tools/testing/fresh/fresh-check.sh

run: $(VM_MODULE)
	$(TIER) run -- $(VM)/run-main-job.sh

bench: module
	tools/bench/run.sh

series-deps:
	tools/series/deps.sh

series: kernel series-deps
	tools/series/series.sh

series-check: series
	$(TIER) series-check -- tools/series/check.sh

# DKMS install into a fresh Debian root (Debian 13 for 7.3, Debian 12 for
# KERNEL=debian-6.12), then modprobe in the VM (not part of "check": see
# tools/testing/dkms/README.md)
dkms-check: kernel
	tools/testing/dkms/dkms-check.sh

clean:
	git clean -fdX drivers tools
