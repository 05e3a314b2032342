// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram backing device: attaching and releasing it, harvesting freed
 * blocks once no read can still target them, and reading written-back
 * slots from it, chained to a zram bio or synchronously. Giving blocks
 * back is zram_bdev_block.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/llist.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "zram_extent.h"
#include "zram_obj.h"
#include "zram_slot.h"

struct zram_bdev_pread;

/**
 * struct zram_bdev_part - one bio's share of a backing device read
 * @page: destination page (the first one, for a read past its end into
 *	the physically contiguous pages after it)
 * @offset: byte offset of the read's start in @page
 * @len: bytes to read: PAGE_SIZE for a whole page, else whole sectors of
 *	a packed object's block(s), see zram_bdev_pbuf_part()
 * @sector: backing device sector the read starts at
 */
struct zram_bdev_part {
	struct page *page;
	unsigned int offset;
	unsigned int len;
	sector_t sector;
};

/**
 * struct zram_bdev_rbio - a backing device read chained to a zram bio
 * @zram: the device, whose backing.read_srcu @pin belongs to
 * @parent: the zram bio, completed after this read (not with @pread)
 * @pread: the packed slot read this read is part of, which completes
 *	the zram bio and owns the pin; or NULL
 * @part: what is read, and where to
 * @retry: runs zram_bdev_read_retry_fn() when the backing device refused
 *	a REQ_NOWAIT read with BLK_STS_AGAIN
 * @pin: srcu_down_read() index, released at completion (not with @pread)
 * @bio: the read; last, allocated from backing.read_bs with the fields above as
 *	front pad
 */
struct zram_bdev_rbio {
	struct zram *zram;
	struct bio *parent;
	struct zram_bdev_pread *pread;
	struct zram_bdev_part part;
	struct work_struct retry;
	int pin;
	struct bio bio;
};

/**
 * struct zram_bdev_pread - a read of a packed slot chained to a zram bio
 * @zram: the device, whose backing.read_srcu @pin belongs to
 * @parent: the zram bio, completed once the object is decompressed
 * @page: destination page
 * @buf: the sectors of the object's block(s) that hold it, see
 *	zram_bdev_pspan_of(); physically contiguous
 * @offset: byte offset of the object in @buf
 * @len: its length in bytes
 * @prio: priority of the compressor that made it
 * @remaining: reads into @buf not yet completed (one or two)
 * @status: an error of one of them, else 0
 * @pin: srcu_down_read() index, released when done
 * @node: on a CPU's zram_bdev_pdone list when the last read completed in
 *	hard irq context or with interrupts off
 */
struct zram_bdev_pread {
	struct zram *zram;
	struct bio *parent;
	struct page *page;
	void *buf;
	unsigned int offset;
	unsigned int len;
	u32 prio;
	atomic_t remaining;
	blk_status_t status;
	int pin;
	struct llist_node node;
};

/**
 * struct zram_bdev_pdone - packed reads a CPU finishes in its softirq
 * @list: reads whose last bio completed in hard irq context or with
 *	interrupts off on this CPU; added to there, emptied by @work
 * @work: zram_bdev_pdone_fn() on system_bh_highpri_wq, queued when @list
 *	goes from empty to not empty
 *
 * A device that completes several reads in one interrupt (or one timer)
 * has them all finished by one softirq pass, not one work item each.
 */
struct zram_bdev_pdone {
	struct llist_head list;
	struct work_struct work;
};

static DEFINE_PER_CPU(struct zram_bdev_pdone, zram_bdev_pdone);

/*
 * Issues again, blocking, the chained reads that a backing device refused
 * with BLK_STS_AGAIN, and the synchronous reads of partial I/O. Both
 * complete zram bios: WQ_MEM_RECLAIM.
 */
static struct workqueue_struct *zram_bdev_read_wq;

/*
 * The name backing_dev reads for @path: the absolute path of what it
 * names, symlinks followed and a relative path taken from the writer's
 * working directory, as upstream names the file it opened. Process
 * context; sleeps. Returns a kmalloc'ed string, or ERR_PTR: -ENOENT (no
 * such path), -EISDIR (a directory, which upstream's read-write open
 * refuses; an empty path names the working directory, there as here),
 * others from kern_path() and d_path(); -ENOMEM.
 */
