// SPDX-License-Identifier: GPL-2.0-only
/* zram objects: a page compressed for a slot under mem_limit, and back. */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "zram_obj.h"
#include "zram_recomp.h"
#include "zram_slot.h"

/* No direct reclaim: usable with a stream held and for REQ_NOWAIT bios. */
#define ZRAM_GFP_OBJ_NOWAIT	(GFP_NOWAIT | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)
/* Sleeping fallback for blocking bios, with no stream held. */
#define ZRAM_GFP_OBJ_BLOCKING	(GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

static void zram_fill_page(struct page *page, unsigned long value)
{
	void *mem = kmap_local_page(page);

	memset_l(mem, value, PAGE_SIZE / sizeof(unsigned long));
	kunmap_local(mem);
}

static void zram_read_huge(struct zram *zram, struct page *page,
			   unsigned long handle)
{
	void *src, *dst;

	/* A huge object fills its own page: no copy buffer is needed. */
	src = zs_obj_read_begin(zram->mem_pool, handle, PAGE_SIZE, NULL);
	dst = kmap_local_page(page);
	copy_page(dst, src);
	kunmap_local(dst);
	zs_obj_read_end(zram->mem_pool, handle, PAGE_SIZE, src);
}

static int zram_read_compressed(struct zram *zram, struct page *page,
				unsigned long handle, unsigned int size,
				u32 prio)
{
	struct zcomp *comp = zram->comps[prio];
	struct zcomp_strm *zstrm;
	void *src, *dst;
	int ret;

	zstrm = zcomp_stream_get(comp);
	/* An object across two pages is copied into the stream's buffer. */
	src = zs_obj_read_begin(zram->mem_pool, handle, size, zstrm->buffer);
	dst = kmap_local_page(page);
	ret = zcomp_decompress(zstrm, src, size, dst);
	kunmap_local(dst);
	zs_obj_read_end(zram->mem_pool, handle, size, src);
	zcomp_stream_put(comp);
	return ret;
}

/**
 * zram_obj_read() - decompress a RAM slot's data into a page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units), not ZRAM_WB; empty reads as zeroes
 *
 * Context: slot lock held; never sleeps; nowait-safe.
 * Return: 0, or -EIO (or the decompressor's errno) on corrupt data.
 */
int zram_obj_read(struct zram *zram, struct page *page, u32 index)
{
	unsigned long handle;
	int ret;

	zram_slot_assert_held(zram, index);
	handle = zram_get_handle(zram, index);
	if (WARN_ON_ONCE(zram_test_flag(zram, index, ZRAM_WB)))
		return -EIO;
	if (!handle || zram_test_flag(zram, index, ZRAM_SAME)) {
		zram_fill_page(page, handle);
		return 0;
	}
	if (zram_test_flag(zram, index, ZRAM_HUGE)) {
		zram_read_huge(zram, page, handle);
		return 0;
	}
	ret = zram_read_compressed(zram, page, handle,
				   zram_get_obj_size(zram, index),
				   zram_slot_get_prio(zram, index));
	if (ret)
		pr_err_ratelimited("%s: decompression of slot %u failed: %d\n",
				   zram->disk->disk_name, index, ret);
	return ret;
}

/**
 * zram_obj_copy() - copy a slot's compressed object as it is
 * @zram: device
 * @index: slot index (PAGE_SIZE units) of a compressed zsmalloc object
 * @dst: destination of the object's first @split bytes
 * @split: bytes to copy to @dst, at most the object's size
 * @dst2: destination of the rest
 *
 * Context: slot lock held; never sleeps.
 */
