// SPDX-License-Identifier: GPL-2.0-only
/* zram backing device: attach, release, harvest, written-back slot reads. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/llist.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "zram_extent.h"
#include "zram_obj.h"
#include "zram_slot.h"

struct zram_bdev_pread;

/* @len bytes from @sector into @page at @offset, maybe on past @page. */
struct zram_bdev_part {
	struct page *page;
	unsigned int offset;
	unsigned int len;
	sector_t sector;
};

/*
 * A read chained to @parent, or to @pread, which then owns the pin. @part
 * is its first part; a read chained to @parent may go on with whole pages
 * of the blocks that follow (a run), @nr_slots pages in all (unused for
 * @pread). @vcnt and @size are the bvec table's when submitted, for a
 * reissue.
 */
struct zram_bdev_rbio {
	struct zram *zram;
	struct bio *parent;
	struct zram_bdev_pread *pread;
	struct zram_bdev_part part;
	unsigned int nr_slots;
	unsigned int size;
	unsigned short vcnt;
	struct work_struct retry;
	int pin;
	struct bio bio;
};

/* A span buffer, and whether it came through pbuf_pool. */
struct zram_bdev_pbuf {
	void *data;
	bool pooled;
};

/*
 * A packed slot read: one or two reads into @buf; the last decompresses.
 * It has pread_pool's element size: mempool_free() takes it from kmalloc()
 * and from the pool alike.
 */
struct zram_bdev_pread {
	struct zram *zram;
	struct bio *parent;
	struct page *page;
	struct zram_bdev_pbuf buf;
	unsigned int offset;
	unsigned int len;
	u32 prio;
	atomic_t remaining;
	blk_status_t status;
	int pin;
	struct llist_node node;
};

/* Per CPU: packed reads that one softirq pass of @work finishes. */
struct zram_bdev_pdone {
	struct llist_head list;
	struct work_struct work;
};

static DEFINE_PER_CPU(struct zram_bdev_pdone, zram_bdev_pdone);

/*
 * Blocking reissues and synchronous reads for zram bios: WQ_MEM_RECLAIM.
 * Their bios are throttled as the zram bio's cgroup: under memory pressure
 * the rescuer runs them one at a time, so one may wait behind another's.
 */
static struct workqueue_struct *zram_bdev_read_wq;

/* The name backing_dev shows: @path made absolute, symlinks followed. */
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

/* -EINVAL: @zram itself or under a page; -EBUSY: held (@zram's too). */
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
 * zram_bdev_release - release the backing device and its bitmaps, if any
 * @zram: device, not initialized (or every slot freed)
 *
 * Context: process context, init_lock held for write; sleeps.
 */
void zram_bdev_release(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held_write(&zram->init_lock);
	if (bd->bdev_file)
		bdev_fput(bd->bdev_file);
	/* Also frees free_pending: one allocation. */
	kvfree(bd->bitmap);
	kvfree(bd->pack);
	mempool_exit(&bd->pbuf_pool);
	mempool_exit(&bd->pread_pool);
	kfree(bd->bdev_path);
	bd->bdev_file = NULL;
	bd->bdev = NULL;
	bd->bdev_path = NULL;
	bd->bitmap = NULL;
	bd->free_pending = NULL;
	atomic_long_set(&bd->nr_free_pending, 0);
	bd->pack = NULL;
	bd->nr_blocks = 0;
}

/* On first attach; read_srcu and read_bs then stay until reset. Sleeps. */
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
	/* Several reads of one zram bio may wait unissued on bio_list. */
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
 * @zram: device with no written-back slot read in flight
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

/* Packed reads the reserve holds: a request and a span buffer each. */
#define ZRAM_BDEV_PREAD_RESERVE	2
/* The largest span: an object's part of two blocks, rounded out. */
#define ZRAM_BDEV_PBUF_MAX	(2 * PAGE_SIZE)

/**
 * zram_bdev_read_reserve_init - set up the reserve of blocking packed reads
 * @zram: device being initialized, with a backing device and compressed
 *	writeback; zram_bdev_release() frees the reserve
 *
 * Context: process context, init_lock held for write; sleeps.
 * Return: 0 or -ENOMEM, with nothing set up.
 */
