/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * zram objects: a page's contents prepared for a slot (same-filled value or
 * a compressed zsmalloc object), and reading a slot kept in RAM back into a
 * page (zram_obj.c).
 */
#ifndef _ZRAM_OBJ_H_
#define _ZRAM_OBJ_H_

#include <linux/types.h>

struct page;
struct zram;

/**
 * struct zram_obj - new contents for a slot, prepared without its lock
 * @handle: zsmalloc handle, or the fill value when @same
 * @size: bytes used in the zsmalloc object; PAGE_SIZE means huge
 * @same: same-filled page, nothing allocated
 */
struct zram_obj {
	unsigned long handle;
	unsigned int size;
	bool same;
};

int zram_obj_prepare(struct zram *zram, struct page *page, bool nowait,
		     struct zram_obj *obj);
void zram_obj_discard(struct zram *zram, const struct zram_obj *obj);
int zram_obj_read(struct zram *zram, struct page *page, u32 index);

#endif /* _ZRAM_OBJ_H_ */