void zram_obj_copy(struct zram *zram, u32 index, void *dst,
		   unsigned int split, void *dst2)
{
	unsigned long handle = zram_get_handle(zram, index);
	unsigned int size = zram_get_obj_size(zram, index);
	struct scatterlist sg[2], *cur;
	unsigned int done = 0, len;

	zram_slot_assert_held(zram, index);
	zs_obj_read_sg_begin(zram->mem_pool, handle, sg, size);
	for (cur = sg; cur; cur = sg_next(cur)) {
		for (len = 0; len < cur->length; ) {
			unsigned int n = cur->length - len;
			void *to = done < split ? dst + done :
						  dst2 + done - split;

			if (done < split)
				n = min(n, split - done);
			memcpy_from_page(to, sg_page(cur), cur->offset + len, n);
			len += n;
			done += n;
		}
	}
	zs_obj_read_sg_end(zram->mem_pool, handle);
}

/**
 * zram_obj_decompress() - decompress a packed object read back into a page
 * @zram: device
 * @src: the compressed object
 * @size: its size in bytes
 * @prio: priority of the compressor that made it
 * @page: destination, PAGE_SIZE bytes
 *
 * Context: task context, or softirq with the device's softirq streams
 * (compressed_writeback); never sleeps.
 * Return: 0, -EIO when no compressor has @prio, or the decompressor's
 * errno.
 */
int zram_obj_decompress(struct zram *zram, const void *src, unsigned int size,
			u32 prio, struct page *page)
{
	struct zcomp *comp;
	struct zcomp_strm *zstrm;
	void *dst;
	int ret;

	if (WARN_ON_ONCE(prio >= ZCOMP_MAX_PRIOS || !zram->comps[prio]))
		return -EIO;
	comp = zram->comps[prio];
	if (WARN_ON_ONCE(in_serving_softirq() && !comp->softirq_stream))
		return -EIO;
	zstrm = zcomp_stream_get(comp);
	dst = kmap_local_page(page);
	ret = zcomp_decompress(zstrm, src, size, dst);
	kunmap_local(dst);
	zcomp_stream_put(comp);
	if (ret)
		pr_err_ratelimited("%s: decompression of a packed object failed: %d\n",
				   zram->disk->disk_name, ret);
	return ret;
}

static bool zram_page_same_filled(struct page *page, unsigned long *value)
{
	unsigned long *mem = kmap_local_page(page);
	unsigned int last = PAGE_SIZE / sizeof(*mem) - 1;
	unsigned int pos;
	bool same = false;

	/* Checking the last word first rejects most pages at once. */
	if (mem[0] != mem[last])
		goto out_unmap;
	for (pos = 1; pos < last; pos++)
		if (mem[pos] != mem[0])
			goto out_unmap;
	*value = mem[0];
	same = true;
out_unmap:
	kunmap_local(mem);
	return same;
}

/* Stream held; a size reaching huge_class_size becomes PAGE_SIZE (huge). */
static int zram_compress(struct zram *zram, struct zcomp_strm *zstrm,
			 struct page *page, unsigned int *size)
{
	void *src;
	int ret;

	lockdep_assert_held(&zstrm->lock);
	src = kmap_local_page(page);
	ret = zcomp_compress(zstrm, src, size);
	kunmap_local(src);
	if (ret) {
		pr_err_ratelimited("%s: compression failed: %d\n",
				   zram->disk->disk_name, ret);
		return -EIO;
	}
	if (*size >= zram->huge_class_size)
		*size = PAGE_SIZE;
	return 0;
}

/* Stream held: copies its output (the page itself when huge) in. */
static void zram_obj_fill(struct zram *zram, struct zcomp_strm *zstrm,
			  struct page *page, const struct zram_obj *obj)
{
	void *src;

	lockdep_assert_held(&zstrm->lock);
	if (obj->size == PAGE_SIZE) {
		src = kmap_local_page(page);
		zs_obj_write(zram->mem_pool, obj->handle, src, PAGE_SIZE);
		kunmap_local(src);
	} else {
		zs_obj_write(zram->mem_pool, obj->handle, zstrm->buffer,
			     obj->size);
	}
}

/* -EAGAIN, with @obj->size set, when the GFP_NOWAIT allocation failed. */
static int zram_obj_compress_atomic(struct zram *zram, struct page *page,
				    struct zram_obj *obj)
{
	struct zcomp_strm *zstrm;
	unsigned long handle;
	int ret;

