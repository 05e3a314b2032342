// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram: a block device that keeps its data compressed in RAM.
 *
 * The disk is an array of PAGE_SIZE slots (struct zram_table_entry). A
 * written page is stored as one of: a fill value (same-filled page), a
 * compressed zsmalloc object, an uncompressed zsmalloc object (huge page),
 * or - after writeback, see zram_wb.c - a block on a backing device.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cleanup.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/part_stat.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "zram_drv.h"

/*
 * Device ids -> struct zram. zram_index_mutex guards the idr and is held
 * across zram_add() and zram_remove(), so hot_add, hot_remove and module
 * unload never see a half-created or half-removed device.
 */
static DEFINE_IDR(zram_index_idr);
static DEFINE_MUTEX(zram_index_mutex);

static int zram_major;
static const char *zram_default_comp = CONFIG_ZRAM_DEF_COMP;

/* Module parameter num_devices: devices created at load time. */
static unsigned int zram_num_devices = 1;

/*
 * gfp for zsmalloc objects on the I/O path. Never enters direct reclaim, so
 * it may be used with a compression stream held and for REQ_NOWAIT bios.
 */
#define ZRAM_GFP_OBJ_NOWAIT	(GFP_NOWAIT | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)
/* Sleeping fallback for blocking bios; no stream may be held. */
#define ZRAM_GFP_OBJ_BLOCKING	(GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

/*
 * Write-zeroes frees whole slots only (zram_bio_discard()); advertise it
 * only when every logical block is a whole slot.
 */
#if PAGE_SIZE == ZRAM_LOGICAL_BLOCK_SIZE
#define ZRAM_MAX_WRITE_ZEROES	UINT_MAX
#else
#define ZRAM_MAX_WRITE_ZEROES	0
#endif

/* ------------------------------------------------------------------ */
/* Slot lock                                                          */
/* ------------------------------------------------------------------ */

/**
 * zram_slot_lock() - lock one slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: task context; spins, never sleeps. Not for REQ_NOWAIT I/O, which
 * uses zram_slot_trylock().
 */
void zram_slot_lock(struct zram *zram, u32 index)
	__acquires(&zram->table[index].lock)
{
	spin_lock(&zram->table[index].lock);
}

/**
 * zram_slot_unlock() - unlock a slot locked by either function above
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Context: slot lock held.
 */
void zram_slot_unlock(struct zram *zram, u32 index)
	__releases(&zram->table[index].lock)
{
	spin_unlock(&zram->table[index].lock);
}

/**
 * zram_slot_lock_io() - lock one slot for a bio
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @nowait: the bio has REQ_NOWAIT: only try the lock
 *
 * Context: task context; spins unless @nowait; never sleeps.
 * Return: true with the slot locked; false (only with @nowait) when busy.
 */
static inline bool zram_slot_lock_io(struct zram *zram, u32 index, bool nowait)
{
	if (nowait)
		return zram_slot_trylock(zram, index);
	zram_slot_lock(zram, index);
	return true;
}

/* ------------------------------------------------------------------ */
/* Access time (CONFIG_ZRAM_TRACK_ENTRY_ACTIME)                        */
/* ------------------------------------------------------------------ */

#ifdef CONFIG_ZRAM_TRACK_ENTRY_ACTIME
static void zram_slot_set_actime(struct zram *zram, u32 index, ktime_t time)
{
	lockdep_assert_held(&zram->table[index].lock);
	zram->table[index].ac_time = time;
}

static ktime_t zram_slot_get_actime(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	return zram->table[index].ac_time;
}

static ktime_t zram_now(void)
{
	return ktime_get_boottime();
}
#else
static void zram_slot_set_actime(struct zram *zram, u32 index, ktime_t time)
{
}

static ktime_t zram_slot_get_actime(struct zram *zram, u32 index)
{
	return 0;
}

static ktime_t zram_now(void)
{
	return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* Slot contents                                                      */
/* ------------------------------------------------------------------ */

/**
 * zram_slot_accessed() - record an access to a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Clears ZRAM_IDLE and stamps the access time.
 *
 * Context: slot lock held; never sleeps.
 */
void zram_slot_accessed(struct zram *zram, u32 index)
{
	lockdep_assert_held(&zram->table[index].lock);
	zram_clear_flag(zram, index, ZRAM_IDLE);
	zram_slot_set_actime(zram, index, zram_now());
}

/**
 * zram_slot_free_stored() - release the storage of an allocated slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units); zram_slot_allocated() is true
 *
 * Gives back the backing device block, the same-filled count, or the
 * zsmalloc object and its compr_data_size bytes. Flags, handle and
 * pages_stored are left to zram_slot_free().
 *
 * Context: slot lock held (task context); never sleeps.
 */
static void zram_slot_free_stored(struct zram *zram, u32 index)
{
	unsigned long handle = zram_get_handle(zram, index);

	if (zram_test_flag(zram, index, ZRAM_WB)) {
		zram_wb_free_block(zram, handle);
		return;
	}
	if (zram_test_flag(zram, index, ZRAM_SAME)) {
		atomic64_dec(&zram->stats.same_pages);
		return;
	}
	zs_free(zram->mem_pool, handle);
	atomic64_sub(zram_get_obj_size(zram, index),
		     &zram->stats.compr_data_size);
}

/**
 * zram_slot_free() - release whatever a slot holds
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 *
 * Frees the zsmalloc object or the backing device block, fixes the
 * statistics, and leaves the slot empty: handle 0, no flags (this drops a
 * pending writeback selection, ZRAM_PP_SLOT), access time 0. An empty slot
 * is left alone.
 *
 * Context: slot lock held (task context); never sleeps.
 */
void zram_slot_free(struct zram *zram, u32 index)
{
	bool allocated;

	lockdep_assert_held(&zram->table[index].lock);
	allocated = zram_slot_allocated(zram, index);
	/* A huge slot counts even if writeback ever kept the flag. */
	if (zram_test_flag(zram, index, ZRAM_HUGE))
		atomic64_dec(&zram->stats.huge_pages);
	if (allocated) {
		zram_slot_free_stored(zram, index);
		atomic64_dec(&zram->stats.pages_stored);
	}
	zram->table[index].flags = 0;
	zram_set_handle(zram, index, 0);
	zram_slot_set_actime(zram, index, 0);
}

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

	src = zs_map_object(zram->mem_pool, handle, ZS_MM_RO);
	dst = kmap_local_page(page);
	copy_page(dst, src);
	kunmap_local(dst);
	zs_unmap_object(zram->mem_pool, handle);
}

/**
 * zram_read_compressed() - decompress a zsmalloc object into a page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @handle: zsmalloc handle of the slot
 * @size: size of the object in bytes
 *
 * Context: slot lock held; takes this CPU's compression stream; never
 * sleeps; nowait-safe.
 * Return: 0, or the decompressor's negative errno (-EIO on short output).
 */
static int zram_read_compressed(struct zram *zram, struct page *page,
				unsigned long handle, unsigned int size)
{
	struct zcomp_strm *zstrm;
	void *src, *dst;
	int ret;

	zstrm = zcomp_stream_get(zram->comp);
	src = zs_map_object(zram->mem_pool, handle, ZS_MM_RO);
	dst = kmap_local_page(page);
	ret = zcomp_decompress(zstrm, src, size, dst);
	kunmap_local(dst);
	zs_unmap_object(zram->mem_pool, handle);
	zcomp_stream_put(zram->comp);
	return ret;
}

/**
 * zram_slot_read_from_ram() - uncompress a slot's data into a page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units); must not be ZRAM_WB
 *
 * An empty slot reads as zeroes.
 *
 * Context: slot lock held; never sleeps; nowait-safe.
 * Return: 0, or -EIO (or the decompressor's errno) on corrupt data.
 */
int zram_slot_read_from_ram(struct zram *zram, struct page *page, u32 index)
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
				   zram_get_obj_size(zram, index));
	if (ret)
		pr_err_ratelimited("%s: decompression of slot %u failed: %d\n",
				   zram->disk->disk_name, index, ret);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Write path: prepare the new contents, then commit under the lock   */
