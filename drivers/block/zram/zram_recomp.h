/* SPDX-License-Identifier: GPL-2.0-only */
/* zram recompression (zram_recomp.c, CONFIG_ZRAM_MULTI_COMP) */
#ifndef _ZRAM_RECOMP_H_
#define _ZRAM_RECOMP_H_

#include <linux/compiler.h>
#include <linux/sysfs.h>
#include <linux/types.h>

/* Recompression mode: which stored slots qualify. 0 qualifies any. */
#define ZRAM_RECOMP_IDLE	BIT(0)	/* ZRAM_IDLE set */
#define ZRAM_RECOMP_HUGE	BIT(1)	/* ZRAM_HUGE set */

/**
 * struct zram_recomp_spec - one parsed recompress request
 * @mode: ZRAM_RECOMP_* bits the slots must match
 * @threshold: bytes; only objects at least this large are recompressed,
 *	and only into smaller ones; 0 for any
 * @prio: the compressor priority to use (1 or more); slots made by it or a
 *	higher one are left alone
 * @max_pages: most slots to try, saved or not; U64_MAX for all
 */
struct zram_recomp_spec {
	unsigned int mode;
	u32 threshold;
	u32 prio;
	u64 max_pages;
};

extern const struct attribute_group zram_recomp_attr_group;

#endif /* _ZRAM_RECOMP_H_ */