static char *zram_bdev_resolve(const char *path)
{
	char *buf __free(kfree) = kmalloc(PATH_MAX, GFP_KERNEL);
	struct path found;
	char *name;
	int err;

	if (!buf)
		return ERR_PTR(-ENOMEM);
	err = kern_path(path, LOOKUP_FOLLOW, &found);
	if (err)
		return ERR_PTR(err);
	if (d_is_dir(found.dentry))
		name = ERR_PTR(-EISDIR);
	else
		name = d_path(&found, buf, PATH_MAX);
	path_put(&found);
	if (IS_ERR(name))
		return name;
	return kstrdup(name, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
}

/**
 * zram_bdev_open - open a backing device exclusively
 * @zram: device that will hold it
 * @path: path of a block device node
 *
 * Context: process context, init_lock held for write; sleeps.
 * Return: the opened block device file, or ERR_PTR: -ENOENT (no such
 * path), -ENOTBLK (not a block device), -EINVAL (@zram itself, or smaller
 * than one page), -EBUSY (held exclusively by someone else, or already
 * @zram's backing device: upstream's second exclusive open of it fails),
 * others from lookup_bdev() and bdev_file_open_by_dev().
 */
static struct file *zram_bdev_open(struct zram *zram, const char *path)
{
	struct block_device *current_bdev = zram->backing.bdev;
	struct file *bdev_file;
	dev_t devt;
	int ret;

	lockdep_assert_held_write(&zram->init_lock);
	ret = lookup_bdev(path, &devt);
	if (ret)
		return ERR_PTR(ret);
	/* Upstream refuses itself through its zero size; be explicit. */
	if (devt == disk_devt(zram->disk))
		return ERR_PTR(-EINVAL);
	if (current_bdev && devt == current_bdev->bd_dev)
		return ERR_PTR(-EBUSY);
	bdev_file = bdev_file_open_by_dev(devt, BLK_OPEN_READ | BLK_OPEN_WRITE |
					  BLK_OPEN_EXCL, zram, NULL);
	if (IS_ERR(bdev_file))
		return bdev_file;
	if (bdev_nr_bytes(file_bdev(bdev_file)) < PAGE_SIZE) {
		bdev_fput(bdev_file);
		return ERR_PTR(-EINVAL);
	}
	return bdev_file;
}

/**
 * zram_bdev_release - release the backing device and its bitmaps
 * @zram: device, not initialized (or every slot freed)
 *
 * Does nothing when there is none.
 *
 * Context: process context, init_lock held for write; sleeps.
 */
void zram_bdev_release(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held_write(&zram->init_lock);
	if (bd->bdev_file)
		bdev_fput(bd->bdev_file);
	/* Also frees free_pending and free_staged: one allocation. */
	kvfree(bd->bitmap);
	kvfree(bd->pack);
	kfree(bd->bdev_path);
	bd->bdev_file = NULL;
	bd->bdev = NULL;
	bd->bdev_path = NULL;
	bd->bitmap = NULL;
	bd->free_pending = NULL;
	bd->free_staged = NULL;
	bd->pack = NULL;
	bd->nr_blocks = 0;
}

/**
 * zram_bdev_read_init - initialize the read pin state on first attach
 * @zram: device, init_lock held for write
 *
 * backing.read_srcu and backing.read_bs then stay until reset, across backing
 * device changes.
 *
 * Context: process context; sleeps.
 * Return: 0 or -ENOMEM.
 */
static int zram_bdev_read_init(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;
	int err;

	lockdep_assert_held_write(&zram->init_lock);
	if (bd->read_ready)
		return 0;
	err = init_srcu_struct(&bd->read_srcu);
	if (err)
		return err;
	/*
	 * One zram bio may allocate several reads before any is issued
	 * (they wait on current->bio_list until ->submit_bio returns); the
	 * rescuer issues them when the mempool would otherwise wait for
	 * its own unissued bios.
	 */
	err = bioset_init(&bd->read_bs, BIO_POOL_SIZE,
			  offsetof(struct zram_bdev_rbio, bio),
			  BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (err)
		goto out_cleanup_srcu;
	bd->read_ready = true;
	return 0;

out_cleanup_srcu:
	cleanup_srcu_struct(&bd->read_srcu);
	return err;
}

/**
 * zram_bdev_read_exit - free the read pin state, if initialized
 * @zram: device
 *
 * A second call does nothing. No written-back slot read may be in flight:
 * reset claims and syncs the device first, and a chained read drops its
 * pin before its parent bio completes (cleanup_srcu_struct() warns
 * otherwise).
 *
 * Context: process context, init_lock held for write; sleeps.
 */
void zram_bdev_read_exit(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held_write(&zram->init_lock);
	if (!bd->read_ready)
		return;
	bioset_exit(&bd->read_bs);
	cleanup_srcu_struct(&bd->read_srcu);
	bd->read_ready = false;
}

/**
 * zram_bdev_attach - attach an opened backing device
 * @zram: device, not initialized, init_lock held for write
 * @path: path as written to backing_dev, without its newline
 *
 * Opens @path, allocates the block bitmaps, initializes the read pin
 * state on first use, and only then replaces the current backing device,
 * so on error the backing device did not change. The name kept for
 * backing_dev to read is @path resolved, see zram_bdev_resolve().
 *
 * Context: process context; sleeps.
 * Return: 0 or -errno, see zram_bdev_resolve() and zram_bdev_open();
 * -ENOMEM.
 */
int zram_bdev_attach(struct zram *zram, const char *path)
{
	struct zram_bdev *bd = &zram->backing;
	unsigned long nr_blocks, longs;
	struct file *bdev_file;
	unsigned long *bitmap;
	char *saved_path;
	int err;

	lockdep_assert_held_write(&zram->init_lock);
	saved_path = zram_bdev_resolve(path);
	if (IS_ERR(saved_path))
		return PTR_ERR(saved_path);
	bdev_file = zram_bdev_open(zram, saved_path);
	if (IS_ERR(bdev_file)) {
		err = PTR_ERR(bdev_file);
		goto out_free_path;
	}
	nr_blocks = bdev_nr_bytes(file_bdev(bdev_file)) >> PAGE_SHIFT;
	longs = BITS_TO_LONGS(nr_blocks);
	/* bitmap, free_pending and free_staged, in this order. */
	bitmap = kvcalloc(array_size(3, longs), sizeof(long), GFP_KERNEL);
	if (!bitmap) {
		err = -ENOMEM;
		goto out_put_bdev;
	}
	err = zram_bdev_read_init(zram);
	if (err)
		goto out_free_bitmap;
	/* Block 0 is never used: a ZRAM_WB handle of 0 would look empty. */
	set_bit(0, bitmap);

	zram_bdev_release(zram);
	bd->bdev_file = bdev_file;
	bd->bdev = file_bdev(bdev_file);
	bd->bdev_path = saved_path;
	bd->bitmap = bitmap;
	bd->free_pending = bitmap + longs;
	bd->free_staged = bitmap + 2 * longs;
	bd->nr_blocks = nr_blocks;
	return 0;

out_free_bitmap:
	kvfree(bitmap);
out_put_bdev:
	bdev_fput(bdev_file);
out_free_path:
	kfree(saved_path);
	return err;
}

/**
 * zram_bdev_harvest - make the blocks freed since the last harvest reusable
 * @zram: device with a backing device
 *
 * Blocks freed by zram_bdev_free_block() wait in backing.free_pending. They are
 * staged first and only then is a grace period of backing.read_srcu waited
 * for: every read that pinned a staged block pinned it before the free
 * (under the slot lock), hence before the staging, so the grace period
 * covers it. A block freed during the wait stays pending for the next
 * harvest, as its reader may have pinned after the grace period began.
 *
 * Context: process context, zram.pp_lock held; sleeps when there is
 * something to harvest.
 * Return: true when blocks were made reusable.
 */
bool zram_bdev_harvest(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held(&zram->pp_lock);
	/* Staged is empty between harvests: nothing new, nothing to do. */
	if (!zram_extent_stage_frees(bd->free_pending, bd->free_staged,
				     bd->nr_blocks))
		return false;
	synchronize_srcu(&bd->read_srcu);
	zram_extent_release_staged(bd->bitmap, bd->free_staged, bd->nr_blocks);
	return true;
}

/* Reads @part and waits for it. Process context, sleeps. */
static int zram_bdev_read_wait(struct block_device *bdev,
			       const struct zram_bdev_part *part)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, bdev, &bvec, 1, REQ_OP_READ);
	bio.bi_iter.bi_sector = part->sector;
	__bio_add_page(&bio, part->page, part->len, part->offset);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

/**
 * struct zram_bdev_sync_read - a synchronous read handed to a worker
 * @work: runs zram_bdev_sync_read_fn()
 * @bdev: backing device
 * @part: what to read, and where to
 * @error: result, 0 or -errno
 */
struct zram_bdev_sync_read {
	struct work_struct work;
	struct block_device *bdev;
	const struct zram_bdev_part *part;
	int error;
};

static void zram_bdev_sync_read_fn(struct work_struct *work)
{
	struct zram_bdev_sync_read *rd =
		container_of(work, struct zram_bdev_sync_read, work);

	rd->error = zram_bdev_read_wait(rd->bdev, rd->part);
}

/*
 * Inside zram's ->submit_bio (current->bio_list set), submit_bio() only
 * queues the bio until we return, so waiting for it there would deadlock:
 * issue and wait for it from a worker instead. zram_bdev_read_wq, like the
 * bio workers that may get here, is WQ_MEM_RECLAIM, so flushing it from
 * them is allowed. Elsewhere (a worker finishing a bio) wait in place.
 */
static int zram_bdev_read_sync(struct zram *zram,
			       const struct zram_bdev_part *part)
{
	struct zram_bdev_sync_read rd = {
		.bdev = zram->backing.bdev,
		.part = part,
	};

	if (!current->bio_list)
		return zram_bdev_read_wait(zram->backing.bdev, part);
	INIT_WORK_ONSTACK(&rd.work, zram_bdev_sync_read_fn);
	queue_work(zram_bdev_read_wq, &rd.work);
	flush_work(&rd.work);
	destroy_work_on_stack(&rd.work);
	return rd.error;
}

/*
 * Drops a read pin taken by zram_bdev_read_pin(). Any context, including
 * hard interrupt; never sleeps.
 */
static void zram_bdev_read_unpin(struct zram *zram, int pin)
	__releases(&zram->backing.read_srcu)
{
	srcu_up_read(&zram->backing.read_srcu, pin);
}

static void zram_bdev_read_end_io(struct bio *bio);

/* A read of the whole page in @block into @page. */
static struct zram_bdev_part zram_bdev_page_part(struct page *page,
						 unsigned long block)
{
	return (struct zram_bdev_part) {
		.page = page,
		.len = PAGE_SIZE,
		.sector = zram_bdev_block_sector(block),
	};
}

/* Points a new or reset chained read at its sectors and page. */
static void zram_bdev_rbio_prep(struct zram_bdev_rbio *rbio)
{
	struct bio *bio = &rbio->bio;

	bio->bi_iter.bi_sector = rbio->part.sector;
	bio->bi_end_io = zram_bdev_read_end_io;
	__bio_add_page(bio, rbio->part.page, rbio->part.len,
		       rbio->part.offset);
}

/*
 * Issues a chained read again without REQ_NOWAIT. The parent still counts
 * it as pending and the pin is still held. zram_bdev_read_wq worker:
 * process context, may sleep.
 */
static void zram_bdev_read_retry_fn(struct work_struct *work)
{
	struct zram_bdev_rbio *rbio =
		container_of(work, struct zram_bdev_rbio, retry);

	bio_reset(&rbio->bio, rbio->zram->backing.bdev, REQ_OP_READ);
	zram_bdev_rbio_prep(rbio);
	submit_bio(&rbio->bio);
}

/*
 * Completion of a chained read, like bio_chain()'s: passes the first error
 * on to the parent and completes it, but drops the pin first, so that the
 * parent (and with it reset's wait for I/O) never outlives the pin. A
 * REQ_NOWAIT read the backing device refused is not an error: the parent
 * may already be partly served, so it is read again from a worker (see
 * the nowait contract in zram_drv.c). Any context, including hard irq.
 */
static void zram_bdev_pread_end(struct zram_bdev_pread *pr,
				blk_status_t status);

static void zram_bdev_read_end_io(struct bio *bio)
{
	struct zram_bdev_rbio *rbio = container_of(bio, struct zram_bdev_rbio, bio);
	struct zram_bdev_pread *pr = rbio->pread;
	struct bio *parent = rbio->parent;
	blk_status_t status = bio->bi_status;

	if (status == BLK_STS_AGAIN && (bio->bi_opf & REQ_NOWAIT)) {
		queue_work(zram_bdev_read_wq, &rbio->retry);
		return;
	}
	if (pr) {
		bio_put(bio);
		zram_bdev_pread_end(pr, status);
		return;
	}
	/* For sparse: the pin zram_bdev_read_async() handed over. */
	__acquire(&rbio->zram->backing.read_srcu);
	if (bio->bi_status && !parent->bi_status)
		parent->bi_status = bio->bi_status;
	zram_bdev_read_unpin(rbio->zram, rbio->pin);
	bio_put(bio);
	bio_endio(parent);
}

/*
 * Submits the read, whose completion drops @pin; on error drops it at
 * once. @nowait: a REQ_NOWAIT read, refused with -EAGAIN when the backing
 * device lacks nowait support or memory is short. Returns 0, -EAGAIN or
 * -ENOMEM.
 */
static int zram_bdev_read_async(struct zram *zram, struct page *page,
				unsigned long block, int pin, struct bio *parent,
				bool nowait)
	__releases(&zram->backing.read_srcu)
{
	struct block_device *bdev = zram->backing.bdev;
	struct zram_bdev_rbio *rbio;
	struct bio *bio = NULL;

	/* Without REQ_NOWAIT the mempool makes this wait, never fail. */
	if (!nowait)
		bio = bio_alloc_bioset(bdev, 1, REQ_OP_READ, GFP_NOIO,
				       &zram->backing.read_bs);
	else if (bdev_nowait(bdev))
		bio = bio_alloc_bioset(bdev, 1, REQ_OP_READ | REQ_NOWAIT,
				       GFP_NOWAIT | __GFP_NOWARN,
				       &zram->backing.read_bs);
	if (!bio) {
		zram_bdev_read_unpin(zram, pin);
		return nowait ? -EAGAIN : -ENOMEM;
	}
	rbio = container_of(bio, struct zram_bdev_rbio, bio);
	rbio->zram = zram;
	rbio->parent = parent;
	rbio->pread = NULL;
	rbio->part = zram_bdev_page_part(page, block);
	rbio->pin = pin;
	INIT_WORK(&rbio->retry, zram_bdev_read_retry_fn);
	zram_bdev_rbio_prep(rbio);
	bio_inc_remaining(parent);
	/* The pin now belongs to the bio: zram_bdev_read_end_io() drops it. */
	__release(&zram->backing.read_srcu);
	submit_bio(bio);
	return 0;
}

/*
 * Finishes a packed slot read whose block reads all completed: decompresses
 * the object (unless a read failed), drops the pin and completes the zram
 * bio, passing an error on to it. Task or softirq context with interrupts
 * on; never sleeps.
 */
static void zram_bdev_pread_done(struct zram_bdev_pread *pr)
{
	struct bio *parent = pr->parent;
	blk_status_t status = pr->status;

	if (!status) {
		if (zram_obj_decompress(pr->zram,
					pr->buf + pr->offset,
					pr->len, pr->prio, pr->page))
			status = BLK_STS_IOERR;
		flush_dcache_page(pr->page);
	}
	if (status && !parent->bi_status)
		parent->bi_status = status;
	kfree(pr->buf);
	/* For sparse: the pin zram_bdev_read_packed_async() handed over. */
	__acquire(&pr->zram->backing.read_srcu);
	zram_bdev_read_unpin(pr->zram, pr->pin);
	kfree(pr);
	bio_endio(parent);
}

/*
 * Work on system_bh_highpri_wq (softirq): finishes the packed reads on one
 * CPU's list, oldest first. The list is found from @work, not from the CPU
 * it runs on: the BH work of a CPU that went offline runs on another one.
 */
static void zram_bdev_pdone_fn(struct work_struct *work)
{
	struct zram_bdev_pdone *pd = container_of(work, struct zram_bdev_pdone,
						  work);
	struct llist_node *first = llist_reverse_order(llist_del_all(&pd->list));
	struct zram_bdev_pread *pr, *next;

	llist_for_each_entry_safe(pr, next, first, node)
		zram_bdev_pread_done(pr);
}

/*
 * Hands @pr to this CPU's softirq. Hard irq context or interrupts off, so
 * the CPU cannot change; the work is queued only by the add that finds the
 * list empty, and a pass that already emptied it is queued again. A BH
 * workqueue runs the work as the interrupt returns, with no task switch
 * (the read's latency is the work's), and never waits for a worker task,
 * so it needs no rescuer to complete zram bios under memory pressure.
 */
static void zram_bdev_pread_defer(struct zram_bdev_pread *pr)
{
	struct zram_bdev_pdone *pd = this_cpu_ptr(&zram_bdev_pdone);

	if (llist_add(&pr->node, &pd->list))
		queue_work_on(smp_processor_id(), system_bh_highpri_wq,
			      &pd->work);
}

/*
 * One block read of a packed slot read completed with @status. The last
 * one finishes the read where it is when that is task or softirq context
 * with interrupts on (zram_obj_decompress() has a stream for each); from
 * hard irq, or with interrupts off, it hands it to the softirq of this
 * CPU. Any context, including hard irq.
 */
static void zram_bdev_pread_end(struct zram_bdev_pread *pr,
				blk_status_t status)
{
	/* Two reads may fail at once: either error will do. */
	if (status)
		WRITE_ONCE(pr->status, status);
	if (!atomic_dec_and_test(&pr->remaining))
		return;
	if (!in_hardirq() && !irqs_disabled())
		zram_bdev_pread_done(pr);
	else
		zram_bdev_pread_defer(pr);
}

/* Bios a read of @loc takes: one, or two when its blocks are apart. */
static unsigned int zram_bdev_loc_bios(const struct zram_bdev_loc *loc)
{
	return loc->next && loc->next != loc->block + 1 ? 2 : 1;
}

/* Blocks a read of @loc reads. */
static unsigned int zram_bdev_loc_blocks(const struct zram_bdev_loc *loc)
{
	return loc->next ? 2 : 1;
}

/**
 * struct zram_bdev_pspan - the bytes a read of a packed object reads
 * @start: where the read starts, in bytes from the start of the object's
 *	first block: the object's offset, rounded down to whole sectors
 * @end: where it ends, in bytes from the same place (past PAGE_SIZE for
 *	an object that runs on into its second block): the object's end,
 *	rounded up to whole sectors
 *
 * "Sectors" are the backing device's smallest read that needs no bounce:
 * its logical block size, or its DMA alignment when that is larger (at
 * most PAGE_SIZE). So a 2 KiB object costs a read of about 2 KiB, not of
 * its block or two.
 */
struct zram_bdev_pspan {
	unsigned int start;
	unsigned int end;
};

/* The span a read of packed object @loc on @bdev reads. */
static struct zram_bdev_pspan zram_bdev_pspan_of(struct block_device *bdev,
						 const struct zram_bdev_loc *loc)
{
	unsigned int unit = max(bdev_logical_block_size(bdev),
				bdev_dma_alignment(bdev) + 1);

	/* Both are powers of two, and so is their maximum. */
	unit = min_t(unsigned int, unit, PAGE_SIZE);
	return (struct zram_bdev_pspan) {
		.start = round_down(loc->offset, unit),
		.end = round_up(loc->offset + loc->len, unit),
	};
}

/*
 * The buffer of a packed read of @sp: kmalloc() of a power-of-two size,
 * so physically contiguous and aligned to its size, which is at least the
 * span's unit.
 */
static void *zram_bdev_pbuf_alloc(const struct zram_bdev_pspan *sp, gfp_t gfp)
{
	return kmalloc(roundup_pow_of_two(sp->end - sp->start), gfp);
}

/*
 * Bio @i of a packed read of @loc (span @sp) into @buf. With one bio, the
 * whole span, across both blocks when they are adjacent. With two (the
 * blocks are apart), the span's share of block @i: the first block's
 * from @sp->start to its end, then the second block's from its start;
 * each lands at its place in @buf.
 */
static void zram_bdev_pbuf_part(const struct zram_bdev_loc *loc,
				const struct zram_bdev_pspan *sp, void *buf,
				unsigned int i, struct zram_bdev_part *part)
{
	sector_t sector = zram_bdev_block_sector(loc->block) +
			  (sp->start >> SECTOR_SHIFT);
	unsigned int at = 0, len = sp->end - sp->start;

	if (zram_bdev_loc_bios(loc) == 2)
		len = i ? sp->end - PAGE_SIZE : PAGE_SIZE - sp->start;
	/* Only a read of two bios has a bio 1: the second block's share. */
	if (i) {
		at = PAGE_SIZE - sp->start;
		sector = zram_bdev_block_sector(loc->next);
	}
	part->page = virt_to_page(buf + at);
	part->offset = offset_in_page(buf + at);
	part->len = len;
	part->sector = sector;
}

/* Points block read @i of packed read @pr (span @sp) at its part. */
static void zram_bdev_pread_rbio(struct zram_bdev_pread *pr,
				 struct zram_bdev_rbio *rbio,
				 const struct zram_bdev_loc *loc,
				 const struct zram_bdev_pspan *sp, unsigned int i)
{
	rbio->zram = pr->zram;
	rbio->parent = NULL;
	rbio->pread = pr;
	zram_bdev_pbuf_part(loc, sp, pr->buf, i, &rbio->part);
	rbio->pin = 0;
	INIT_WORK(&rbio->retry, zram_bdev_read_retry_fn);
	zram_bdev_rbio_prep(rbio);
}

/* A chained read of one block (or two adjacent ones). */
static struct zram_bdev_rbio *zram_bdev_rbio_alloc(struct zram *zram,
						   bool nowait)
{
	blk_opf_t opf = REQ_OP_READ | (nowait ? REQ_NOWAIT : 0);
	gfp_t gfp = nowait ? GFP_NOWAIT : GFP_NOIO;
	struct bio *bio;

	bio = bio_alloc_bioset(zram->backing.bdev, 1, opf, gfp,
			       &zram->backing.read_bs);
	return bio ? container_of(bio, struct zram_bdev_rbio, bio) : NULL;
}

/**
 * zram_bdev_read_packed_async - read a packed slot, chained to a zram bio
 * @zram: device with a backing device
 * @page: destination page
 * @loc: the slot's location; @loc->len < PAGE_SIZE
 * @pin: from zram_bdev_read_pin(); handed to the read, or dropped on error
 * @parent: the zram bio
 * @nowait: a REQ_NOWAIT bio: nothing may wait
 *
 * Reads the sectors of the object's block(s) that hold it into a buffer
 * with one bio, or two when the blocks are apart; the last completion
 * decompresses (in task or softirq context, zram_bdev_pread_end()) and
 * completes @parent. With @nowait everything is allocated before anything
 * is issued, so a refusal changes nothing; without, each bio is issued
 * before the next one is allocated (the bio_set's rescuer then issues it
 * should the mempool have to wait).
 *
 * Context: as zram_bdev_read() with a @parent.
 * Return: 0, -EAGAIN (@nowait: no nowait support or memory short) or
 * -ENOMEM.
 */
static int zram_bdev_read_packed_async(struct zram *zram, struct page *page,
				       const struct zram_bdev_loc *loc,
				       int pin, struct bio *parent,
				       bool nowait)
	__releases(&zram->backing.read_srcu)
{
	struct zram_bdev_pspan sp = zram_bdev_pspan_of(zram->backing.bdev, loc);
	unsigned int i, nr = zram_bdev_loc_bios(loc);
	gfp_t gfp = nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_NOIO;
	struct zram_bdev_rbio *rbio[2] = { };
	struct zram_bdev_pread *pr;
	int err = nowait ? -EAGAIN : -ENOMEM;

	if (nowait && !bdev_nowait(zram->backing.bdev))
		goto out_unpin;
	pr = kmalloc_obj(*pr, gfp);
	if (!pr)
		goto out_unpin;
	pr->buf = zram_bdev_pbuf_alloc(&sp, gfp);
	if (!pr->buf)
		goto out_free_pr;
	for (i = 0; nowait && i < nr; i++) {
		rbio[i] = zram_bdev_rbio_alloc(zram, true);
		if (!rbio[i])
			goto out_put_bios;
	}
	pr->zram = zram;
	pr->parent = parent;
	pr->page = page;
	pr->offset = loc->offset - sp.start;
	pr->len = loc->len;
	pr->prio = loc->prio;
	pr->status = BLK_STS_OK;
	pr->pin = pin;
	atomic_set(&pr->remaining, nr);
	bio_inc_remaining(parent);
	/* The pin now belongs to @pr: zram_bdev_pread_done() drops it. */
	__release(&zram->backing.read_srcu);
	for (i = 0; i < nr; i++) {
		if (!rbio[i])
			rbio[i] = zram_bdev_rbio_alloc(zram, false);
		zram_bdev_pread_rbio(pr, rbio[i], loc, &sp, i);
		submit_bio(&rbio[i]->bio);
	}
	return 0;

out_put_bios:
	for (i = 0; i < nr; i++) {
		if (rbio[i])
			bio_put(&rbio[i]->bio);
	}
	kfree(pr->buf);
out_free_pr:
	kfree(pr);
out_unpin:
	zram_bdev_read_unpin(zram, pin);
	return err;
}

/* Reads the whole page in @block into @page. Process context, sleeps. */
static int zram_bdev_read_page_sync(struct zram *zram, struct page *page,
				    unsigned long block)
{
	struct zram_bdev_part part = zram_bdev_page_part(page, block);

	return zram_bdev_read_sync(zram, &part);
}

/*
 * Reads a packed slot synchronously: the sectors of its block(s) that hold
 * it into a buffer, then decompresses. Process context, sleeps; returns 0
 * or -errno.
 */
static int zram_bdev_read_packed_sync(struct zram *zram, struct page *page,
				      const struct zram_bdev_loc *loc)
{
	struct zram_bdev_pspan sp = zram_bdev_pspan_of(zram->backing.bdev, loc);
	void *buf = zram_bdev_pbuf_alloc(&sp, GFP_NOIO);
	struct zram_bdev_part part;
	unsigned int i;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (i = 0; !ret && i < zram_bdev_loc_bios(loc); i++) {
		zram_bdev_pbuf_part(loc, &sp, buf, i, &part);
		ret = zram_bdev_read_sync(zram, &part);
	}
	if (!ret)
		ret = zram_obj_decompress(zram, buf + loc->offset - sp.start,
					  loc->len, loc->prio, page);
	kfree(buf);
	return ret;
}

/**
 * zram_bdev_read_pin - pin the block of a written-back slot against reuse
 * @zram: device with a backing device
 *
 * Until the pin is dropped, no block freed after this call is handed out
 * again (see zram_bdev_harvest()). Taking it under the slot lock orders it
 * before any free of the slot's block. zram_bdev_read() drops it.
 *
 * Context: slot lock of the ZRAM_WB slot held; any context but NMI; never
 * sleeps, nowait-safe.
 * Return: the pin, to pass to zram_bdev_read().
 */
int zram_bdev_read_pin(struct zram *zram)
	__acquires(&zram->backing.read_srcu)
{
	return srcu_down_read(&zram->backing.read_srcu);
}

/**
 * zram_bdev_read - read one written-back slot from the backing device
 * @zram: device with a backing device
 * @page: destination page (PAGE_SIZE bytes)
 * @loc: where the slot's data is (read under the slot lock together with
 *	@pin): a whole page, or a packed object, which is decompressed
 * @pin: from zram_bdev_read_pin(); dropped on every path: when the read
 *	completed (with @parent: in its completion), or at once on error
 * @parent: bio to chain the read to, or NULL to read synchronously
 * @nowait: the caller must not block (REQ_NOWAIT); only with @parent
 *
 * With @parent the read is submitted chained to it, so @parent completes
 * after the data arrived (or fails with the read's error). With @nowait
 * the read is refused with -EAGAIN and no side effect when the backing
 * device does not support nowait or memory is short; once submitted, a
 * BLK_STS_AGAIN from the backing device makes a worker issue it again,
 * blocking, so @parent never fails with it.
 *
 * Context: @parent: any context zram's ->submit_bio runs in; never sleeps
 * with @nowait. No @parent: process context, sleeps.
 * Return: 0 (with @parent: submitted), -EAGAIN, -ENOMEM, or the read's
 * -errno (without @parent).
 */
int zram_bdev_read(struct zram *zram, struct page *page,
		   const struct zram_bdev_loc *loc, int pin, struct bio *parent,
		   bool nowait)
	__releases(&zram->backing.read_srcu)
{
	bool whole = loc->len == PAGE_SIZE;
	int ret;

	if (parent && whole) {
		ret = zram_bdev_read_async(zram, page, loc->block, pin, parent,
					   nowait);
	} else if (parent) {
		ret = zram_bdev_read_packed_async(zram, page, loc, pin, parent,
						  nowait);
	} else {
		if (whole)
			ret = zram_bdev_read_page_sync(zram, page, loc->block);
		else
			ret = zram_bdev_read_packed_sync(zram, page, loc);
		zram_bdev_read_unpin(zram, pin);
	}
	/*
	 * bd_reads counts the blocks that reads issued touch (a packed
	 * object's read reads only its sectors of them): a chained read once
	 * submitted, whatever its outcome (a retry after BLK_STS_AGAIN is the
	 * same read); a synchronous read only when it succeeded, as its error
	 * cannot tell a read refused before reaching the device from one the
	 * device failed. pk_split_reads counts those of them that took two
	 * bios, for tests of that path.
	 */
	if (ret)
		return ret;
	atomic64_add(zram_bdev_loc_blocks(loc), &zram->stats.bd_reads);
	if (zram_bdev_loc_bios(loc) == 2)
		atomic64_inc(&zram->stats.pk_split_reads);
	return 0;
}

/**
 * zram_bdev_module_init() - create the workers of backing device reads
 *
 * Context: module init; sleeps.
 * Return: 0 or -ENOMEM.
 */
int zram_bdev_module_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct zram_bdev_pdone *pd = per_cpu_ptr(&zram_bdev_pdone, cpu);

		init_llist_head(&pd->list);
		INIT_WORK(&pd->work, zram_bdev_pdone_fn);
	}
	zram_bdev_read_wq = alloc_workqueue("zram_bdev_read",
					    WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return zram_bdev_read_wq ? 0 : -ENOMEM;
}

/**
 * zram_bdev_module_exit() - destroy them, once every device is gone
 *
 * Context: module exit; sleeps.
 */
void zram_bdev_module_exit(void)
{
	unsigned int cpu;

	/* the last completion may have queued its CPU's work just now */
	for_each_possible_cpu(cpu)
		flush_work(&per_cpu_ptr(&zram_bdev_pdone, cpu)->work);
	destroy_workqueue(zram_bdev_read_wq);
}