/* ------------------------------------------------------------------ */

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
	void *dst, *src;

	lockdep_assert_held(&zstrm->lock);
	dst = zs_map_object(zram->mem_pool, obj->handle, ZS_MM_WO);
	if (obj->size == PAGE_SIZE) {
		src = kmap_local_page(page);
		copy_page(dst, src);
		kunmap_local(src);
	} else {
		memcpy(dst, zstrm->buffer, obj->size);
	}
	zs_unmap_object(zram->mem_pool, obj->handle);
}

/**
 * zram_obj_alloc_blocking() - allocate an object, allowed to reclaim
 * @zram: device
 * @size: object size in bytes
 *
 * For a blocking bio after the GFP_NOWAIT allocation failed; counts a
 * writestall.
 *
 * Context: task context, no stream held, not for REQ_NOWAIT; may sleep.
 * Return: the zsmalloc handle, or an error value (IS_ERR_VALUE()).
 */
static unsigned long zram_obj_alloc_blocking(struct zram *zram,
					     unsigned int size)
{
	atomic64_inc(&zram->stats.writestall);
	return zs_malloc(zram->mem_pool, size, ZRAM_GFP_OBJ_BLOCKING);
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

	zstrm = zcomp_stream_get(zram->comp);
	ret = zram_compress(zram, zstrm, page, &obj->size);
	if (ret)
		goto out_put_stream;
	handle = zs_malloc(zram->mem_pool, obj->size, ZRAM_GFP_OBJ_NOWAIT);
	if (IS_ERR_VALUE(handle)) {
		ret = -EAGAIN;
		goto out_put_stream;
	}
	obj->handle = handle;
	zram_obj_fill(zram, zstrm, page, obj);
	zcomp_stream_put(zram->comp);
	return 0;

out_put_stream:
	zcomp_stream_put(zram->comp);
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

	zstrm = zcomp_stream_get(zram->comp);
	ret = zram_compress(zram, zstrm, page, &obj->size);
	if (!ret && obj->size > alloc_size)
		ret = -E2BIG;
	if (!ret) {
		obj->handle = handle;
		zram_obj_fill(zram, zstrm, page, obj);
	}
	zcomp_stream_put(zram->comp);
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
		handle = zram_obj_alloc_blocking(zram, alloc_size);
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
static int zram_obj_prepare(struct zram *zram, struct page *page,
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

/* Drop a prepared object that was not committed. */
static void zram_obj_discard(struct zram *zram, const struct zram_obj *obj)
{
	if (!obj->same)
		zs_free(zram->mem_pool, obj->handle);
}

/**
 * zram_slot_install() - commit prepared contents to a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @obj: contents from zram_obj_prepare(); owned by the slot afterwards
 *
 * Frees the old contents (dropping a writeback selection), stores @obj,
 * updates the statistics and records the access.
 *
 * Context: slot lock held; never sleeps.
 */
static void zram_slot_install(struct zram *zram, u32 index,
			      const struct zram_obj *obj)
{
	lockdep_assert_held(&zram->table[index].lock);
	zram_slot_free(zram, index);
	zram_set_handle(zram, index, obj->handle);
	if (obj->same) {
		zram_set_flag(zram, index, ZRAM_SAME);
		atomic64_inc(&zram->stats.same_pages);
	} else {
		zram_set_obj_size(zram, index, obj->size);
		atomic64_add(obj->size, &zram->stats.compr_data_size);
	}
	if (!obj->same && obj->size == PAGE_SIZE) {
		zram_set_flag(zram, index, ZRAM_HUGE);
		atomic64_inc(&zram->stats.huge_pages);
		atomic64_inc(&zram->stats.huge_pages_since);
	}
	atomic64_inc(&zram->stats.pages_stored);
	zram_slot_accessed(zram, index);
}

/**
 * zram_write_page() - store one full page into a slot
 * @zram: device
 * @page: data, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units)
 * @nowait: the bio has REQ_NOWAIT
 *
 * Everything that can fail is done before the slot lock is taken, so on
 * failure the slot still holds its old data.
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait would block; nothing changed), -ENOMEM, -EIO.
 */
static int zram_write_page(struct zram *zram, struct page *page, u32 index,
			   bool nowait)
{
	struct zram_obj obj = {};
	int ret;

	ret = zram_obj_prepare(zram, page, nowait, &obj);
	if (ret)
		return ret;
	if (!zram_slot_lock_io(zram, index, nowait)) {
		zram_obj_discard(zram, &obj);
		return -EAGAIN;
	}
	zram_slot_install(zram, index, &obj);
	zram_slot_unlock(zram, index);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Read path                                                          */
/* ------------------------------------------------------------------ */

/**
 * zram_read_page() - read one slot into a full page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units)
 * @parent: bio to chain a backing device read to; NULL for a synchronous
 *	backing device read
 * @nowait: the bio has REQ_NOWAIT
 *
 * Context: task context; sleeps only for a synchronous backing device
 * read, which is refused with @nowait.
 * Return: 0, -EAGAIN (@nowait would block; nothing changed), or -EIO etc.
 */
static int zram_read_page(struct zram *zram, struct page *page, u32 index,
			  struct bio *parent, bool nowait)
{
	unsigned long block;
	int ret, pin;

	if (!zram_slot_lock_io(zram, index, nowait))
		return -EAGAIN;
	if (!zram_test_flag(zram, index, ZRAM_WB)) {
		ret = zram_slot_read_from_ram(zram, page, index);
		zram_slot_unlock(zram, index);
		return ret;
	}
	if (nowait && !parent) {
		zram_slot_unlock(zram, index);
		return -EAGAIN;
	}
	/*
	 * Once unlocked, a write or discard of this sector may free the
	 * block. The pin, taken before the unlock and so before any such
	 * free, keeps a writeback from handing the block to another slot
	 * until zram_wb_read() has completed and dropped the pin: the read
	 * returns this slot's old data, never another slot's.
	 */
	block = zram_get_handle(zram, index);
	pin = zram_wb_read_pin(zram);
	zram_slot_unlock(zram, index);
	return zram_wb_read(zram, page, block, pin, parent, nowait);
}

static gfp_t zram_io_gfp(bool nowait)
{
	return nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_NOIO;
}

static bool zram_bvec_partial(const struct bio_vec *bv)
{
	return bv->bv_len != PAGE_SIZE;
}

/**
 * zram_bvec_read_partial() - read part of a slot through a bounce page
 * @zram: device
 * @bv: destination, shorter than PAGE_SIZE
 * @index: slot index (PAGE_SIZE units)
 * @offset: offset of @bv in the slot, in bytes
 * @nowait: the bio has REQ_NOWAIT
 *
 * Context: task context; sleeps only when !@nowait (bounce page, and a
 * synchronous backing device read).
 * Return: 0, -EAGAIN (@nowait would block; nothing changed), -ENOMEM,
 * or zram_read_page()'s errno.
 */
static int zram_bvec_read_partial(struct zram *zram, struct bio_vec *bv,
				  u32 index, u32 offset, bool nowait)
{
	struct page *page = alloc_page(zram_io_gfp(nowait));
	int ret;

	if (!page)
		return nowait ? -EAGAIN : -ENOMEM;
	ret = zram_read_page(zram, page, index, NULL, nowait);
	if (!ret)
		memcpy_to_bvec(bv, page_address(page) + offset);
	__free_page(page);
	return ret;
}

/**
 * zram_bvec_write_partial() - read, modify and write back part of a slot
 * @zram: device
 * @bv: data, shorter than PAGE_SIZE
 * @index: slot index (PAGE_SIZE units)
 * @offset: offset of @bv in the slot, in bytes
 * @nowait: the bio has REQ_NOWAIT
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait would block; nothing changed), -ENOMEM,
 * or the errno of the read or the write.
 */
static int zram_bvec_write_partial(struct zram *zram, struct bio_vec *bv,
				   u32 index, u32 offset, bool nowait)
{
	struct page *page = alloc_page(zram_io_gfp(nowait));
	int ret;

	if (!page)
		return nowait ? -EAGAIN : -ENOMEM;
	/*
	 * Race tolerated: the slot is unlocked between the read and the
	 * write, so two concurrent partial writes to different parts of one
	 * slot may lose one of them. The block layer promises nothing for
	 * concurrent writes within one logical block either, and with 4 KiB
	 * logical blocks on 4 KiB pages a partial bvec only splits one block
	 * across two memory pages of the same bio, processed in order.
	 */
	ret = zram_read_page(zram, page, index, NULL, nowait);
	if (!ret) {
		memcpy_from_bvec(page_address(page) + offset, bv);
		ret = zram_write_page(zram, page, index, nowait);
	}
	__free_page(page);
	return ret;
}

/**
 * zram_slot_touch() - record a successful read of a slot
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @nowait: the bio has REQ_NOWAIT
 *
 * Called once the read succeeded (for a written-back slot: once the
 * backing device read was issued), so that a read refused with -EAGAIN
 * leaves the slot untouched.
 *
 * Context: task context; spins unless @nowait; never sleeps.
 */
static void zram_slot_touch(struct zram *zram, u32 index, bool nowait)
{
	/*
	 * Race tolerated: a REQ_NOWAIT bio does not wait for a busy slot;
	 * the update is skipped and the slot only looks older to idle
	 * marking than it is.
	 */
	if (!zram_slot_lock_io(zram, index, nowait))
		return;
	zram_slot_accessed(zram, index);
	zram_slot_unlock(zram, index);
}

/**
 * zram_bvec_read() - read one bvec, at most one slot
 * @zram: device
 * @bv: destination, within one slot
 * @index: slot index (PAGE_SIZE units)
 * @offset: offset of @bv in the slot, in bytes
 * @bio: the bio; a full-page read of a ZRAM_WB slot is chained to it
 * @nowait: serve it without blocking (REQ_NOWAIT, not yet handed over)
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait would block; nothing was done), or -errno.
 */
static int zram_bvec_read(struct zram *zram, struct bio_vec *bv, u32 index,
			  u32 offset, struct bio *bio, bool nowait)
{
	int ret;

	if (zram_bvec_partial(bv))
		ret = zram_bvec_read_partial(zram, bv, index, offset, nowait);
	else
		ret = zram_read_page(zram, bv->bv_page, index, bio, nowait);
	if (!ret)
		zram_slot_touch(zram, index, nowait);
	return ret;
}

/**
 * zram_bvec_write() - write one bvec, at most one slot
 * @zram: device
 * @bv: data, within one slot
 * @index: slot index (PAGE_SIZE units)
 * @offset: offset of @bv in the slot, in bytes
 * @nowait: serve it without blocking (REQ_NOWAIT, not yet handed over)
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait would block; slot unchanged), or -errno.
 */
static int zram_bvec_write(struct zram *zram, struct bio_vec *bv, u32 index,
			   u32 offset, bool nowait)
{
	if (zram_bvec_partial(bv))
		return zram_bvec_write_partial(zram, bv, index, offset, nowait);
	return zram_write_page(zram, bv->bv_page, index, nowait);
}

/**
 * zram_bvec_discard() - free one slot of a discard or write-zeroes range
 * @zram: device
 * @index: slot index (PAGE_SIZE units)
 * @offset: offset of the range in the slot, in bytes
 * @len: bytes of the range in this slot
 * @nowait: serve it without blocking (REQ_NOWAIT, not yet handed over)
 *
 * Only a slot the range covers completely is freed. A partly covered slot
 * keeps its data: with 4 KiB logical blocks on 4 KiB pages that cannot
 * happen, and where it can (bigger pages) write-zeroes is not advertised.
 *
 * Context: task context; spins on the slot lock unless @nowait.
 * Return: 0, or -EAGAIN (@nowait and the slot is busy; slot unchanged).
 */
static int zram_bvec_discard(struct zram *zram, u32 index, u32 offset,
			     u32 len, bool nowait)
{
	if (offset || len != PAGE_SIZE)
		return 0;
	if (!zram_slot_lock_io(zram, index, nowait))
		return -EAGAIN;
	zram_slot_free(zram, index);
	zram_slot_unlock(zram, index);
	atomic64_inc(&zram->stats.notify_free);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Bio handling                                                       */
/* ------------------------------------------------------------------ */

/*
 * Nowait contract. zram sets BLK_FEAT_NOWAIT. A REQ_NOWAIT bio is served
 * step by step (a step is one bvec within one slot, or one slot of a
 * discard) without sleeping: slot locks are only tried, memory comes from
 * GFP_NOWAIT, a written-back slot is read by a REQ_NOWAIT backing device
 * bio chained to ours, and anything else that would block (a synchronous
 * backing device read for partial I/O, a backing device without nowait
 * support) makes the step fail with -EAGAIN before it does anything.
 *
 * BLK_STS_AGAIN is only given back from zram_submit_bio(), before the
 * first step changed a slot or issued a read: the submitter then sees the
 * device exactly as it was and may reissue the bio from a context that can
 * block. Once a step is done, the bio never ends with BLK_STS_AGAIN: the
 * steps left are handed to a worker (struct zram_bio_rest) that serves
 * them blocking, and a chained backing device read that ends with
 * BLK_STS_AGAIN is issued again, blocking, by the writeback code's worker
 * (zram_wb_read()). A completion may run in interrupt context, where
 * io_uring cannot reissue anything.
 */

/*
 * Workers that finish REQ_NOWAIT bios. WQ_MEM_RECLAIM: a bio that has
 * started must complete even when no new worker can be created.
 */
static struct workqueue_struct *zram_bio_wq;

/**
 * struct zram_bio_rest - the steps of a REQ_NOWAIT bio left to a worker
 * @work: runs zram_bio_rest_fn() on zram_bio_wq
 * @zram: the device
 * @bio: the bio, ended by the worker
 * @iter: the first step not done
 * @start: bio_start_io_acct() time of @bio
 *
 * Allocated before a REQ_NOWAIT bio of several steps does its first one,
 * so that handing over never needs memory; freed by the submitter when no
 * hand-over was needed, else by the worker.
 */
struct zram_bio_rest {
	struct work_struct work;
	struct zram *zram;
	struct bio *bio;
	struct bvec_iter iter;
	unsigned long start;
};

/* Current bvec of @iter, clipped to the slot it starts in. */
static struct bio_vec zram_iter_bvec(struct bio *bio, struct bvec_iter iter,
				     u32 *index, u32 *offset)
{
	struct bio_vec bv = { };

	*index = iter.bi_sector >> SECTORS_PER_PAGE_SHIFT;
	*offset = (iter.bi_sector & (SECTORS_PER_PAGE - 1)) << SECTOR_SHIFT;
	if (bio_has_data(bio))
		bv = bio_iter_iovec(bio, iter);
	else
		bv.bv_len = iter.bi_size;
	bv.bv_len = min_t(u32, bv.bv_len, PAGE_SIZE - *offset);
	return bv;
}

/**
 * zram_bio_step() - serve the step at @iter and move @iter past it
 * @zram: device
 * @bio: read, write, discard or write-zeroes bio
 * @iter: position in @bio; advanced only when the step succeeded
 * @nowait: serve it without blocking
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0, -EAGAIN (@nowait would block; the step did nothing), or
 * -errno.
 */
static int zram_bio_step(struct zram *zram, struct bio *bio,
			 struct bvec_iter *iter, bool nowait)
{
	u32 index, offset;
	struct bio_vec bv = zram_iter_bvec(bio, *iter, &index, &offset);
	int ret;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		ret = zram_bvec_read(zram, &bv, index, offset, bio, nowait);
		if (!ret)
			flush_dcache_page(bv.bv_page);
		break;
	case REQ_OP_WRITE:
		ret = zram_bvec_write(zram, &bv, index, offset, nowait);
		break;
	default:	/* discard, write-zeroes */
		ret = zram_bvec_discard(zram, index, offset, bv.bv_len, nowait);
		break;
	}
	if (!ret)
		bio_advance_iter_single(bio, iter, bv.bv_len);
	return ret;
}

/**
 * zram_bio_serve() - serve the steps of a bio from @iter on
 * @zram: device
 * @bio: the bio
 * @iter: first step to serve; on return, the step that failed
 * @nowait: serve them without blocking
 *
 * Context: task context; sleeps only when !@nowait.
 * Return: 0 when every step is done, else the failed step's errno.
 */
static int zram_bio_serve(struct zram *zram, struct bio *bio,
			  struct bvec_iter *iter, bool nowait)
{
	int ret;

	while (iter->bi_size) {
		ret = zram_bio_step(zram, bio, iter, nowait);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * zram_bio_end() - account and end a bio
 * @zram: device
 * @bio: the bio
 * @start: its bio_start_io_acct() time
 * @ret: 0, or the errno of the step that failed
 *
 * -EAGAIN ends it with BLK_STS_AGAIN (only the submitter passes it, see
 * the nowait contract); other errors end it with BLK_STS_IOERR and count
 * in failed_reads or failed_writes.
 *
 * Context: any task context; never sleeps.
 */
static void zram_bio_end(struct zram *zram, struct bio *bio,
			 unsigned long start, int ret)
{
	bio_end_io_acct(bio, start);
	if (ret == -EAGAIN && (bio->bi_opf & REQ_NOWAIT)) {
		bio_wouldblock_error(bio);
		return;
	}
	if (ret) {
		if (op_is_write(bio_op(bio)))
			atomic64_inc(&zram->stats.failed_writes);
		else
			atomic64_inc(&zram->stats.failed_reads);
		bio->bi_status = BLK_STS_IOERR;
	}
	bio_endio(bio);
}

/*
 * Serves the steps a REQ_NOWAIT bio left, blocking, and ends the bio.
 * zram_bio_wq worker: process context, may sleep.
 */
static void zram_bio_rest_fn(struct work_struct *work)
{
	struct zram_bio_rest *rest =
		container_of(work, struct zram_bio_rest, work);
	int ret;

	ret = zram_bio_serve(rest->zram, rest->bio, &rest->iter, false);
	/* Blocking steps never fail with -EAGAIN. */
	if (WARN_ON_ONCE(ret == -EAGAIN))
		ret = -EIO;
	zram_bio_end(rest->zram, rest->bio, rest->start, ret);
	kfree(rest);
}

/*
 * True when @bio takes more than one step, so that a later step may find
 * the device changed by an earlier one.
 */
static bool zram_bio_multi_step(struct bio *bio)
{
	u32 index, offset;
	struct bio_vec bv = zram_iter_bvec(bio, bio->bi_iter, &index, &offset);

	return bv.bv_len < bio->bi_iter.bi_size;
}

/**
 * zram_submit_bio() - serve a bio
 * @bio: read, write, discard or write-zeroes bio
 *
 * Context: task context (submit_bio); sleeps only without REQ_NOWAIT, see
 * the nowait contract above.
 */
static void zram_submit_bio(struct bio *bio)
{
	struct zram *zram = bio->bi_bdev->bd_disk->private_data;
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct bvec_iter iter = bio->bi_iter;
	struct zram_bio_rest *rest = NULL;
	unsigned long start;
	int ret;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		WARN_ON_ONCE(1);
		bio_endio(bio);
		return;
	}
	if (nowait && zram_bio_multi_step(bio)) {
		rest = kmalloc(sizeof(*rest), GFP_NOWAIT | __GFP_NOWARN);
		if (!rest) {
			bio_wouldblock_error(bio);
			return;
		}
	}
	start = bio_start_io_acct(bio);
	ret = zram_bio_serve(zram, bio, &iter, nowait);
	if (ret == -EAGAIN && iter.bi_size != bio->bi_iter.bi_size) {
		/* A step was done: finish blocking, never fail with AGAIN. */
		INIT_WORK(&rest->work, zram_bio_rest_fn);
		rest->zram = zram;
		rest->bio = bio;
		rest->iter = iter;
		rest->start = start;
		queue_work(zram_bio_wq, &rest->work);
		return;
	}
	kfree(rest);
	zram_bio_end(zram, bio, start, ret);
}

/**
 * zram_slot_free_notify() - swap no longer uses a slot: free it
 * @bdev: the zram block device
 * @index: slot index (PAGE_SIZE units; a swap entry offset)
 *
 * Context: called by swap with its own spinlock held; never sleeps and
 * never spins on a busy slot.
 */
static void zram_slot_free_notify(struct block_device *bdev,
				  unsigned long index)
{
	struct zram *zram = bdev->bd_disk->private_data;

	atomic64_inc(&zram->stats.notify_free);
	/*
	 * Race tolerated: a busy slot is left alone. The missed free only
	 * delays reclaiming it until it is overwritten; miss_free counts
	 * those.
	 */
	if (!zram_slot_trylock(zram, index)) {
		atomic64_inc(&zram->stats.miss_free);
		return;
	}
	zram_slot_free(zram, index);
	zram_slot_unlock(zram, index);
}

/**
 * zram_open() - refuse opens while reset or removal owns the device
 * @disk: the gendisk
 * @mode: open mode (unused)
 *
 * Context: process context, disk->open_mutex held.
 * Return: 0, or -EBUSY while @claim is set.
 */
static int zram_open(struct gendisk *disk, blk_mode_t mode)
{
	struct zram *zram = disk->private_data;

	lockdep_assert_held(&disk->open_mutex);
	return zram->claim ? -EBUSY : 0;
}

static const struct block_device_operations zram_devops = {
	.open = zram_open,
	.submit_bio = zram_submit_bio,
	.swap_slot_free_notify = zram_slot_free_notify,
	.owner = THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* Initialization and reset                                           */
/* ------------------------------------------------------------------ */

/**
 * zram_table_alloc() - allocate an empty slot table
 * @nr_slots: number of slots (PAGE_SIZE units)
 *
 * Context: process context; may sleep.
 * Return: the table with every slot lock initialized, or NULL.
 */
static struct zram_table_entry *zram_table_alloc(unsigned long nr_slots)
{
	struct zram_table_entry *table;
	unsigned long index;

	/* A size the machine cannot hold is the admin's error, not ours. */
	table = __vmalloc(array_size(nr_slots, sizeof(*table)),
			  GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!table)
		return NULL;
	for (index = 0; index < nr_slots; index++) {
		spin_lock_init(&table[index].lock);
		/* Up to 4G entries: let others run now and then. */
		if (!(index % SZ_64K))
			cond_resched();
	}
	return table;
}

/**
 * zram_free_all_slots() - empty every slot of an initialized device
 * @zram: device; no I/O in flight
 *
 * Gives the zsmalloc objects and backing device blocks back.
 *
 * Context: process context, init_lock held for write; may sleep.
 */
static void zram_free_all_slots(struct zram *zram)
{
	unsigned long nr_slots = zram->disksize >> PAGE_SHIFT;
	unsigned long index;

	lockdep_assert_held_write(&zram->init_lock);
	for (index = 0; index < nr_slots; index++) {
		zram_slot_lock(zram, index);
		zram_slot_free(zram, index);
		zram_slot_unlock(zram, index);
		cond_resched();
	}
}

/**
 * zram_init_device() - allocate the slots, pool and compressor
 * @zram: device, not initialized
 * @nr_slots: device size in slots (PAGE_SIZE units), 1 to U32_MAX
 *
 * Context: process context, init_lock held for write; may sleep.
 * Return: 0, -ENOMEM, or the compressor's errno.
 */
static int zram_init_device(struct zram *zram, u32 nr_slots)
{
	u64 disksize = (u64)nr_slots << PAGE_SHIFT;
	struct zram_table_entry *table;
	struct zs_pool *pool;
	struct zcomp *comp;
	int ret = -ENOMEM;

	lockdep_assert_held_write(&zram->init_lock);
	table = zram_table_alloc(nr_slots);
	if (!table)
		return -ENOMEM;
	pool = zs_create_pool(zram->disk->disk_name);
	if (!pool)
		goto out_free_table;
	comp = zcomp_create(zram->comp_name);
	if (IS_ERR(comp)) {
		pr_err("cannot initialise %s compressor\n", zram->comp_name);
		ret = PTR_ERR(comp);
		goto out_destroy_pool;
	}

	zram->table = table;
	zram->mem_pool = pool;
	zram->comp = comp;
	zram->huge_class_size = zs_huge_class_size(pool);
	zram->disksize = disksize;
	set_capacity_and_notify(zram->disk, disksize >> SECTOR_SHIFT);
	return 0;

out_destroy_pool:
	zs_destroy_pool(pool);
out_free_table:
	vfree(table);
	return ret;
}

/**
 * zram_reset_device() - return a device to the uninitialized state
 * @zram: device; no I/O in flight (claimed and synced, or being removed)
 *
 * Frees all slots, the pool, the table and the compressor, releases the
 * backing device, restores the default algorithm and zeroes all stats.
 * Waits for a running writeback first, without holding init_lock, so the
 * statistics stay readable meanwhile.
 *
 * Context: process context; may sleep. Takes zram_wb.lock, then init_lock
 * for write.
 */
static void zram_reset_device(struct zram *zram)
{
	guard(zram_wb)(&zram->wb);
	guard(rwsem_write)(&zram->init_lock);

	zram->limit_pages = 0;
	set_capacity_and_notify(zram->disk, 0);
	part_stat_set_all(zram->disk->part0, 0);

	if (zram_init_done(zram)) {
		zram_free_all_slots(zram);
		zcomp_destroy(zram->comp);
		zs_destroy_pool(zram->mem_pool);
		vfree(zram->table);
	}
	zram->comp = NULL;
	zram->mem_pool = NULL;
	zram->table = NULL;
	zram->disksize = 0;
	zram->comp_name = zram_default_comp;
	zram_wb_reset(zram);
	memset(&zram->stats, 0, sizeof(zram->stats));
}

/* ------------------------------------------------------------------ */
/* Sysfs: device attributes                                           */
/* ------------------------------------------------------------------ */

static ssize_t initstate_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return sysfs_emit(buf, "%u\n", zram_init_done(zram));
}

static ssize_t disksize_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return sysfs_emit(buf, "%llu\n", zram->disksize);
}

/*
 * Bytes to whole pages, rounded up, for any u64 (PAGE_ALIGN() would wrap
 * near U64_MAX and turn a huge size into 0).
 */
static u64 zram_bytes_to_pages(u64 bytes)
{
	return (bytes >> PAGE_SHIFT) + !!(bytes & ~PAGE_MASK);
}

/**
 * zram_parse_bytes() - parse a size in memparse() syntax, without wrapping
 * @buf: a number (decimal, 0x hex or 0 octal) and an optional K, M, G, T,
 *	P or E suffix; what follows is ignored, as memparse() does
 * @bytes: out: the size in bytes
 *
 * memparse() silently wraps a number or a shifted suffix past U64_MAX
 * ("17179869185G" would be 1 GiB); here both are refused.
 *
 * Context: any context.
 * Return: 0, or -EINVAL for no number or a size beyond U64_MAX.
 */
static int zram_parse_bytes(const char *buf, u64 *bytes)
{
	static const char suffixes[] = "KMGTPE";
	const char *sfx = NULL;
	char digits[32];
	size_t n = 0;
	u64 val;

	/* Where the number ends; kstrtoull() then checks its value. */
	if (buf[0] == '0' && tolower(buf[1]) == 'x')
		for (n = 2; isxdigit(buf[n]); n++)
			;
	else
		while (isdigit(buf[n]))
			n++;
	if (!n || n >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, buf, n);
	digits[n] = '\0';
	if (kstrtoull(digits, 0, &val))
		return -EINVAL;
	if (buf[n])
		sfx = strchr(suffixes, toupper(buf[n]));
	if (sfx) {
		unsigned int shift = 10 * (sfx - suffixes + 1);

		if (val > U64_MAX >> shift)
			return -EINVAL;
		val <<= shift;
	}
	*bytes = val;
	return 0;
}

/**
 * disksize_store() - initialize the device with a size
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: size in bytes, see zram_parse_bytes(); rounded up to whole pages
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for write; may sleep.
 * Return: @len; -EINVAL for a size of 0, no number, or more slots than a
 * u32 slot index can address (16 TiB with 4 KiB pages); -EBUSY when
 * already initialized; -ENOMEM or the compressor's errno (nothing is
 * kept).
 */
static ssize_t disksize_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	u64 bytes, nr_slots;
	int ret;

	if (zram_parse_bytes(buf, &bytes))
		return -EINVAL;
	nr_slots = zram_bytes_to_pages(bytes);
	if (!nr_slots || nr_slots > U32_MAX)
		return -EINVAL;

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram)) {
		pr_info("cannot change disksize for initialized device\n");
		return -EBUSY;
	}
	ret = zram_init_device(zram, nr_slots);
	return ret ? ret : len;
}