int zram_bdev_read_reserve_init(struct zram *zram)
{
	struct zram_bdev *bd = &zram->backing;
	int err;

	lockdep_assert_held_write(&zram->init_lock);
	err = mempool_init_kmalloc_pool(&bd->pread_pool,
					ZRAM_BDEV_PREAD_RESERVE,
					sizeof(struct zram_bdev_pread));
	if (err)
		return err;
	err = mempool_init_kmalloc_pool(&bd->pbuf_pool,
					ZRAM_BDEV_PREAD_RESERVE,
					ZRAM_BDEV_PBUF_MAX);
	if (err)
		mempool_exit(&bd->pread_pool);
	return err;
}

/**
 * zram_bdev_attach - open @path and make it the backing device
 * @zram: device, not initialized
 * @path: as written to backing_dev, without its newline
 *
 * Context: process context, init_lock held for write; sleeps.
 * Return: 0, or -ENOMEM or the errno of resolving or opening @path, with
 * the backing device unchanged.
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
	bitmap = kvcalloc(array_size(2, longs), sizeof(long), GFP_KERNEL);
	if (!bitmap) {
		err = -ENOMEM;
		goto out_put_bdev;
	}
	err = zram_bdev_read_init(zram);
	if (err)
		goto out_free_bitmap;
	set_bit(0, bitmap);

	zram_bdev_release(zram);
	bd->bdev_file = bdev_file;
	bd->bdev = file_bdev(bdev_file);
	bd->bdev_path = saved_path;
	bd->bitmap = bitmap;
	bd->free_pending = bitmap + longs;
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
 * zram_bdev_meta_bytes - memory the driver keeps for the backing device
 * @zram: device
 * @maps: set to the bytes of the block bitmaps
 * @pack: set to the bytes of the packing state (compressed_writeback)
 * @reserve: set to the bytes of the reserve of packed reads, as requested
 *	from kmalloc()
 *
 * Context: init_lock held.
 */
void zram_bdev_meta_bytes(struct zram *zram, size_t *maps, size_t *pack,
			  size_t *reserve)
{
	struct zram_bdev *bd = &zram->backing;

	lockdep_assert_held(&zram->init_lock);
	*maps = 0;
	*pack = 0;
	*reserve = 0;
	if (!bd->bitmap)
		return;
	*maps = 2 * BITS_TO_LONGS(bd->nr_blocks) * sizeof(long);
	if (!bd->pack)
		return;
	*pack = DIV_ROUND_UP(bd->nr_blocks, 2) * sizeof(*bd->pack);
	*reserve = ZRAM_BDEV_PREAD_RESERVE *
		   (sizeof(struct zram_bdev_pread) + ZRAM_BDEV_PBUF_MAX);
}

/**
 * zram_bdev_harvest - make the blocks freed since the last harvest reusable
 * @zram: device with a backing device
 * @staged: the caller's room for the frees of one grace period, empty
 *
 * Stages pending frees, then waits for a read_srcu grace period, which
 * covers every read of a staged block: it pinned the block before its free.
 * A grace period per ZRAM_EXTENT_STAGED_WORDS words that hold frees, the
 * ones after the first expedited; a fatal signal stops between them, the
 * frees left waiting for the next harvest.
 *
 * Context: process context, zram.pp_lock held; sleeps if any was freed.
 * Return: true when blocks were made reusable.
 */
bool zram_bdev_harvest(struct zram *zram, struct zram_extent_staged *staged)
{
	struct zram_bdev *bd = &zram->backing;
	unsigned long nr, from = 0;
	bool released = false;

	lockdep_assert_held(&zram->pp_lock);
	/* No walk of the bitmap, whatever its size, when nothing was freed. */
	while (from < bd->nr_blocks && atomic_long_read(&bd->nr_free_pending)) {
		nr = zram_extent_stage_frees(bd->free_pending, bd->nr_blocks,
					     &from, staged);
		atomic_long_sub(nr, &bd->nr_free_pending);
		if (!nr)
			break;
		if (!released)
			synchronize_srcu(&bd->read_srcu);
		else
			synchronize_srcu_expedited(&bd->read_srcu);
		zram_extent_release_staged(bd->bitmap, staged);
		released = true;
		if (fatal_signal_pending(current))
			break;
	}
	staged->nr = 0;
	return released;
}

