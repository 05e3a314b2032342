/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel bitops used by zram_extent.c. The
 * atomic ones use the GCC __atomic builtins, so the shim keeps the kernel
 * guarantees the allocator relies on.
 */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <limits.h>
#include <linux/types.h>

#define BITS_PER_LONG		((unsigned long)(sizeof(long) * CHAR_BIT))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline void set_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_SEQ_CST);
}

static inline void clear_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_SEQ_CST);
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return __atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) &
	       BIT_MASK(nr);
}

static inline bool test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long old;

	old = __atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr),
				__ATOMIC_SEQ_CST);
	return old & BIT_MASK(nr);
}

static inline bool test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long old;

	old = __atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
				 __ATOMIC_SEQ_CST);
	return old & BIT_MASK(nr);
}

#endif