/**
 * zram_claim() - take exclusive ownership of a closed device
 * @zram: device
 *
 * Context: process context; takes disk->open_mutex; may sleep.
 * Return: true when @zram->claim was set by us; false when the disk is
 * open or already claimed.
 */
static bool zram_claim(struct zram *zram)
{
	struct gendisk *disk = zram->disk;

	guard(mutex)(&disk->open_mutex);
	if (disk_openers(disk) || zram->claim)
		return false;
	zram->claim = true;
	return true;
}

/**
 * zram_unclaim() - give up the ownership taken by zram_claim()
 * @zram: device
 *
 * Context: process context; takes disk->open_mutex; may sleep.
 */
static void zram_unclaim(struct zram *zram)
{
	guard(mutex)(&zram->disk->open_mutex);
	zram->claim = false;
}

/**
 * reset_store() - free all data and return to the uninitialized state
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: non-zero decimal number (u16)
 * @len: length of @buf
 *
 * Context: process context; may sleep.
 * Return: @len; kstrtou16()'s errno (-EINVAL, -ERANGE) for bad input,
 * -EINVAL for 0, -EBUSY when the device is open or being reset or removed.
 */
static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	u16 do_reset;
	int ret;

	ret = kstrtou16(buf, 10, &do_reset);
	if (ret)
		return ret;
	if (!do_reset)
		return -EINVAL;

	/* Open or being reset/removed by someone else: refuse. */
	if (!zram_claim(zram))
		return -EBUSY;
	/* Nobody can open the disk now; flush what earlier users left. */
	sync_blockdev(zram->disk->part0);
	zram_reset_device(zram);
	zram_unclaim(zram);
	return len;
}