/*
 * A backing read is charged to @orig's cgroup and has its I/O priority,
 * also when a worker issues it.
 */
static void zram_bdev_read_inherit(struct bio *bio, struct bio *orig)
{
	bio_clone_blkg_association(bio, orig);
	bio->bi_ioprio = orig->bi_ioprio;
}

static int zram_bdev_read_wait(struct block_device *bdev,
			       const struct zram_bdev_part *part,
			       struct bio *orig)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, bdev, &bvec, 1, REQ_OP_READ);
	zram_bdev_read_inherit(&bio, orig);
	bio.bi_iter.bi_sector = part->sector;
	__bio_add_page(&bio, part->page, part->len, part->offset);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

struct zram_bdev_sync_read {
	struct work_struct work;
	struct block_device *bdev;
	const struct zram_bdev_part *part;
	struct bio *orig;
	int error;
};

static void zram_bdev_sync_read_fn(struct work_struct *work)
{
	struct zram_bdev_sync_read *rd =
		container_of(work, struct zram_bdev_sync_read, work);

	rd->error = zram_bdev_read_wait(rd->bdev, rd->part, rd->orig);
}

/* In ->submit_bio, submit_bio() defers until we return: wait in a worker. */
static int zram_bdev_read_sync(struct zram *zram,
			       const struct zram_bdev_part *part, struct bio *orig)
{
	struct zram_bdev_sync_read rd = {
		.bdev = zram->backing.bdev,
		.part = part,
		.orig = orig,
	};

	if (!current->bio_list)
		return zram_bdev_read_wait(zram->backing.bdev, part, orig);
	INIT_WORK_ONSTACK(&rd.work, zram_bdev_sync_read_fn);
	queue_work(zram_bdev_read_wq, &rd.work);
	flush_work(&rd.work);
	destroy_work_on_stack(&rd.work);
	return rd.error;
}

static void zram_bdev_read_unpin(struct zram *zram, int pin)
	__releases(&zram->backing.read_srcu)
{
	srcu_up_read(&zram->backing.read_srcu, pin);
}

static void zram_bdev_read_end_io(struct bio *bio);

/*
 * A backing read failed after the steps of its @nr slots returned 0:
 * @parent ends with @status, and failed_reads counts the slots.
 */
static void zram_bdev_read_failed(struct zram *zram, struct bio *parent,
				  blk_status_t status, unsigned int nr)
{
	atomic64_add(nr, &zram->stats.failed_reads);
	if (!parent->bi_status)
		parent->bi_status = status;
}

static struct zram_bdev_part zram_bdev_page_part(struct page *page,
						 unsigned long block)
{
	return (struct zram_bdev_part) {
		.page = page,
		.len = PAGE_SIZE,
		.sector = zram_bdev_block_sector(block),
	};
}

/* Where the read starts and what ends it; its first part is added apart. */
static void zram_bdev_rbio_aim(struct zram_bdev_rbio *rbio)
{
	rbio->bio.bi_iter.bi_sector = rbio->part.sector;
	rbio->bio.bi_end_io = zram_bdev_read_end_io;
}

static void zram_bdev_rbio_prep(struct zram_bdev_rbio *rbio)
{
	zram_bdev_rbio_aim(rbio);
	__bio_add_page(&rbio->bio, rbio->part.page, rbio->part.len,
		       rbio->part.offset);
}

/* Notes what a reissue takes again, then submits. */
static void zram_bdev_rbio_submit(struct zram_bdev_rbio *rbio)
{
	rbio->vcnt = rbio->bio.bi_vcnt;
	rbio->size = rbio->bio.bi_iter.bi_size;
	submit_bio(&rbio->bio);
}

/*
 * Reissues a refused REQ_NOWAIT read, blocking; it keeps its pin. A bio's
 * bvec table is its owner's (Documentation/block/biovecs.rst: the block
 * layer moves iterators and clones), and bio_reset() keeps it.
 */
