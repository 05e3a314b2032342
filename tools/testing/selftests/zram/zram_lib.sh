# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# (SC2034: the tests, not this file, read the globals the helpers set)
#
# Shared helpers for the zram selftests: KTAP output, prerequisite checks,
# a fresh zram device per test (hot_add/hot_remove), backing devices
# (null_blk, loop, dm) and errno checks for sysfs writes.
#
# Source it, do not run it. Every helper that creates something registers
# its undo step with zram_defer; the EXIT trap runs them in reverse order,
# so a failing test never leaves devices behind for the next one.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ZRAM_CONTROL=/sys/class/zram-control

ktap_num=0
ktap_planned=0
ktap_pass=0
ktap_fail=0
ktap_skip=0
zram_undo=()
zram_obj_seq=0

# Results of the device helpers (they cannot print them: a $(...) subshell
# would lose the undo steps they register).
NULLB=''
LOOP=''
DM=''
DM_NAME=''
MNT=''
TEXT_FILE=''
HEX_FILE=''
RECOMP_PRIMARY=''
RECOMP_SECONDARY=''

# The helpers, by job (each file sourced from this one's directory).
zram_lib_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=zram_ktap.sh
. "$zram_lib_dir/zram_ktap.sh"
# shellcheck source=zram_sys.sh
. "$zram_lib_dir/zram_sys.sh"
# shellcheck source=zram_dev.sh
. "$zram_lib_dir/zram_dev.sh"
# shellcheck source=zram_data.sh
. "$zram_lib_dir/zram_data.sh"
# shellcheck source=zram_recomp.sh
. "$zram_lib_dir/zram_recomp.sh"
# shellcheck source=zram_swap.sh
. "$zram_lib_dir/zram_swap.sh"
# shellcheck source=zram_cases.sh
. "$zram_lib_dir/zram_cases.sh"
# shellcheck source=zram_fi.sh
. "$zram_lib_dir/zram_fi.sh"