/**
 * mem_limit_store() - set the cap on the memory used by the pool
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: limit in bytes, see zram_parse_bytes(); rounded up to whole
 *	pages, at most ULONG_MAX bytes; 0 removes the cap
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for write; may sleep.
 * Return: @len, or -EINVAL when @buf holds no number or one beyond
 * U64_MAX.
 */
static ssize_t mem_limit_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	u64 limit;

	if (zram_parse_bytes(buf, &limit))
		return -EINVAL;

	guard(rwsem_write)(&zram->init_lock);
	/* Clamped so that mm_stat's byte count of it cannot wrap either. */
	WRITE_ONCE(zram->limit_pages,
		   min_t(u64, zram_bytes_to_pages(limit),
			 ULONG_MAX >> PAGE_SHIFT));
	return len;
}

/**
 * mem_used_max_store() - restart the peak pool size from the current size
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: "0", the only accepted value
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for read; may sleep.
 * Return: @len, or -EINVAL for any other input.
 */
static ssize_t mem_used_max_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	unsigned long val;

	if (kstrtoul(buf, 10, &val) || val != 0)
		return -EINVAL;

	guard(rwsem_read)(&zram->init_lock);
	if (zram_init_done(zram))
		atomic_long_set(&zram->stats.max_used_pages,
				zs_get_total_pages(zram->mem_pool));
	return len;
}

