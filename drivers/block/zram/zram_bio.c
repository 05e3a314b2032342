// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram bio path: a bio is served in steps (one bvec within one slot, or
 * one slot of a discard); reads and writes of part of a slot go through a
 * bounce page. The nowait contract is stated once, below.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "zram_bio.h"
#include "zram_obj.h"
#include "zram_slot.h"

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

/**
 * zram_read_page() - read one slot into a full page
 * @zram: device
 * @page: destination, PAGE_SIZE bytes
 * @index: slot index (PAGE_SIZE units)
 * @parent: bio to chain a backing device read to; NULL for a synchronous
 *	backing device read
 * @nowait: the bio has REQ_NOWAIT
 * @access: record an access to the slot; false for the read half of a
 *	partial write, which may yet be refused with -EAGAIN and whose write
 *	records one anyway
 *
 * A successful read with @access records an access to the slot (clears
 * its idle mark): for a slot in RAM under the lock the read holds anyway,
 * for a written-back slot once its backing device read was issued. A read
 * refused with -EAGAIN leaves the slot untouched.
 *
 * Context: task context; sleeps only for a synchronous backing device
 * read, which is refused with @nowait.
 * Return: 0, -EAGAIN (@nowait would block; nothing changed), or -EIO etc.
 */
static int zram_read_page(struct zram *zram, struct page *page, u32 index,
			  struct bio *parent, bool nowait, bool access)
{
	struct zram_bdev_loc loc;
	int ret, pin;

