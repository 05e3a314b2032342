// SPDX-License-Identifier: GPL-2.0-only
/*
 * Misuses zram's slot lock on purpose, through the driver's own
 * zram_slot.h, so that a debug kernel run shows its checks still see the
 * lock: loading it must report a sleeping call under a slot lock (with
 * "zram->slot_lock" among the held locks) and two slot locks held at once
 * (lockdep's recursive locking). The reports are the test; load it last,
 * as lockdep turns itself off after its first report.
 */

#include <linux/module.h>
#include <linux/slab.h>

#include "zram_slot.h"

static int __init zram_slot_lock_canary_init(void)
{
	struct zram *zram;

	zram = kzalloc(sizeof(*zram), GFP_KERNEL);
	if (!zram)
		return -ENOMEM;
	zram->table = kcalloc(2, sizeof(*zram->table), GFP_KERNEL);
	if (!zram->table) {
		kfree(zram);
		return -ENOMEM;
	}
	zram_slot_lock_init(zram);

	pr_info("zram slot lock canary: a sleeping call under a slot lock\n");
	zram_slot_lock(zram, 0);
	might_sleep();
	zram_slot_unlock(zram, 0);

	pr_info("zram slot lock canary: two slot locks at once\n");
	zram_slot_lock(zram, 0);
	zram_slot_lock(zram, 1);
	zram_slot_unlock(zram, 1);
	zram_slot_unlock(zram, 0);

	kfree(zram->table);
	kfree(zram);
	return 0;
}

static void __exit zram_slot_lock_canary_exit(void)
{
}

module_init(zram_slot_lock_canary_init);
module_exit(zram_slot_lock_canary_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Misuses the zram slot lock for the debug kernel's checks");