/**
 * zram_mark_idle() - set or clear ZRAM_IDLE by access time
 * @zram: device, initialized
 * @cutoff: boottime; slots not accessed since then become idle, the others
 *	lose the mark; 0 marks every slot idle
 *
 * Same-filled slots have nothing to write back, written-back slots are
 * already out, and slots selected by a running writeback (ZRAM_PP_SLOT)
 * are left to it, so none of those is touched.
 *
 * Context: process context, init_lock held for read; may sleep.
 */
static void zram_mark_idle(struct zram *zram, ktime_t cutoff)
{
	unsigned long nr_slots = zram->disksize >> PAGE_SHIFT;
	unsigned long index;

	lockdep_assert_held_read(&zram->init_lock);
	for (index = 0; index < nr_slots; index++) {
		zram_slot_lock(zram, index);
		if (zram_slot_allocated(zram, index) &&
		    !zram_test_flag(zram, index, ZRAM_WB) &&
		    !zram_test_flag(zram, index, ZRAM_PP_SLOT) &&
		    !zram_test_flag(zram, index, ZRAM_SAME)) {
			ktime_t actime = zram_slot_get_actime(zram, index);

			if (!cutoff || ktime_after(cutoff, actime))
				zram_set_flag(zram, index, ZRAM_IDLE);
			else
				zram_clear_flag(zram, index, ZRAM_IDLE);
		}
		zram_slot_unlock(zram, index);
		cond_resched();
	}
}