static void zram_bdev_read_retry_fn(struct work_struct *work)
{
	struct zram_bdev_rbio *rbio =
		container_of(work, struct zram_bdev_rbio, retry);
	struct bio *bio = &rbio->bio;

	bio_reset(bio, rbio->zram->backing.bdev, REQ_OP_READ);
	zram_bdev_read_inherit(bio, rbio->parent ?: rbio->pread->parent);
	zram_bdev_rbio_aim(rbio);
	bio->bi_vcnt = rbio->vcnt;
	bio->bi_iter.bi_size = rbio->size;
	submit_bio(bio);
}

static void zram_bdev_pread_end(struct zram_bdev_pread *pr,
				blk_status_t status);

/* Drops the pin before ending @parent, so reset's wait for I/O covers it. */
static void zram_bdev_read_end_io(struct bio *bio)
{
	struct zram_bdev_rbio *rbio = container_of(bio, struct zram_bdev_rbio, bio);
	struct zram_bdev_pread *pr = rbio->pread;
	struct bio *parent = rbio->parent;
	blk_status_t status = bio->bi_status;

	/*
	 * The parent may be partly served: never fail it with AGAIN, nor with
	 * NOTSUPP from a device that lost nowait support since the check.
	 */
	if ((status == BLK_STS_AGAIN || status == BLK_STS_NOTSUPP) &&
	    (bio->bi_opf & REQ_NOWAIT)) {
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
	if (status)
		zram_bdev_read_failed(rbio->zram, parent, status,
				      rbio->nr_slots);
	zram_bdev_read_unpin(rbio->zram, rbio->pin);
	bio_put(bio);
	bio_endio(parent);
}

/*
 * Sectors the block layer lets one read from @sector have before it splits
 * it (get_max_io_size()): max_sectors, cut at a chunk boundary and ended
 * on a physical block boundary, both counted from the whole disk's start.
 */
static unsigned int zram_bdev_run_sectors(struct block_device *bdev,
					  sector_t sector)
{
	const struct queue_limits *lim = &bdev_get_queue(bdev)->limits;
	unsigned int pbs = lim->physical_block_size >> SECTOR_SHIFT;
	unsigned int max = lim->max_sectors, start, end;

	sector += get_start_sect(bdev);
	if (lim->chunk_sectors)
		max = min(max, blk_boundary_sectors_left(sector,
							 lim->chunk_sectors));
	start = sector & (pbs - 1);
	end = (start + max) & ~(pbs - 1);
	return end > start ? end - start : max;
}

/*
 * Pages of a run from @sector: no more than the backing device takes in
 * one request, as a REQ_NOWAIT bio that needs a split is refused. A page
 * is more than one segment where segments are shorter.
 */
static unsigned int zram_bdev_run_max(struct block_device *bdev,
				      sector_t sector, unsigned int room)
{
	const struct queue_limits *lim = &bdev_get_queue(bdev)->limits;
	unsigned long seg = min_t(unsigned long, lim->max_segment_size,
				  PAGE_SIZE);
	unsigned int max;

	/* A one-page zram bio (a 4 KiB read) needs no limit. */
	if (room <= 1)
		return 1;
	seg = min_t(unsigned long, seg,
		    min_t(unsigned long, lim->seg_boundary_mask,
			  PAGE_SIZE - 1) + 1);
	max = min3(room, BIO_MAX_VECS,
		   lim->max_segments / (unsigned int)DIV_ROUND_UP(PAGE_SIZE, seg));
	max = min(max, zram_bdev_run_sectors(bdev, sector) >>
		  PAGE_SECTORS_SHIFT);
	return max ?: 1;
}

/*
 * A read of up to @vecs pages, taken without waiting, else of one page:
 * memory being short makes a run shorter, never a read wait longer.
 * NULL only with @nowait.
 */
static struct bio *zram_bdev_run_alloc(struct zram *zram, unsigned int vecs,
				       bool nowait)
{
	struct zram_bdev *bd = &zram->backing;
	blk_opf_t opf = REQ_OP_READ | (nowait ? REQ_NOWAIT : 0);
	gfp_t gfp = nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_NOIO;
	struct bio *bio;

	if (nowait && !bdev_nowait(bd->bdev))
		return NULL;
	if (vecs > 1) {
		bio = bio_alloc_bioset(bd->bdev, vecs, opf,
				       GFP_NOWAIT | __GFP_NOWARN, &bd->read_bs);
		if (bio)
			return bio;
	}
	/* Without @nowait, GFP_NOIO: the bio_set's mempool never fails. */
	return bio_alloc_bioset(bd->bdev, 1, opf, gfp, &bd->read_bs);
}

/* Adds @page to @run when @block is the next one; the run's pin covers it. */
static bool zram_bdev_run_extend(struct zram_bdev_run *run, struct page *page,
				 unsigned long block)
{
	struct zram_bdev_rbio *rbio;

	if (!run->bio || !run->left || block != run->next)
		return false;
	if (bio_add_page(run->bio, page, PAGE_SIZE, 0) != PAGE_SIZE)
		return false;
	rbio = container_of(run->bio, struct zram_bdev_rbio, bio);
	rbio->nr_slots++;
	run->next++;
	run->left--;
	return true;
}

/**
 * zram_bdev_run_submit - submit the read a run has gathered, if any
 * @run: the run of the caller's serving of a zram bio
 *
 * Context: as zram_bdev_read() with @run; sleeps only outside ->submit_bio
 * and without REQ_NOWAIT.
 */
void zram_bdev_run_submit(struct zram_bdev_run *run)
{
	if (!run->bio)
		return;
	zram_bdev_rbio_submit(container_of(run->bio, struct zram_bdev_rbio,
					   bio));
	run->bio = NULL;
}

/*
 * Returns 0 or -EAGAIN (@nowait); @pin goes with the bio or is dropped. A
 * read that starts a run holds the run's pin. It was taken before the slot
 * lock of any later page of the run, so it keeps their blocks too from
 * reuse: their own pins are dropped at once.
 */
static int zram_bdev_read_async(struct zram *zram, struct page *page,
				unsigned long block, int pin, struct bio *parent,
				struct zram_bdev_run *run, bool nowait)
	__releases(&zram->backing.read_srcu)
{
	struct zram_bdev_rbio *rbio;
	unsigned int max;
	struct bio *bio;

	if (zram_bdev_run_extend(run, page, block)) {
		zram_bdev_read_unpin(zram, pin);
		return 0;
	}
	/* First: a run holds an element of the mempools allocated from. */
	zram_bdev_run_submit(run);
	max = zram_bdev_run_max(zram->backing.bdev,
				zram_bdev_block_sector(block), run->room);
	bio = zram_bdev_run_alloc(zram, max, nowait);
	if (!bio) {
		zram_bdev_read_unpin(zram, pin);
		return -EAGAIN;
	}
	zram_bdev_read_inherit(bio, parent);
	rbio = container_of(bio, struct zram_bdev_rbio, bio);
	rbio->zram = zram;
	rbio->parent = parent;
	rbio->pread = NULL;
	rbio->part = zram_bdev_page_part(page, block);
	rbio->nr_slots = 1;
	rbio->pin = pin;
	INIT_WORK(&rbio->retry, zram_bdev_read_retry_fn);
	zram_bdev_rbio_prep(rbio);
	bio_inc_remaining(parent);
	/* The pin now belongs to the bio: zram_bdev_read_end_io() drops it. */
	__release(&zram->backing.read_srcu);
	run->bio = bio;
	run->next = block + 1;
	run->left = min_t(unsigned int, max, bio->bi_max_vecs) - 1;
	return 0;
}

/* Frees a span buffer from zram_bdev_read_alloc(). */
static void zram_bdev_pbuf_free(struct zram_bdev *bd,
				const struct zram_bdev_pbuf *buf)
{
	if (buf->pooled)
		mempool_free(buf->data, &bd->pbuf_pool);
	else
		kfree(buf->data);
}

/* Finishes a packed read. Task or softirq context, irqs on. */
static void zram_bdev_pread_done(struct zram_bdev_pread *pr)
{
	struct zram_bdev *bd = &pr->zram->backing;
	struct bio *parent = pr->parent;
	blk_status_t status = pr->status;

	if (!status) {
		if (zram_obj_decompress(pr->zram,
					pr->buf.data + pr->offset,
					pr->len, pr->prio, pr->page))
			status = BLK_STS_IOERR;
		flush_dcache_page(pr->page);
	}
	if (status)
		zram_bdev_read_failed(pr->zram, parent, status, 1);
	zram_bdev_pbuf_free(bd, &pr->buf);
	/* For sparse: the pin zram_bdev_read_packed_async() handed over. */
	__acquire(&bd->read_srcu);
	zram_bdev_read_unpin(pr->zram, pr->pin);
	/* Before @parent ends: reset, which frees the pool, waits for it. */
	mempool_free(pr, &bd->pread_pool);
	bio_endio(parent);
}

/* The list is @work's: the BH work of an offline CPU runs elsewhere. */
static void zram_bdev_pdone_fn(struct work_struct *work)
{
	struct zram_bdev_pdone *pd = container_of(work, struct zram_bdev_pdone,
						  work);
	struct llist_node *first = llist_reverse_order(llist_del_all(&pd->list));
	struct zram_bdev_pread *pr, *next;

	llist_for_each_entry_safe(pr, next, first, node)
		zram_bdev_pread_done(pr);
}

/* Irqs off, so the CPU stays; BH work needs no rescuer to end zram bios. */
static void zram_bdev_pread_defer(struct zram_bdev_pread *pr)
{
	struct zram_bdev_pdone *pd = this_cpu_ptr(&zram_bdev_pdone);

	if (llist_add(&pr->node, &pd->list))
		queue_work_on(smp_processor_id(), system_bh_highpri_wq,
			      &pd->work);
}

/* Any context; zram_obj_decompress() has streams for task and softirq. */
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

static unsigned int zram_bdev_loc_bios(const struct zram_bdev_loc *loc)
{
	return loc->next && loc->next != loc->block + 1 ? 2 : 1;
}

static unsigned int zram_bdev_loc_blocks(const struct zram_bdev_loc *loc)
{
	return loc->next ? 2 : 1;
}

/* Once issued, as upstream: a read that then fails counts too. */
static void zram_bdev_count_read(struct zram *zram,
				 const struct zram_bdev_loc *loc)
{
	atomic64_add(zram_bdev_loc_blocks(loc), &zram->stats.bd_reads);
	if (zram_bdev_loc_bios(loc) == 2)
		atomic64_inc(&zram->stats.pk_split_reads);
}

/* The object rounded out to the smallest read that needs no bounce. */
struct zram_bdev_pspan {
	unsigned int start;
	unsigned int end;
};

static struct zram_bdev_pspan zram_bdev_pspan_of(struct block_device *bdev,
						 const struct zram_bdev_loc *loc)
{
	unsigned int unit = max(bdev_logical_block_size(bdev),
				bdev_dma_alignment(bdev) + 1);

	unit = min_t(unsigned int, unit, PAGE_SIZE);
	return (struct zram_bdev_pspan) {
		.start = round_down(loc->offset, unit),
		.end = round_up(loc->offset + loc->len, unit),
	};
}

/*
 * May a blocking read wait for the reserve? Not while reads that the
 * caller's ->submit_bio queued on bio_list[0] hold some of it: they are
 * issued only after it returns. Those of earlier calls were issued before
 * this one began, as the block layer submits bios for lower devices
 * first; bio_list[1] holds bios not yet begun, which hold none.
 */
static bool zram_bdev_may_wait(void)
{
	return !current->bio_list || bio_list_empty(&current->bio_list[0]);
}

/*
 * Memory for a packed read. @nowait: GFP_NOWAIT, no reserve. Else reclaim
 * that gives up early, then @pool, whose elements hold any @size: its
 * reserve, waited for only when zram_bdev_may_wait(). Sets @pooled when
 * it went to @pool.
 */
static void *zram_bdev_read_alloc(mempool_t *pool, size_t size, bool nowait,
				  bool *pooled)
{
	void *p;

	*pooled = false;
	if (nowait)
		return kmalloc(size, GFP_NOWAIT | __GFP_NOWARN);
	p = kmalloc(size, GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN);
	if (p)
		return p;
	*pooled = true;
	return mempool_alloc(pool, zram_bdev_may_wait() ?
			     GFP_NOIO : GFP_NOWAIT | __GFP_NOWARN);
}

/* A power-of-two kmalloc(): physically contiguous, aligned to its size. */
static size_t zram_bdev_pbuf_size(const struct zram_bdev_pspan *sp)
{
	return roundup_pow_of_two(sp->end - sp->start);
}

/* Bio @i's part of the span: all of it, or one block's share of two. */
static void zram_bdev_pbuf_part(const struct zram_bdev_loc *loc,
				const struct zram_bdev_pspan *sp, void *buf,
				unsigned int i, struct zram_bdev_part *part)
{
	sector_t sector = zram_bdev_block_sector(loc->block) +
			  (sp->start >> SECTOR_SHIFT);
	unsigned int at = 0, len = sp->end - sp->start;

	if (zram_bdev_loc_bios(loc) == 2)
		len = i ? sp->end - PAGE_SIZE : PAGE_SIZE - sp->start;
	if (i) {
		at = PAGE_SIZE - sp->start;
		sector = zram_bdev_block_sector(loc->next);
	}
	part->page = virt_to_page(buf + at);
	part->offset = offset_in_page(buf + at);
	part->len = len;
	part->sector = sector;
}

static void zram_bdev_pread_rbio(struct zram_bdev_pread *pr,
				 struct zram_bdev_rbio *rbio,
				 const struct zram_bdev_loc *loc,
				 const struct zram_bdev_pspan *sp, unsigned int i)
{
	rbio->zram = pr->zram;
	rbio->parent = NULL;
	rbio->pread = pr;
	zram_bdev_pbuf_part(loc, sp, pr->buf.data, i, &rbio->part);
	zram_bdev_read_inherit(&rbio->bio, pr->parent);
	rbio->pin = 0;
	INIT_WORK(&rbio->retry, zram_bdev_read_retry_fn);
	zram_bdev_rbio_prep(rbio);
}

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

/* Allocates before issuing anything: a refusal (-EAGAIN) changes nothing. */
static int zram_bdev_read_packed_async(struct zram *zram, struct page *page,
				       const struct zram_bdev_loc *loc,
				       int pin, struct bio *parent,
				       bool nowait)
	__releases(&zram->backing.read_srcu)
{
	struct zram_bdev *bd = &zram->backing;
	struct zram_bdev_pspan sp = zram_bdev_pspan_of(bd->bdev, loc);
	unsigned int i, nr = zram_bdev_loc_bios(loc);
	struct zram_bdev_rbio *rbio[2] = { };
	struct zram_bdev_pread *pr;
	bool pooled;	/* a request: mempool_free() takes either */

	if (nowait && !bdev_nowait(bd->bdev))
		goto out_unpin;
	pr = zram_bdev_read_alloc(&bd->pread_pool, sizeof(*pr), nowait,
				  &pooled);
	if (!pr)
		goto out_unpin;
	pr->buf.data = zram_bdev_read_alloc(&bd->pbuf_pool,
					    zram_bdev_pbuf_size(&sp), nowait,
					    &pr->buf.pooled);
	if (!pr->buf.data)
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
		/* Issue each before the next waits in the mempool (rescuer). */
		if (!rbio[i])
			rbio[i] = zram_bdev_rbio_alloc(zram, false);
		zram_bdev_pread_rbio(pr, rbio[i], loc, &sp, i);
		zram_bdev_rbio_submit(rbio[i]);
	}
	return 0;

out_put_bios:
	for (i = 0; i < nr; i++) {
		if (rbio[i])
			bio_put(&rbio[i]->bio);
	}
	zram_bdev_pbuf_free(bd, &pr->buf);
out_free_pr:
	mempool_free(pr, &bd->pread_pool);
out_unpin:
	zram_bdev_read_unpin(zram, pin);
	return -EAGAIN;
}

