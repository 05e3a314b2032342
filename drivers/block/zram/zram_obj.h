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
 * @ZRAM_RECOMP_SKIPPED: not looked at: the object is below the threshold
 * @ZRAM_RECOMP_NOT_TRIED: not looked at: the object was made by the
 *	requested priority or a higher one
 * @ZRAM_RECOMP_NO_GAIN: the requested priority was tried and did not
 *	save memory (or did not come below the threshold)
 * @ZRAM_RECOMP_INCOMPRESSIBLE: as %ZRAM_RECOMP_NO_GAIN, and no priority
 *	is configured above the requested one
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