/**
 * zram_parse_idle() - parse the idle attribute
 * @buf: "all", or an age in seconds (only with access time tracking)
 * @cutoff: out: 0 for "all", else the boottime @buf seconds ago; an age
 *	at or beyond the uptime gives 1 ns after boot, before every access
 *	time, so no slot is idle for that long
 *
 * Context: any context.
 * Return: 0, or -EINVAL for anything else.
 */
static int zram_parse_idle(const char *buf, ktime_t *cutoff)
{
	u64 now = ktime_get_boottime_ns();
	u64 age_sec;

	*cutoff = 0;
	if (sysfs_streq(buf, "all"))
		return 0;
	if (!IS_ENABLED(CONFIG_ZRAM_TRACK_ENTRY_ACTIME) ||
	    kstrtoull(buf, 0, &age_sec))
		return -EINVAL;
	/* Compare in seconds first: age_sec * NSEC_PER_SEC may wrap. */
	if (age_sec >= div_u64(now, NSEC_PER_SEC))
		*cutoff = 1;
	else
		*cutoff = ns_to_ktime(now - age_sec * NSEC_PER_SEC);
	return 0;
}

/**
 * idle_store() - mark slots idle for writeback
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: see zram_parse_idle()
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for read; may sleep.
 * Return: @len, or -EINVAL for bad input or an uninitialized device.
 */
static ssize_t idle_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	ktime_t cutoff;

	if (zram_parse_idle(buf, &cutoff))
		return -EINVAL;

	guard(rwsem_read)(&zram->init_lock);
	if (!zram_init_done(zram))
		return -EINVAL;
	zram_mark_idle(zram, cutoff);
	return len;
}

/*
 * Kept for compatibility: streams are per CPU, so the value is reported
 * as the number of online CPUs and writes are accepted and ignored.
 */
static ssize_t max_comp_streams_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", num_online_cpus());
}

static ssize_t max_comp_streams_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	return len;
}

static ssize_t comp_algorithm_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return zcomp_available_show(zram->comp_name, buf, 0);
}

/**
 * comp_algorithm_store() - select the compression algorithm
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: algorithm name as listed by comp_algorithm
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for write; may sleep.
 * Return: @len; -E2BIG for a name of CRYPTO_MAX_ALG_NAME bytes or more,
 * -EINVAL for an unknown or unavailable algorithm, -EBUSY when the device
 * is initialized.
 */
static ssize_t comp_algorithm_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	const char *name;

	if (strlen(buf) >= CRYPTO_MAX_ALG_NAME)
		return -E2BIG;
	name = zcomp_lookup_algorithm(buf);
	if (!name)
		return -EINVAL;

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram)) {
		pr_info("cannot change algorithm for initialized device\n");
		return -EBUSY;
	}
	zram->comp_name = name;
	return len;
}

/**
 * struct zram_algo_params - parsed algorithm_params input
 * @prio: compressor priority; 0 is the only one (no recompression)
 * @algo: "algo=" value, or NULL
 * @level: "level=" value was given
 * @dict: "dict=" value was given
 */
struct zram_algo_params {
	int prio;
	const char *algo;
	bool level;
	bool dict;
};

/**
 * zram_parse_algo_params() - parse algorithm_params input
 * @args: "key=value ..." (priority, level, algo, dict), split in place;
 *	unknown keys are ignored
 * @p: out: the values found
 *
 * Context: any context.
 * Return: 0; -EINVAL for a key without a value; kstrtoint()'s errno for
 * a bad priority or level.
 */
static int zram_parse_algo_params(char *args, struct zram_algo_params *p)
{
	char *param, *val;
	int level;
	int ret;

	args = skip_spaces(args);
	while (*args) {
		args = next_arg(args, &param, &val);
		if (!val || !*val)
			return -EINVAL;
		if (!strcmp(param, "priority")) {
			ret = kstrtoint(val, 10, &p->prio);
			if (ret)
				return ret;
		} else if (!strcmp(param, "level")) {
			ret = kstrtoint(val, 10, &level);
			if (ret)
				return ret;
			p->level = true;
		} else if (!strcmp(param, "algo")) {
			p->algo = val;
		} else if (!strcmp(param, "dict")) {
			p->dict = true;
		}
	}
	return 0;
}

/**
 * algorithm_params_store() - set compression parameters
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: see zram_parse_algo_params()
 * @len: length of @buf
 *
 * Same syntax and validation as upstream. The crypto API's comp
 * transforms take neither a level nor a dictionary. A level only tunes
 * speed against ratio, and tools such as zram-generator set one on every
 * device, so it is accepted and ignored (logged once) to keep them
 * working. A dictionary changes what the data decompresses with, so
 * dict= is refused rather than silently dropped. A write without either
 * (a reset to defaults) succeeds and changes nothing.
 *
 * Context: process context; takes init_lock for read; may sleep.
 * Return: @len; -ENOMEM; the parser's errno; -EBUSY once initialized (as
 * newer upstream); -EINVAL for a priority other than 0 or an algo= other
 * than the selected one; -EOPNOTSUPP for dict=.
 */
static ssize_t algorithm_params_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zram *zram = dev_to_zram(dev);
	struct zram_algo_params p = {};
	int ret;

	if (!args)
		return -ENOMEM;
	ret = zram_parse_algo_params(args, &p);
	if (ret)
		return ret;

	guard(rwsem_read)(&zram->init_lock);
	/* Parameters take effect at init: refused once initialized. */
	if (zram_init_done(zram))
		return -EBUSY;
	/* algo= selects the priority of that algorithm: only ours, 0. */
	if (p.algo) {
		if (strcmp(p.algo, zram->comp_name))
			return -EINVAL;
		p.prio = 0;
	}
	if (p.prio != 0)
		return -EINVAL;
	if (p.dict)
		return -EOPNOTSUPP;
	if (p.level)
		pr_info_once("compression levels are not supported, level= ignored\n");
	return len;
}

/**
 * compact_store() - compact the zsmalloc pool
 * @dev: disk device
 * @attr: attribute (unused)
 * @buf: ignored
 * @len: length of @buf
 *
 * Context: process context; takes init_lock for read; may sleep.
 * Return: @len, or -EINVAL when the device is not initialized.
 */
static ssize_t compact_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	if (!zram_init_done(zram))
		return -EINVAL;
	zs_compact(zram->mem_pool);
	return len;
}

static ssize_t io_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	/* The third column (invalid_io) is gone; it always reads 0. */
	return sysfs_emit(buf, "%8llu %8llu 0 %8llu\n",
			  (u64)atomic64_read(&zram->stats.failed_reads),
			  (u64)atomic64_read(&zram->stats.failed_writes),
			  (u64)atomic64_read(&zram->stats.notify_free));
}

static ssize_t mm_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram *zram = dev_to_zram(dev);
	struct zs_pool_stats pool_stats = {};
	unsigned long mem_used = 0;
	struct zram_stats *st = &zram->stats;

	guard(rwsem_read)(&zram->init_lock);
	if (zram_init_done(zram)) {
		mem_used = zs_get_total_pages(zram->mem_pool);
		zs_pool_stats(zram->mem_pool, &pool_stats);
	}
	return sysfs_emit(buf,
			  "%8llu %8llu %8llu %8lu %8ld %8llu %8lu %8llu %8llu\n",
			  (u64)atomic64_read(&st->pages_stored) << PAGE_SHIFT,
			  (u64)atomic64_read(&st->compr_data_size),
			  (u64)mem_used << PAGE_SHIFT,
			  zram->limit_pages << PAGE_SHIFT,
			  atomic_long_read(&st->max_used_pages) << PAGE_SHIFT,
			  (u64)atomic64_read(&st->same_pages),
			  atomic_long_read(&pool_stats.pages_compacted),
			  (u64)atomic64_read(&st->huge_pages),
			  (u64)atomic64_read(&st->huge_pages_since));
}

