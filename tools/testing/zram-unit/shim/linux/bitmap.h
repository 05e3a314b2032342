/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel bitmap search helpers, word at a time
 * like lib/find_bit.c so word boundaries get exercised. Same contract as
 * the kernel: return @size when nothing is found or @offset >= @size.
 */
#ifndef _SHIM_LINUX_BITMAP_H
#define _SHIM_LINUX_BITMAP_H

#include <linux/bitops.h>

/* Words the searches below read, for tests that bound a search's cost. */
extern unsigned long shim_words_read;

static inline unsigned long shim_find_next(const unsigned long *addr,
					   unsigned long size,
					   unsigned long offset,
					   unsigned long invert)
{
	unsigned long word, idx;

	if (offset >= size)
		return size;
	idx = BIT_WORD(offset);
	word = (addr[idx] ^ invert) & (~0UL << (offset % BITS_PER_LONG));
	shim_words_read++;
	while (!word) {
		idx++;
		if (idx * BITS_PER_LONG >= size)
			return size;
		word = addr[idx] ^ invert;
		shim_words_read++;
	}
	offset = idx * BITS_PER_LONG + __builtin_ctzl(word);
	return offset < size ? offset : size;
}

static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long offset)
{
	return shim_find_next(addr, size, offset, 0);
}

static inline unsigned long find_next_zero_bit(const unsigned long *addr,
					       unsigned long size,
					       unsigned long offset)
{
	return shim_find_next(addr, size, offset, ~0UL);
}

/* Same contract as the kernel's: visits each set bit below size. */
#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = find_next_bit((addr), (size), 0); (bit) < (size);	\
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

#endif
