/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram recompression (zram_recomp.c, CONFIG_ZRAM_MULTI_COMP): secondary
 * compression algorithms (recomp_algorithm) and recompressing stored
 * slots with them (recompress).
 */
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
 * @threshold: only objects of at least this many bytes are recompressed,
 *	and only into fewer bytes than this; 0 for any
 * @prio: the one compressor priority to recompress with (1 or more);
 *	slots whose object that priority or a higher one made are left alone
 * @max_pages: most slots to try (tried slots count, saved or not);
 *	U64_MAX for all
 */
struct zram_recomp_spec {
	unsigned int mode;
	u32 threshold;
	u32 prio;
	u64 max_pages;
};

/* The recomp_algorithm and recompress attributes (CONFIG_ZRAM_MULTI_COMP). */
extern const struct attribute_group zram_recomp_attr_group;

#endif /* _ZRAM_RECOMP_H_ */