static ssize_t debug_stat_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return sysfs_emit(buf, "version: %d\n%8llu %8llu\n", 1,
			  (u64)atomic64_read(&zram->stats.writestall),
			  (u64)atomic64_read(&zram->stats.miss_free));
}

static DEVICE_ATTR_RW(disksize);
static DEVICE_ATTR_RO(initstate);
static DEVICE_ATTR_WO(reset);
static DEVICE_ATTR_WO(compact);
static DEVICE_ATTR_WO(mem_limit);
static DEVICE_ATTR_WO(mem_used_max);
static DEVICE_ATTR_WO(idle);
static DEVICE_ATTR_RW(max_comp_streams);
static DEVICE_ATTR_RW(comp_algorithm);
static DEVICE_ATTR_RO(io_stat);
static DEVICE_ATTR_RO(mm_stat);
static DEVICE_ATTR_RO(debug_stat);
static DEVICE_ATTR_WO(algorithm_params);

static struct attribute *zram_disk_attrs[] = {
	&dev_attr_disksize.attr,
	&dev_attr_initstate.attr,
	&dev_attr_reset.attr,
	&dev_attr_compact.attr,
	&dev_attr_mem_limit.attr,
	&dev_attr_mem_used_max.attr,
	&dev_attr_idle.attr,
	&dev_attr_max_comp_streams.attr,
	&dev_attr_comp_algorithm.attr,
	&dev_attr_io_stat.attr,
	&dev_attr_mm_stat.attr,
	&dev_attr_debug_stat.attr,
	&dev_attr_algorithm_params.attr,
	NULL,
};

static const struct attribute_group zram_disk_attr_group = {
	.attrs = zram_disk_attrs,
};

static const struct attribute_group *zram_disk_groups[] = {
	&zram_disk_attr_group,
	&zram_wb_attr_group,
	NULL,
};

/* ------------------------------------------------------------------ */
/* Debugfs: block_state (CONFIG_ZRAM_MEMORY_TRACKING)                  */
/* ------------------------------------------------------------------ */

#ifdef CONFIG_ZRAM_MEMORY_TRACKING

static struct dentry *zram_debugfs_root;

/**
 * zram_block_state_find() - find the next stored slot for block_state
 * @zram: device, initialized
 * @pos: in: first slot index to look at; out: index of the slot found
 *
 * Context: process context, init_lock held for read; may sleep.
 * Return: the slot's table entry, or NULL past the last slot.
 */
static void *zram_block_state_find(struct zram *zram, loff_t *pos)
{
	unsigned long nr_slots = zram->disksize >> PAGE_SHIFT;
	bool allocated;

	lockdep_assert_held_read(&zram->init_lock);
	for (; *pos < nr_slots; (*pos)++) {
		zram_slot_lock(zram, *pos);
		allocated = zram_slot_allocated(zram, *pos);
		zram_slot_unlock(zram, *pos);
		if (allocated)
			return &zram->table[*pos];
		cond_resched();
	}
	return NULL;
}

/* Holds init_lock for read from start to stop (stop always follows). */
static void *zram_block_state_start(struct seq_file *m, loff_t *pos)
{
	struct zram *zram = m->private;

	down_read(&zram->init_lock);
	if (!zram_init_done(zram))
		return ERR_PTR(-EINVAL);
	return zram_block_state_find(zram, pos);
}

static void *zram_block_state_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return zram_block_state_find(m->private, pos);
}

static void zram_block_state_stop(struct seq_file *m, void *v)
{
	struct zram *zram = m->private;

	up_read(&zram->init_lock);
}

static char zram_flag_char(struct zram *zram, u32 index,
			   enum zram_pageflags flag, char c)
{
	return zram_test_flag(zram, index, flag) ? c : '.';
}

/**
 * zram_block_state_show() - print one stored slot
 * @m: seq_file of block_state
 * @v: the slot's table entry
 *
 * One line per stored slot: index, access time, and the flags
 * s(ame) w(ritten back) h(uge) i(dle) r(ecompressed, never here)
 * n (incompressible).
 *
 * Context: process context, init_lock held for read (from start).
 * Return: 0.
 */
static int zram_block_state_show(struct seq_file *m, void *v)
{
	struct zram *zram = m->private;
	u32 index = (struct zram_table_entry *)v - zram->table;
	struct timespec64 ts;

	lockdep_assert_held_read(&zram->init_lock);
	zram_slot_lock(zram, index);
	ts = ktime_to_timespec64(zram_slot_get_actime(zram, index));
	seq_printf(m, "%12u %12lld.%06lu %c%c%c%c%c%c\n", index,
		   (s64)ts.tv_sec, ts.tv_nsec / NSEC_PER_USEC,
		   zram_flag_char(zram, index, ZRAM_SAME, 's'),
		   zram_flag_char(zram, index, ZRAM_WB, 'w'),
		   zram_flag_char(zram, index, ZRAM_HUGE, 'h'),
		   zram_flag_char(zram, index, ZRAM_IDLE, 'i'),
		   '.',
		   zram_flag_char(zram, index, ZRAM_INCOMPRESSIBLE, 'n'));
	zram_slot_unlock(zram, index);
	return 0;
}

static const struct seq_operations zram_block_state_sops = {
	.start = zram_block_state_start,
	.next = zram_block_state_next,
	.stop = zram_block_state_stop,
	.show = zram_block_state_show,
};

static int zram_block_state_open(struct inode *inode, struct file *file)
{
	int ret = seq_open(file, &zram_block_state_sops);

	if (!ret)
		((struct seq_file *)file->private_data)->private =
			inode->i_private;
	return ret;
}

static const struct file_operations zram_block_state_fops = {
	.owner = THIS_MODULE,
	.open = zram_block_state_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static void zram_debugfs_create(void)
{
	zram_debugfs_root = debugfs_create_dir("zram", NULL);
}

static void zram_debugfs_destroy(void)
{
	debugfs_remove_recursive(zram_debugfs_root);
}

static void zram_debugfs_register(struct zram *zram)
{
	zram->debugfs_dir = debugfs_create_dir(zram->disk->disk_name,
					       zram_debugfs_root);
	debugfs_create_file("block_state", 0400, zram->debugfs_dir, zram,
			    &zram_block_state_fops);
}

static void zram_debugfs_unregister(struct zram *zram)
{
	debugfs_remove_recursive(zram->debugfs_dir);
}

#else

static void zram_debugfs_create(void)
{
}

static void zram_debugfs_destroy(void)
{
}

static void zram_debugfs_register(struct zram *zram)
{
}

static void zram_debugfs_unregister(struct zram *zram)
{
}

#endif

/* ------------------------------------------------------------------ */
/* Device creation and removal                                        */
/* ------------------------------------------------------------------ */

/**
 * zram_alloc_disk() - allocate the gendisk of a new device
 * @zram: device, becomes the disk's private_data
 * @device_id: device number, used as minor and in the name
 *
 * Context: process context; may sleep.
 * Return: the disk (capacity 0, not yet added), or an ERR_PTR().
 */
static struct gendisk *zram_alloc_disk(struct zram *zram, int device_id)
{
	struct queue_limits lim = {
		.logical_block_size		= ZRAM_LOGICAL_BLOCK_SIZE,
		/* Keep I/O page aligned and in whole pages. */
		.physical_block_size		= PAGE_SIZE,
		.io_min				= PAGE_SIZE,
		.io_opt				= PAGE_SIZE,
		.max_hw_discard_sectors		= UINT_MAX,
		.max_write_zeroes_sectors	= ZRAM_MAX_WRITE_ZEROES,
		/* Every submit path honours REQ_NOWAIT: see the contract. */
		.features			= BLK_FEAT_STABLE_WRITES |
						  BLK_FEAT_SYNCHRONOUS |
						  BLK_FEAT_NOWAIT,
	};
	struct gendisk *disk;

	disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(disk))
		return disk;
	disk->major = zram_major;
	disk->first_minor = device_id;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &zram_devops;
	disk->private_data = zram;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "zram%d",
		 device_id);
	/* The size is set through the disksize attribute. */
	set_capacity(disk, 0);
	return disk;
}

/**
 * zram_add() - create one uninitialized device
 *
 * Context: process context, zram_index_mutex held; may sleep.
 * Return: the new device id (>= 0) or a negative errno.
 */