	if (!zram_slot_lock_io(zram, index, nowait))
		return -EAGAIN;
	if (!zram_test_flag(zram, index, ZRAM_WB)) {
		ret = zram_obj_read(zram, page, index);
		if (!ret && access)
			zram_slot_record_access(zram, index);
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
	 * until zram_bdev_read() has completed and dropped the pin: the read
	 * returns this slot's old data, never another slot's.
	 */
	zram_slot_wb_loc(zram, index, &loc);
	pin = zram_bdev_read_pin(zram);
	zram_slot_unlock(zram, index);
	ret = zram_bdev_read(zram, page, &loc, pin, parent, nowait);
	if (!ret && access)
		zram_slot_record_read(zram, index, nowait);
	return ret;
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
	ret = zram_read_page(zram, page, index, NULL, nowait, true);
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
	ret = zram_read_page(zram, page, index, NULL, nowait, false);
	if (!ret) {
		memcpy_from_bvec(page_address(page) + offset, bv);
		ret = zram_write_page(zram, page, index, nowait);
	}
	__free_page(page);
	return ret;
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
	if (zram_bvec_partial(bv))
		return zram_bvec_read_partial(zram, bv, index, offset, nowait);
	return zram_read_page(zram, bv->bv_page, index, bio, nowait, true);
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

/*
 * Nowait contract. With BLK_FEAT_NOWAIT set (zram_alloc_disk()), a bio may
 * carry REQ_NOWAIT. Such a bio is served step by step (a step is one bvec
 * within one slot, or one slot of a discard) without sleeping: slot locks
 * are only tried, memory comes from GFP_NOWAIT, a written-back slot is
 * read by a REQ_NOWAIT backing device bio chained to ours, and anything
 * else that would block (a synchronous backing device read for partial
 * I/O, a backing device without nowait support) makes the step fail with
 * -EAGAIN before it does anything.
 *
 * BLK_STS_AGAIN is only given back from zram_submit_bio(), before the
 * first step changed a slot or issued a read, and before the bio counted
 * in the disk's statistics: the submitter then sees the device exactly as
 * it was and may reissue the bio from a context that can block. Once a
 * step is done, the bio never ends with BLK_STS_AGAIN: the steps left are
 * handed to a worker (struct zram_bio_rest) that serves them blocking,
 * and a chained backing device read that ends with BLK_STS_AGAIN is
 * issued again, blocking, by a worker of the backing device code
 * (zram_bdev_read()). A completion may run in interrupt context, where
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
 * @start: jiffies its accounting started from (zram_submit_bio_nowait())
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

/*
 * Current bvec of @iter, clipped to the slot it starts in. Inlined, as is
 * zram_bio_step(): every bio passes here, and a call and return per 4 KiB
 * read showed in the psync bench (tools/bench/guest/psync-trace.sh).
 */
static __always_inline struct bio_vec
zram_iter_bvec(struct bio *bio, struct bvec_iter iter, u32 *index, u32 *offset)
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
static __always_inline int zram_bio_step(struct zram *zram, struct bio *bio,
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
 * @bio: the bio, its accounting started
 * @start: its bio_start_io_acct() time
 * @ret: 0, or the errno of the step that failed (never -EAGAIN)
 *
 * An error ends it with BLK_STS_IOERR and counts in failed_reads or
 * failed_writes.
 *
 * Context: any task context; never sleeps.
 */
static void zram_bio_end(struct zram *zram, struct bio *bio,
			 unsigned long start, int ret)
{
	bio_end_io_acct(bio, start);
	if (ret) {
		if (op_is_write(bio_op(bio)))
			atomic64_inc(&zram->stats.failed_writes);
		else
			atomic64_inc(&zram->stats.failed_reads);
		bio->bi_status = BLK_STS_IOERR;
	}
	bio_endio(bio);
}

/**
 * zram_bio_end_nowait() - end a REQ_NOWAIT bio the submitter served
 * @zram: device
 * @bio: the bio, its accounting not started
 * @start: jiffies when zram_submit_bio() took it
 * @ret: 0, -EAGAIN (no step was done), or the errno of the failed step
 *
 * A bio refused with BLK_STS_AGAIN leaves no trace: its submitter issues
 * it again, and it counts in the disk's statistics once, when it is
 * served. Any other bio is accounted from @start and ended.
 *
 * Context: any task context; never sleeps.
 */
static void zram_bio_end_nowait(struct zram *zram, struct bio *bio,
				unsigned long start, int ret)
{
	if (ret == -EAGAIN) {
		bio_wouldblock_error(bio);
		return;
	}
	bdev_start_io_acct(bio->bi_bdev, bio_op(bio), start);
	zram_bio_end(zram, bio, start, ret);
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

/*
 * Serves a REQ_NOWAIT bio. Once a step is done, the steps left after one
 * that would block go to a worker, whose struct zram_bio_rest a bio of
 * several steps allocates up front so that handing over never fails. The
 * bio is accounted only once it is known not to be refused.
 */
static void zram_submit_bio_nowait(struct zram *zram, struct bio *bio)
{
	struct bvec_iter iter = bio->bi_iter;
	struct zram_bio_rest *rest = NULL;
	unsigned long start = jiffies;
	int ret;

	if (zram_bio_multi_step(bio)) {
		rest = kmalloc_obj(*rest, GFP_NOWAIT | __GFP_NOWARN);
		if (!rest) {
			bio_wouldblock_error(bio);
			return;
		}
	}
	ret = zram_bio_serve(zram, bio, &iter, true);
	if (ret == -EAGAIN && rest && iter.bi_size != bio->bi_iter.bi_size) {
		/* A step was done: finish blocking, never fail with AGAIN. */
		bdev_start_io_acct(bio->bi_bdev, bio_op(bio), start);
		INIT_WORK(&rest->work, zram_bio_rest_fn);
		rest->zram = zram;
		rest->bio = bio;
		rest->iter = iter;
		rest->start = start;
		queue_work(zram_bio_wq, &rest->work);
		return;
	}
	kfree(rest);
	zram_bio_end_nowait(zram, bio, start, ret);
}

/**
 * zram_submit_bio() - serve a bio
 * @bio: read, write, discard or write-zeroes bio
 *
 * Context: task context (submit_bio); sleeps only without REQ_NOWAIT, see
 * the nowait contract above.
 */
void zram_submit_bio(struct bio *bio)
{
	struct zram *zram = bio->bi_bdev->bd_disk->private_data;
	struct bvec_iter iter = bio->bi_iter;
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
	if (bio->bi_opf & REQ_NOWAIT) {
		zram_submit_bio_nowait(zram, bio);
		return;
	}
	start = bio_start_io_acct(bio);
	ret = zram_bio_serve(zram, bio, &iter, false);
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
void zram_slot_free_notify(struct block_device *bdev,
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
 * zram_bio_module_init() - create the workers that finish REQ_NOWAIT bios
 *
 * Context: module init; may sleep.
 * Return: 0 or -ENOMEM.
 */
int zram_bio_module_init(void)
{
	zram_bio_wq = alloc_workqueue("zram_bio", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	return zram_bio_wq ? 0 : -ENOMEM;
}

/**
 * zram_bio_module_exit() - destroy them, once every device is gone
 *
 * Context: module exit; may sleep.
 */
void zram_bio_module_exit(void)
{
	destroy_workqueue(zram_bio_wq);
}
