// SPDX-License-Identifier: GPL-2.0-only
/* zram bio path: a bio is served in steps of one slot; partial I/O bounces. */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "zram_bio.h"
#include "zram_obj.h"
#include "zram_slot.h"

/* All that can fail runs before the slot lock: a failure changes nothing. */
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

/*
 * @run: a written-back slot's read is chained to @bio (in @run when it can
 * be), else synchronous (NULL); @access: clear the idle mark; false for a
 * partial write's read.
 */
static int zram_read_page(struct zram *zram, struct page *page, u32 index,
			  struct bio *bio, struct zram_bdev_run *run,
			  bool nowait, bool access)
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
	if (nowait && !run) {
		zram_slot_unlock(zram, index);
		return -EAGAIN;
	}
	/* After the unlock, the pin keeps a freed block from reuse. */
	zram_slot_wb_loc(zram, index, &loc);
	pin = zram_bdev_read_pin(zram);
	zram_slot_unlock(zram, index);
	ret = zram_bdev_read(zram, page, &loc, pin, bio, run, nowait);
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

static int zram_bvec_read_partial(struct zram *zram, struct bio_vec *bv,
				  u32 index, u32 offset, struct bio *bio,
				  bool nowait)
{
	struct page *page = alloc_page(zram_io_gfp(nowait));
	int ret;

	if (!page)
		return nowait ? -EAGAIN : -ENOMEM;
	ret = zram_read_page(zram, page, index, bio, NULL, nowait, true);
	if (!ret)
		memcpy_to_bvec(bv, page_address(page) + offset);
	__free_page(page);
	return ret;
}

static int zram_bvec_write_partial(struct zram *zram, struct bio_vec *bv,
				   u32 index, u32 offset, struct bio *bio,
				   bool nowait)
{
	struct page *page = alloc_page(zram_io_gfp(nowait));
	int ret;

	if (!page)
		return nowait ? -EAGAIN : -ENOMEM;
	/* Unlocked in between: concurrent partial writes may lose one. */
	ret = zram_read_page(zram, page, index, bio, NULL, nowait, false);
	if (!ret) {
		memcpy_from_bvec(page_address(page) + offset, bv);
		ret = zram_write_page(zram, page, index, nowait);
	}
	__free_page(page);
	return ret;
}

static int zram_bvec_read(struct zram *zram, struct bio_vec *bv, u32 index,
			  u32 offset, struct bio *bio, struct zram_bdev_run *run,
			  bool nowait)
{
	if (zram_bvec_partial(bv)) {
		/* Issued before the synchronous read outside ->submit_bio. */
		zram_bdev_run_submit(run);
		return zram_bvec_read_partial(zram, bv, index, offset, bio,
					      nowait);
	}
	return zram_read_page(zram, bv->bv_page, index, bio, run, nowait,
			      true);
}

static int zram_bvec_write(struct zram *zram, struct bio_vec *bv, u32 index,
			   u32 offset, struct bio *bio, bool nowait)
{
	if (zram_bvec_partial(bv))
		return zram_bvec_write_partial(zram, bv, index, offset, bio,
					       nowait);
	return zram_write_page(zram, bv->bv_page, index, nowait);
}

/* Frees only a slot the range covers whole: always, with 4 KiB pages. */
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
 * Nowait contract: a REQ_NOWAIT bio ends with BLK_STS_AGAIN only before its
 * first step and accounting (a step that would block does nothing); after
 * one, a blocking worker serves the steps left. A kernel thread's
 * REQ_NOWAIT bio is served blocking: it was held back on its way (by
 * blk-throttle, whose worker submits it), its submitter has waited already,
 * and an AGAIN now could reach the application (6.12's io_uring does not
 * reissue it, a synchronous RWF_NOWAIT caller gets it). io_uring's own
 * threads are not kernel threads.
 */

/* Finishes started REQ_NOWAIT bios: WQ_MEM_RECLAIM, as they must end. */
static struct workqueue_struct *zram_bio_wq;

/* A REQ_NOWAIT bio's steps left to a worker; allocated before the first. */
struct zram_bio_rest {
	struct work_struct work;
	struct zram *zram;
	struct bio *bio;
	struct bvec_iter iter;
	unsigned long start;
};

/* Current bvec of @iter, clipped to its slot; inlined on the hot path. */
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

/* Advances @iter only when the step succeeded. */
static __always_inline int zram_bio_step(struct zram *zram, struct bio *bio,
					 struct bvec_iter *iter,
					 struct zram_bdev_run *run, bool nowait)
{
	u32 index, offset;
	struct bio_vec bv = zram_iter_bvec(bio, *iter, &index, &offset);
	int ret;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		run->room = iter->bi_size >> PAGE_SHIFT;
		ret = zram_bvec_read(zram, &bv, index, offset, bio, run,
				     nowait);
		if (!ret)
			flush_dcache_page(bv.bv_page);
		break;
	case REQ_OP_WRITE:
		ret = zram_bvec_write(zram, &bv, index, offset, bio, nowait);
		break;
	default:	/* discard, write-zeroes */
		ret = zram_bvec_discard(zram, index, offset, bv.bv_len, nowait);
		break;
	}
	if (!ret)
		bio_advance_iter_single(bio, iter, bv.bv_len);
	return ret;
}