static int zram_add(void)
{
	struct zram *zram;
	int device_id;
	int ret;

	lockdep_assert_held(&zram_index_mutex);
	zram = kzalloc(sizeof(*zram), GFP_KERNEL);
	if (!zram)
		return -ENOMEM;
	ret = idr_alloc(&zram_index_idr, zram, 0, 0, GFP_KERNEL);
	if (ret < 0)
		goto out_free_zram;
	device_id = ret;

	init_rwsem(&zram->init_lock);
	zram->comp_name = zram_default_comp;
	zram_wb_init(zram);
	zram->disk = zram_alloc_disk(zram, device_id);
	if (IS_ERR(zram->disk)) {
		ret = PTR_ERR(zram->disk);
		goto out_remove_idr;
	}
	/* Before the attributes appear: backing_dev adds to the directory. */
	zram_debugfs_register(zram);
	ret = device_add_disk(NULL, zram->disk, zram_disk_groups);
	if (ret)
		goto out_unregister_debugfs;
	pr_info("added device %s\n", zram->disk->disk_name);
	return device_id;

out_unregister_debugfs:
	zram_debugfs_unregister(zram);
	put_disk(zram->disk);
out_remove_idr:
	idr_remove(&zram_index_idr, device_id);
out_free_zram:
	kfree(zram);
	return ret;
}

/**
 * zram_remove() - delete a device
 * @zram: device
 *
 * Context: process context, zram_index_mutex held; may sleep.
 * Return: 0, or -EBUSY when the device is open. The caller drops the idr
 * entry on success.
 */
static int zram_remove(struct zram *zram)
{
	struct gendisk *disk = zram->disk;
	bool reset_running;

	lockdep_assert_held(&zram_index_mutex);
	scoped_guard(mutex, &disk->open_mutex) {
		if (disk_openers(disk))
			return -EBUSY;
		/* A running reset_store() owns the claim. */
		reset_running = zram->claim;
		zram->claim = true;
	}

	if (!reset_running)
		sync_blockdev(disk->part0);
	/*
	 * Remove the disk, and with it every sysfs attribute, before
	 * anything a store can reach is torn down: del_gendisk() waits for
	 * the stores running (a reset_store() owning the claim, a writeback,
	 * a backing_dev store) and no new one can start. Only then are the
	 * debugfs entries, the backing device and the slots freed.
	 */
	del_gendisk(disk);
	zram_debugfs_unregister(zram);
	zram_reset_device(zram);
	pr_info("removed device %s\n", disk->disk_name);
	put_disk(disk);
	kfree(zram);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sysfs: zram-control class                                          */
/* ------------------------------------------------------------------ */

/**
 * hot_add_show() - create a device and print its id
 * @class: zram-control class
 * @attr: attribute (unused)
 * @buf: sysfs page buffer
 *
 * Reading creates a device, so the attribute is readable by root only.
 *
 * Context: process context; takes zram_index_mutex; may sleep.
 * Return: bytes written to @buf, or zram_add()'s errno.
 */
static ssize_t hot_add_show(const struct class *class,
			    const struct class_attribute *attr, char *buf)
{
	int ret;

	scoped_guard(mutex, &zram_index_mutex)
		ret = zram_add();
	if (ret < 0)
		return ret;
	return sysfs_emit(buf, "%d\n", ret);
}

static struct class_attribute class_attr_hot_add =
	__ATTR(hot_add, 0400, hot_add_show, NULL);

/**
 * hot_remove_store() - delete a device
 * @class: zram-control class
 * @attr: attribute (unused)
 * @buf: device id, decimal
 * @count: length of @buf
 *
 * Context: process context; takes zram_index_mutex; may sleep.
 * Return: @count; kstrtoint()'s errno or -EINVAL (negative id) for bad
 * input, -ENODEV for no such device, -EBUSY when it is open.
 */
static ssize_t hot_remove_store(const struct class *class,
				const struct class_attribute *attr,
				const char *buf, size_t count)
{
	struct zram *zram;
	int dev_id;
	int ret;

	ret = kstrtoint(buf, 10, &dev_id);
	if (ret)
		return ret;
	if (dev_id < 0)
		return -EINVAL;

	guard(mutex)(&zram_index_mutex);
	zram = idr_find(&zram_index_idr, dev_id);
	if (!zram)
		return -ENODEV;
	ret = zram_remove(zram);
	if (ret)
		return ret;
	idr_remove(&zram_index_idr, dev_id);
	return count;
}
static CLASS_ATTR_WO(hot_remove);

static struct attribute *zram_control_class_attrs[] = {
	&class_attr_hot_add.attr,
	&class_attr_hot_remove.attr,
	NULL,
};
ATTRIBUTE_GROUPS(zram_control_class);

static struct class zram_control_class = {
	.name		= "zram-control",
	.class_groups	= zram_control_class_groups,
};

/* ------------------------------------------------------------------ */
/* Module                                                             */
/* ------------------------------------------------------------------ */

static int zram_remove_cb(int id, void *ptr, void *data)
{
	/* Module unload: the module reference keeps devices closed. */
	WARN_ON_ONCE(zram_remove(ptr));
	return 0;
}

/**
 * zram_remove_all() - delete every device and the id allocator
 *
 * Context: process context, module load failure or unload (no device can
 * be open); takes zram_index_mutex; may sleep.
 */
static void zram_remove_all(void)
{
	guard(mutex)(&zram_index_mutex);
	idr_for_each(&zram_index_idr, zram_remove_cb, NULL);
	idr_destroy(&zram_index_idr);
}

/**
 * zram_add_initial() - create the devices asked for at module load
 * @count: number of devices (the num_devices parameter)
 *
 * On failure the devices already created are left for the caller's
 * zram_remove_all().
 *
 * Context: process context; takes zram_index_mutex; may sleep.
 * Return: 0 or zram_add()'s errno.
 */
static int zram_add_initial(unsigned int count)
{
	int ret;

	guard(mutex)(&zram_index_mutex);
	while (count--) {
		ret = zram_add();
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * zram_init() - module load
 *
 * Context: process context; may sleep.
 * Return: 0; -EBUSY when CPUHP_ZCOMP_PREPARE or a block major cannot be
 * had; -ENOMEM for the workqueues; or the errno of creating the devices or
 * the zram-control class.
 */
static int __init zram_init(void)
{
	int ret;

	BUILD_BUG_ON(__NR_ZRAM_PAGEFLAGS > BITS_PER_LONG);

	ret = zcomp_cpuhp_setup();
	if (ret)
		return ret;
	zram_bio_wq = alloc_workqueue("zram_bio", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	if (!zram_bio_wq) {
		ret = -ENOMEM;
		goto out_remove_cpuhp;
	}
	ret = zram_wb_module_init();
	if (ret)
		goto out_destroy_bio_wq;
	zram_debugfs_create();
	ret = register_blkdev(0, "zram");
	if (ret <= 0) {
		pr_err("unable to get a major number\n");
		ret = -EBUSY;
		goto out_destroy_debugfs;
	}
	zram_major = ret;
	ret = zram_add_initial(zram_num_devices);
	if (ret)
		goto out_remove_devices;
	ret = class_register(&zram_control_class);
	if (ret) {
		pr_err("unable to register the zram-control class\n");
		goto out_remove_devices;
	}
	return 0;

out_remove_devices:
	zram_remove_all();
	unregister_blkdev(zram_major, "zram");
out_destroy_debugfs:
	zram_debugfs_destroy();
	zram_wb_module_exit();
out_destroy_bio_wq:
	destroy_workqueue(zram_bio_wq);
out_remove_cpuhp:
	zcomp_cpuhp_remove();
	return ret;
}

static void __exit zram_exit(void)
{
	class_unregister(&zram_control_class);
	zram_remove_all();
	unregister_blkdev(zram_major, "zram");
	zram_debugfs_destroy();
	zram_wb_module_exit();
	destroy_workqueue(zram_bio_wq);
	zcomp_cpuhp_remove();
}

module_init(zram_init);
module_exit(zram_exit);

module_param_named(num_devices, zram_num_devices, uint, 0);
MODULE_PARM_DESC(num_devices, "Number of pre-created zram devices");

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Compressed RAM Block Device");