static int zram_bdev_read_page_sync(struct zram *zram, struct page *page,
				    const struct zram_bdev_loc *loc,
				    struct bio *orig)
{
	struct zram_bdev_part part = zram_bdev_page_part(page, loc->block);

	zram_bdev_count_read(zram, loc);
	return zram_bdev_read_sync(zram, &part, orig);
}

/* Blocking; -EAGAIN (nothing done) as zram_bdev_read_packed_async(). */
static int zram_bdev_read_packed_sync(struct zram *zram, struct page *page,
				      const struct zram_bdev_loc *loc,
				      struct bio *orig)
{
	struct zram_bdev *bd = &zram->backing;
	struct zram_bdev_pspan sp = zram_bdev_pspan_of(bd->bdev, loc);
	struct zram_bdev_part part;
	struct zram_bdev_pbuf buf;
	unsigned int i;
	int ret = 0;

	buf.data = zram_bdev_read_alloc(&bd->pbuf_pool, zram_bdev_pbuf_size(&sp),
					false, &buf.pooled);
	if (!buf.data)
		return -EAGAIN;
	zram_bdev_count_read(zram, loc);
	for (i = 0; !ret && i < zram_bdev_loc_bios(loc); i++) {
		zram_bdev_pbuf_part(loc, &sp, buf.data, i, &part);
		ret = zram_bdev_read_sync(zram, &part, orig);
	}
	if (!ret)
		ret = zram_obj_decompress(zram,
					  buf.data + loc->offset - sp.start,
					  loc->len, loc->prio, page);
	zram_bdev_pbuf_free(bd, &buf);
	return ret;
}