/*
 * Slots a REQ_NOWAIT discard or write-zeroes bio frees before a worker,
 * which may reschedule, frees the rest (such a bio may span 4 GiB).
 */
#define ZRAM_BIO_NOWAIT_FREES	256

/*
 * Returns 0, or the errno of the step at @iter that failed; -EAGAIN too
 * when a REQ_NOWAIT bio without data has taken ZRAM_BIO_NOWAIT_FREES steps.
 * Reads of whole pages in consecutive backing device blocks gather in one
 * backing read, submitted before it returns.
 */
static int zram_bio_serve(struct zram *zram, struct bio *bio,
			  struct bvec_iter *iter, bool nowait)
{
	bool budgeted = nowait && !bio_has_data(bio);
	unsigned int budget = ZRAM_BIO_NOWAIT_FREES;
	struct zram_bdev_run run = { };
	int ret = 0;

	while (iter->bi_size) {
		if (budgeted && !budget--) {
			ret = -EAGAIN;
			break;
		}
		ret = zram_bio_step(zram, bio, iter, &run, nowait);
		if (ret)
			break;
		if (!nowait)
			cond_resched();
	}
	zram_bdev_run_submit(&run);
	return ret;
}

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

/* -EAGAIN: refused and not accounted; it counts once, when served. */
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

static void zram_bio_rest_fn(struct work_struct *work)
{
	struct zram_bio_rest *rest =
		container_of(work, struct zram_bio_rest, work);
	int ret;

	ret = zram_bio_serve(rest->zram, rest->bio, &rest->iter, false);
	if (WARN_ON_ONCE(ret == -EAGAIN))
		ret = -EIO;
	zram_bio_end(rest->zram, rest->bio, rest->start, ret);
	kfree(rest);
}

static bool zram_bio_multi_step(struct bio *bio)
{
	u32 index, offset;
	struct bio_vec bv = zram_iter_bvec(bio, bio->bi_iter, &index, &offset);

	return bv.bv_len < bio->bi_iter.bi_size;
}

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

/*
 * A blocking step was refused (-EAGAIN): it would have waited for the
 * reserve of packed reads while reads this call queued on bio_list, which
 * may hold it, wait for the call to return (zram_bdev_read()). Ends the
 * accounting of the steps served and queues the rest of @bio behind those
 * reads: the block layer issues them before it calls us again, and the
 * rest's first step may then wait. The rest is blocking: a frozen queue
 * must not end it with AGAIN, as steps were served.
 */
static void zram_bio_requeue(struct bio *bio, const struct bvec_iter *iter,
			     unsigned long start)
{
	unsigned int served = bio->bi_iter.bi_size - iter->bi_size;

	bdev_end_io_acct(bio->bi_bdev, bio_op(bio), served >> SECTOR_SHIFT,
			 start);
	trace_block_split(bio, bio->bi_iter.bi_sector +
			  (served >> SECTOR_SHIFT));
	bio_advance(bio, served);
	bio->bi_opf &= ~REQ_NOWAIT;
	submit_bio_noacct(bio);
}

/**
 * zram_submit_bio() - serve a bio
 * @bio: read, write, discard or write-zeroes bio
 *
 * When memory is short, a blocking read may serve part of @bio and submit
 * the rest again (zram_bio_requeue()).
 *
 * Context: task context; may sleep unless REQ_NOWAIT outside a kernel
 * thread, see the nowait contract.
 */
void zram_submit_bio(struct bio *bio)
{
	struct zram *zram = bio->bi_bdev->bd_disk->private_data;
	struct bvec_iter iter = bio->bi_iter;
	unsigned long start;
	int ret;

	/*
	 * The block layer checked the bio against the capacity; pairs with
	 * the smp_mb() in zram_init_device() that publishes the state the
	 * capacity stands for.
	 */
	smp_rmb();
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
	if ((bio->bi_opf & REQ_NOWAIT) && !(current->flags & PF_KTHREAD)) {
		zram_submit_bio_nowait(zram, bio);
		return;
	}
	start = bio_start_io_acct(bio);
	ret = zram_bio_serve(zram, bio, &iter, false);
	/*
	 * Only a later step is refused (the first may wait for the reserve),
	 * so the rest is shorter and every call makes progress.
	 */
	if (ret == -EAGAIN) {
		if (!WARN_ON_ONCE(iter.bi_size == bio->bi_iter.bi_size)) {
			zram_bio_requeue(bio, &iter, start);
			return;
		}
		ret = -EIO;
	}
	zram_bio_end(zram, bio, start, ret);
}

/**
 * zram_slot_free_notify() - swap no longer uses a slot: free it
 * @bdev: the zram block device
 * @index: slot index (a swap entry offset)
 *
 * Context: swap's spinlock held; never sleeps, leaves a busy slot alone.
 */
void zram_slot_free_notify(struct block_device *bdev,
			   unsigned long index)
{
	struct zram *zram = bdev->bd_disk->private_data;

	atomic64_inc(&zram->stats.notify_free);
	/* A missed free waits for an overwrite; miss_free counts them. */
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
