/* SPDX-License-Identifier: GPL-2.0-only */
/* zram objects (zram_obj.c): a page's contents prepared for a slot. */
#ifndef _ZRAM_OBJ_H_
#define _ZRAM_OBJ_H_

#include <linux/types.h>

struct page;
struct zram;
struct zram_recomp_spec;

/**
 * struct zram_obj - new contents for a slot, prepared without its lock
 * @handle: zsmalloc handle, or the fill value when @same
 * @size: bytes used in the zsmalloc object; PAGE_SIZE means huge
 * @same: same-filled page, nothing allocated
 * @prio: priority of the compressor that made the object (0: primary)
 */
struct zram_obj {
	unsigned long handle;
	unsigned int size;
	bool same;
	u32 prio;
};

/**
 * enum zram_recomp_result - what zram_obj_recompress() did with a slot
 * @ZRAM_RECOMP_SKIPPED: not tried: the object is below the threshold
 * @ZRAM_RECOMP_NOT_TRIED: not tried: made by the priority asked or a higher
 * @ZRAM_RECOMP_NO_GAIN: tried; no smaller size class, or not below threshold
 * @ZRAM_RECOMP_INCOMPRESSIBLE: as NO_GAIN, and no higher priority configured
 * @ZRAM_RECOMP_STORED: a smaller object was made
 */
enum zram_recomp_result {
	ZRAM_RECOMP_SKIPPED,
	ZRAM_RECOMP_NOT_TRIED,
	ZRAM_RECOMP_NO_GAIN,
	ZRAM_RECOMP_INCOMPRESSIBLE,
	ZRAM_RECOMP_STORED,
};

int zram_obj_prepare(struct zram *zram, struct page *page, bool nowait,
		     struct zram_obj *obj);
void zram_obj_discard(struct zram *zram, const struct zram_obj *obj);
int zram_obj_read(struct zram *zram, struct page *page, u32 index);
int zram_obj_recompress(struct zram *zram, u32 index, struct page *page,
			const struct zram_recomp_spec *spec,
			struct zram_obj *obj);
void zram_obj_copy(struct zram *zram, u32 index, void *dst,
		   unsigned int split, void *dst2);
int zram_obj_decompress(struct zram *zram, const void *src, unsigned int size,
			u32 prio, struct page *page);

#endif /* _ZRAM_OBJ_H_ */