/**
 * zram_bdev_read_pin - pin a written-back slot's block against reuse
 * @zram: device with a backing device
 *
 * Context: slot lock of the ZRAM_WB slot held, so the pin precedes any free
 * of the block; never sleeps.
 * Return: the pin, for zram_bdev_read(), which drops it.
 */
int zram_bdev_read_pin(struct zram *zram)
	__acquires(&zram->backing.read_srcu)
{
	return srcu_down_read(&zram->backing.read_srcu);
}

/**
 * zram_bdev_read - read one written-back slot from the backing device
 * @zram: device with a backing device
 * @page: destination page
 * @loc: the slot's location, read under the slot lock with @pin
 * @pin: from zram_bdev_read_pin(); dropped on every path
 * @bio: the zram bio the read serves: its cgroup and I/O priority are the
 *	read's
 * @run: chain the read to @bio, in @run when it reads the block after the
 *	run's last (a whole page); NULL: read synchronously
 * @nowait: REQ_NOWAIT, only with @run: refuse rather than block
 *
 * Once submitted, a BLK_STS_AGAIN from the device (or BLK_STS_NOTSUPP: it
 * lost nowait support) is retried blocking.
 * A blocking read of a packed object takes its memory from a reserve when
 * memory is short. It waits for the reserve only when the caller's
 * ->submit_bio has queued no read on bio_list yet (or outside one); else
 * it is refused with -EAGAIN, to be retried once those are issued.
 *
 * Context: with @run, ->submit_bio's or a worker's, sleeping only
 * without @nowait; else process context, sleeps.
 * Return: 0 (with @run: in @run or submitted), -EAGAIN (@nowait, or the
 * reserve as above; no side effect on this slot), or the read's errno.
 */
int zram_bdev_read(struct zram *zram, struct page *page,
		   const struct zram_bdev_loc *loc, int pin, struct bio *bio,
		   struct zram_bdev_run *run, bool nowait)
	__releases(&zram->backing.read_srcu)
{
	bool whole = loc->len == PAGE_SIZE;
	int ret;

	if (run && whole) {
		ret = zram_bdev_read_async(zram, page, loc->block, pin, bio,
					   run, nowait);
	} else if (run) {
		/* First: the run's bio is of the bio_set it allocates from. */
		zram_bdev_run_submit(run);
		ret = zram_bdev_read_packed_async(zram, page, loc, pin, bio,
						  nowait);
	} else {
		if (whole)
			ret = zram_bdev_read_page_sync(zram, page, loc, bio);
		else
			ret = zram_bdev_read_packed_sync(zram, page, loc, bio);
		zram_bdev_read_unpin(zram, pin);
		return ret;
	}
	if (!ret)
		zram_bdev_count_read(zram, loc);
	return ret;
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