	zstrm = zcomp_stream_get(zram->comps[ZCOMP_PRIO_PRIMARY]);
	ret = zram_compress(zram, zstrm, page, &obj->size);
	if (ret)
		goto out_put_stream;
	handle = zs_malloc(zram->mem_pool, obj->size, ZRAM_GFP_OBJ_NOWAIT,
			   page_to_nid(page));
	if (IS_ERR_VALUE(handle)) {
		ret = -EAGAIN;
		goto out_put_stream;
	}
	obj->handle = handle;
	zram_obj_fill(zram, zstrm, page, obj);
	zcomp_stream_put(zram->comps[ZCOMP_PRIO_PRIMARY]);
	return 0;

out_put_stream:
	zcomp_stream_put(zram->comps[ZCOMP_PRIO_PRIMARY]);
	return ret;
}

/* -E2BIG when the page compressed larger than @alloc_size. */
static int zram_obj_compress_into(struct zram *zram, struct page *page,
				  unsigned long handle, unsigned int alloc_size,
				  struct zram_obj *obj)
{
	struct zcomp_strm *zstrm;
	int ret;

	zstrm = zcomp_stream_get(zram->comps[ZCOMP_PRIO_PRIMARY]);
	ret = zram_compress(zram, zstrm, page, &obj->size);
	if (!ret && obj->size > alloc_size)
		ret = -E2BIG;
	if (!ret) {
		obj->handle = handle;
		zram_obj_fill(zram, zstrm, page, obj);
	}
	zcomp_stream_put(zram->comps[ZCOMP_PRIO_PRIMARY]);
	return ret;
}

/*
 * Allocates with no stream held, then compresses again. An O_DIRECT page
 * may change meanwhile and compress larger: retry at that size, then at
 * PAGE_SIZE, which always fits.
 */
static int zram_obj_compress_blocking(struct zram *zram, struct page *page,
				      struct zram_obj *obj)
{
	unsigned int alloc_size = obj->size;
	unsigned long handle;
	int tries = 0;
	int ret;

	do {
		handle = zs_malloc(zram->mem_pool, alloc_size,
				   ZRAM_GFP_OBJ_BLOCKING, page_to_nid(page));
		if (IS_ERR_VALUE(handle))
			return -ENOMEM;
		ret = zram_obj_compress_into(zram, page, handle, alloc_size,
					     obj);
		if (ret)
			zs_free(zram->mem_pool, handle);
		alloc_size = ++tries > 1 ? PAGE_SIZE : obj->size;
	} while (ret == -E2BIG);
	return ret;
}

static int zram_obj_compress(struct zram *zram, struct page *page,
			     bool nowait, struct zram_obj *obj)
{
	int ret = zram_obj_compress_atomic(zram, page, obj);

	if (ret != -EAGAIN || nowait)
		return ret;
	return zram_obj_compress_blocking(zram, page, obj);
}

/* Raises max_used_pages; -ENOMEM when the pool is over mem_limit. */
static int zram_check_mem_limit(struct zram *zram)
{
	unsigned long pages = zs_get_total_pages(zram->mem_pool);
	long max = atomic_long_read(&zram->stats.max_used_pages);
	unsigned long limit;

	while (pages > max &&
	       !atomic_long_try_cmpxchg(&zram->stats.max_used_pages,
					&max, pages))
		;
	/* Without init_lock: a racing mem_limit store is seen a write late. */
	limit = READ_ONCE(zram->limit_pages);
	if (limit && pages > limit)
		return -ENOMEM;
	return 0;
}

/**
 * zram_obj_prepare() - build a slot's new contents without its lock
 * @zram: device
 * @page: data, PAGE_SIZE bytes
 * @nowait: the bio has REQ_NOWAIT
 * @obj: out: same-filled value, or a filled zsmalloc object
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait, no memory), -ENOMEM (no memory or over
 * mem_limit) or -EIO (compression failed); on error nothing is allocated.
 */
