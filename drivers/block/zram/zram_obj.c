// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram objects: the same-filled check, compression into zsmalloc objects
 * (an atomic attempt first, then a blocking one), mem_limit, and reading
 * a slot kept in RAM back into a page.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "zram_obj.h"
#include "zram_recomp.h"
#include "zram_slot.h"

/*
 * gfp for zsmalloc objects on the I/O path. Never enters direct reclaim, so
 * it may be used with a compression stream held and for REQ_NOWAIT bios.
 */
#define ZRAM_GFP_OBJ_NOWAIT	(GFP_NOWAIT | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)
/* Sleeping fallback for blocking bios; no stream may be held. */
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

/**
 * zram_read_compressed() - decompress a zsmalloc object into a page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @handle: zsmalloc handle of the slot
 * @size: size of the object in bytes
 * @prio: priority of the compressor that made it
 *
 * Context: slot lock held; takes this CPU's compression stream; never
 * sleeps; nowait-safe.
 * Return: 0, or the decompressor's negative errno (-EIO on short output).
 */
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
 * zram_obj_read() - uncompress a slot's data into a page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units); must not be ZRAM_WB
 *
 * An empty slot reads as zeroes.
 *
 * Context: slot lock held; never sleeps; nowait-safe.
 * Return: 0, or -EIO (or the decompressor's errno) on corrupt data.
 */
int zram_obj_read(struct zram *zram, struct page *page, u32 index)
{
	unsigned long handle;
	int ret;

	lockdep_assert_held(&zram->table[index].lock);
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
 * zram_obj_copy() - copy a slot's compressed object, as it is
 * @zram: device
 * @index: slot index (PAGE_SIZE units) of a compressed zsmalloc object
 *	(not same-filled, not huge, not written back)
 * @dst: destination of the object's first @split bytes
 * @split: bytes to copy to @dst, at most the object's size
 * @dst2: destination of the rest
 *
 * For packed writeback, which writes objects without decompressing them.
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

	lockdep_assert_held(&zram->table[index].lock);
	/* the object's one or two pieces, each within a page */
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
 * zram_obj_decompress() - decompress an object held in a buffer
 * @zram: device
 * @src: the compressed object (kernel address)
 * @size: its size in bytes
 * @prio: priority of the compressor that made it (the slot's, kept by
 *	packed writeback)
 * @page: destination, PAGE_SIZE bytes
 *
 * For packed slots read back from the backing device. A slot of priority
 * @prio exists only while that compressor does: recomp_algorithm is fixed
 * once the device is initialized, and reset frees every slot first.
 *
 * Context: task context, which takes this CPU's task stream; or softirq,
 * which takes its softirq stream (compressed_writeback devices make
 * them, zram_init_device()). Never sleeps.
 * Return: 0, -EIO when no compressor has @prio, or the decompressor's
 * negative errno (logged).
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

/**
 * zram_compress() - compress a page with the held stream
 * @zram: device
 * @zstrm: this CPU's stream, held; receives the compressed data
 * @page: data, PAGE_SIZE bytes
 * @size: out: compressed size in bytes; PAGE_SIZE when it reaches
 *	huge_class_size (the page is then stored uncompressed, ZRAM_HUGE)
 *
 * Context: stream held; never sleeps; nowait-safe.
 * Return: 0, or -EIO when the compressor failed (its errno is logged).
 */
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

/*
 * Copy the compressed data (or the page itself if huge) into the object.
 * The stream is held: its buffer is the source. Never sleeps.
 */
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

/**
 * zram_obj_alloc_blocking() - allocate an object, allowed to reclaim
 * @zram: device
 * @size: object size in bytes
 * @nid: NUMA node to prefer (the data page's)
 *
 * For a blocking bio after the GFP_NOWAIT allocation failed; counts a
 * writestall.
 *
 * Context: task context, no stream held, not for REQ_NOWAIT; may sleep.
 * Return: the zsmalloc handle, or an error value (IS_ERR_VALUE()).
 */
static unsigned long zram_obj_alloc_blocking(struct zram *zram,
					     unsigned int size, int nid)
{
	atomic64_inc(&zram->stats.writestall);
	return zs_malloc(zram->mem_pool, size, ZRAM_GFP_OBJ_BLOCKING, nid);
}

/**
 * zram_obj_compress_atomic() - compress into an object allocated atomically
 * @zram: device
 * @page: data, PAGE_SIZE bytes
 * @obj: out: handle and size; on -EAGAIN only the size (bytes) wanted
 *
 * Context: task context; never sleeps; nowait-safe.
 * Return: 0; -EAGAIN when the GFP_NOWAIT allocation failed; -EIO when
 * compression failed.
 */
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

/**
 * zram_obj_compress_into() - compress into an allocated object if it fits
 * @zram: device
 * @page: data, PAGE_SIZE bytes
 * @handle: zsmalloc object of @alloc_size bytes
 * @alloc_size: its size in bytes
 * @obj: out: size (also when it did not fit), and @handle when it did
 *
 * Context: task context; never sleeps.
 * Return: 0 (filled), -E2BIG (the data compressed larger than
 * @alloc_size; nothing filled) or -EIO.
 */
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

/**
 * zram_obj_compress_blocking() - allocate the object first, then compress
 * @zram: device
 * @page: data, PAGE_SIZE bytes
 * @obj: in: size in bytes the atomic attempt wanted; out: handle and size
 *
 * The object is allocated with a sleeping gfp, without a stream held, and
 * the page compressed again: the stream buffer may have been reused
 * meanwhile. Race tolerated: a page under O_DIRECT may change meanwhile
 * (stable writes only cover the page cache) and compress larger; then
 * the object is allocated again at the new size, and at the second miss
 * at PAGE_SIZE, which any compressed size fits.
 *
 * Context: task context, not for REQ_NOWAIT; may sleep.
 * Return: 0, -ENOMEM, or -EIO.
 */
static int zram_obj_compress_blocking(struct zram *zram, struct page *page,
				      struct zram_obj *obj)
{
	unsigned int alloc_size = obj->size;
	unsigned long handle;
	int tries = 0;
	int ret;

	do {
		handle = zram_obj_alloc_blocking(zram, alloc_size,
						 page_to_nid(page));
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

/**
 * zram_obj_compress() - compress a page into a new zsmalloc object
 * @zram: device
 * @page: data, PAGE_SIZE bytes; stable while we run (stable writes)
 * @nowait: the bio has REQ_NOWAIT
 * @obj: out: handle and size
 *
 * Tries the atomic allocation first; only a blocking bio falls back to the
 * sleeping one.
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait and no memory), -ENOMEM, or -EIO.
 */
static int zram_obj_compress(struct zram *zram, struct page *page,
			     bool nowait, struct zram_obj *obj)
{
	int ret = zram_obj_compress_atomic(zram, page, obj);

	if (ret != -EAGAIN || nowait)
		return ret;
	return zram_obj_compress_blocking(zram, page, obj);
}

/**
 * zram_check_mem_limit() - enforce mem_limit after an allocation
 * @zram: device
 *
 * Also raises max_used_pages to the pool's current size.
 *
 * Context: any task context; never sleeps; nowait-safe.
 * Return: 0, or -ENOMEM when the pool is over limit_pages.
 */
static int zram_check_mem_limit(struct zram *zram)
{
	unsigned long pages = zs_get_total_pages(zram->mem_pool);
	long max = atomic_long_read(&zram->stats.max_used_pages);
	unsigned long limit;

	while (pages > max &&
	       !atomic_long_try_cmpxchg(&zram->stats.max_used_pages,
					&max, pages))
		;
	/*
	 * Read without init_lock (the I/O path never takes it): a racing
	 * mem_limit store is seen one write late, which is harmless.
	 */
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
 * On failure nothing is left allocated.
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait and no memory), -ENOMEM (no memory, or
 * over mem_limit), or -EIO (compression failed).
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
 * zram_obj_recompress() - compress a RAM slot's data with a secondary
 *	algorithm into a new object, if that saves memory
 * @zram: device
 * @index: slot index (PAGE_SIZE units); holds a zsmalloc object
 * @page: scratch page, PAGE_SIZE bytes; receives the slot's data
 * @spec: the priority to compress with (configured) and the threshold
 * @obj: out, with %ZRAM_RECOMP_STORED: the new object and its priority
 *
 * Compresses with @spec->prio when the object was made by a lower
 * priority and is at least @spec->threshold bytes (when set). The result
 * is kept when it falls into a smaller zsmalloc size class (and below the
 * threshold, when set). When it is not kept and no compressor is
 * configured above @spec->prio, the object is incompressible, as
 * upstream decides it. The new object is allocated without direct
 * reclaim: the old one is still there, nothing is lost when memory is
 * short.
 *
 * Context: slot lock held (never sleeps); takes a compression stream.
 * Return: a &enum zram_recomp_result, or -EIO (data did not decompress or
 * compress), -ENOMEM (no memory for the new object).
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

	lockdep_assert_held(&zram->table[index].lock);
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