int zram_obj_prepare(struct zram *zram, struct page *page,
		     bool nowait, struct zram_obj *obj)
{
	int ret;

	if (zram_page_same_filled(page, &obj->handle)) {
		obj->same = true;
		return 0;
	}
	ret = zram_obj_compress(zram, page, nowait, obj);
	if (ret)
		return ret;
	ret = zram_check_mem_limit(zram);
	if (ret)
		zs_free(zram->mem_pool, obj->handle);
	return ret;
}

/**
 * zram_obj_discard() - drop a prepared object that was not installed
 * @zram: device
 * @obj: from zram_obj_prepare()
 *
 * Context: any task context; never sleeps.
 */
void zram_obj_discard(struct zram *zram, const struct zram_obj *obj)
{
	if (!obj->same)
		zs_free(zram->mem_pool, obj->handle);
}

#ifdef CONFIG_ZRAM_MULTI_COMP
/* True when no compressor is configured above priority @prio. */
static bool zram_obj_highest_prio(struct zram *zram, u32 prio)
{
	for (prio++; prio < ZCOMP_MAX_PRIOS; prio++) {
		if (zram->comps[prio])
			return false;
	}
	return true;
}

/**
 * zram_obj_recompress() - recompress a RAM slot with a secondary algorithm
 * @zram: device
 * @index: slot index (PAGE_SIZE units); holds a zsmalloc object
 * @page: scratch page, PAGE_SIZE bytes
 * @spec: the configured priority to use, and the threshold
 * @obj: out with %ZRAM_RECOMP_STORED: the new object and its priority
 *
 * Context: slot lock held; never sleeps; takes a compression stream.
 * Return: a &enum zram_recomp_result; -EIO (decompression or compression
 * failed) or -ENOMEM.
 */
int zram_obj_recompress(struct zram *zram, u32 index, struct page *page,
			const struct zram_recomp_spec *spec,
			struct zram_obj *obj)
{
	unsigned int old_size = zram_get_obj_size(zram, index);
	struct zcomp *comp = zram->comps[spec->prio];
	u32 prio = spec->prio;
	struct zcomp_strm *zstrm;
	unsigned long handle;
	unsigned int size;
	int ret;

	zram_slot_assert_held(zram, index);
	if (spec->threshold && old_size < spec->threshold)
		return ZRAM_RECOMP_SKIPPED;
	if (zram_slot_get_prio(zram, index) >= prio)
		return ZRAM_RECOMP_NOT_TRIED;
	ret = zram_obj_read(zram, page, index);
	if (ret)
		return ret;
	zstrm = zcomp_stream_get(comp);
	ret = zram_compress(zram, zstrm, page, &size);
	if (ret) {
		zcomp_stream_put(comp);
		return ret;
	}
	if (zs_lookup_class_index(zram->mem_pool, size) <
	    zs_lookup_class_index(zram->mem_pool, old_size) &&
	    (!spec->threshold || size < spec->threshold))
		goto out_store;
	zcomp_stream_put(comp);
	if (zram_obj_highest_prio(zram, prio))
		return ZRAM_RECOMP_INCOMPRESSIBLE;
	return ZRAM_RECOMP_NO_GAIN;

out_store:
	/* No direct reclaim: the old object stays when memory is short. */
	handle = zs_malloc(zram->mem_pool, size, __GFP_KSWAPD_RECLAIM |
			   __GFP_NOWARN | __GFP_HIGHMEM | __GFP_MOVABLE,
			   page_to_nid(page));
	if (IS_ERR_VALUE(handle)) {
		zcomp_stream_put(comp);
		return -ENOMEM;
	}
	*obj = (struct zram_obj){ .handle = handle, .size = size, .prio = prio };
	zram_obj_fill(zram, zstrm, page, obj);
	zcomp_stream_put(comp);
	return ZRAM_RECOMP_STORED;
}
#endif /* CONFIG_ZRAM_MULTI_COMP */
