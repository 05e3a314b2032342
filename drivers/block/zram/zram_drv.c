// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram: a block device that keeps its data compressed in RAM. This file: a
 * device's life (add, init, reset, remove), zram-control and the module.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/blkdev.h>
#include <linux/cleanup.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/part_stat.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "zram_bio.h"
#include "zram_debugfs.h"
#include "zram_slot.h"
#include "zram_sysfs.h"

/* Device ids; zram_index_mutex is held across zram_add() and zram_remove(). */
static DEFINE_XARRAY_ALLOC(zram_devices);
static DEFINE_MUTEX(zram_index_mutex);

static int zram_major;

static unsigned int zram_num_devices = 1;

/* Write-zeroes frees whole slots only: offered when a block is a slot. */
#if PAGE_SIZE == ZRAM_LOGICAL_BLOCK_SIZE
#define ZRAM_MAX_WRITE_ZEROES	UINT_MAX
#else
#define ZRAM_MAX_WRITE_ZEROES	0
#endif

#ifdef CONFIG_PREEMPT_RT
static void zram_table_init_locks(struct zram_table_entry *table,
				  unsigned long nr_slots)
{
	unsigned long index;

	for (index = 0; index < nr_slots; index++) {
		spin_lock_init(&table[index].rt_lock);
		if (!(index % SZ_64K))
			cond_resched();
	}
}
#else
/* Zeroed memory is a table of empty, unlocked slots. */
static void zram_table_init_locks(struct zram_table_entry *table,
				  unsigned long nr_slots)
{
}
#endif

static struct zram_table_entry *zram_table_alloc(unsigned long nr_slots)
{
	struct zram_table_entry *table;

	/* A size the machine cannot hold is the admin's error: no warning. */
	table = __vmalloc(array_size(nr_slots, sizeof(*table)),
			  GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (table)
		zram_table_init_locks(table, nr_slots);
	return table;
}

/**
 * zram_init_device() - allocate the slots, pool and compressors
 * @zram: device, not initialized
 * @nr_slots: device size in slots (PAGE_SIZE units), 1 to U32_MAX
 *
 * A compressor that cannot be created resets the algorithms and their
 * parameters to the defaults, as upstream.
 *
 * Context: process context, init_lock held for write; may sleep.
 * Return: 0, -ENOMEM (also for the packing state of the backing device's
 * blocks with compressed_writeback), or the compressors' errno (-EINVAL,
 * -EOPNOTSUPP for parameters the algorithm refuses).
 */
int zram_init_device(struct zram *zram, u32 nr_slots)
{
	u64 disksize = (u64)nr_slots << PAGE_SHIFT;
	struct zram_table_entry *table;
	struct zs_pool *pool;
	int ret = -ENOMEM;

	lockdep_assert_held_write(&zram->init_lock);
	table = zram_table_alloc(nr_slots);
	if (!table)
		return -ENOMEM;
	pool = zs_create_pool(zram->disk->disk_name);
	if (!pool)
		goto out_free_table;
	/* Packed reads may decompress in softirq (zram_bdev.c). */
	ret = zcomp_create_all(zram->comps, zram->comp_conf,
			       zram_wb_packs(&zram->wb) ?
			       ZCOMP_SOFTIRQ_STREAMS : 0);
	if (ret) {
		zcomp_conf_reset(zram->comp_conf);
		goto out_destroy_pool;
	}

	ret = zram_bdev_pack_init(zram);
	if (ret)
		goto out_destroy_comps;

	zram->table = table;
	zram->mem_pool = pool;
	zram->huge_class_size = zs_huge_class_size(pool);
	zram->disksize = disksize;
	/*
	 * A bio reaches zram_submit_bio() only once it sees the capacity;
	 * pairs with its smp_rmb(), so it also sees the table, the pool and
	 * the compressors. A full barrier: it also orders what other CPUs
	 * stored under init_lock before (the algorithms and parameters).
	 */
	smp_mb();
	set_capacity_and_notify(zram->disk, disksize >> SECTOR_SHIFT);
	return 0;

out_destroy_comps:
	zcomp_destroy_all(zram->comps);
out_destroy_pool:
	zs_destroy_pool(pool);
out_free_table:
	vfree(table);
	return ret;
}

/**
 * zram_reset_device() - return a device to its uninitialized, default state
 * @zram: device; no I/O in flight (claimed and synced, or being removed)
 *
 * Context: process context; may sleep. Waits for a running writeback or
 * recompression (zram.pp_lock), then takes init_lock for write.
 */
void zram_reset_device(struct zram *zram)
{
	guard(mutex)(&zram->pp_lock);
	guard(rwsem_write)(&zram->init_lock);

	zram->limit_pages = 0;
	set_capacity_and_notify(zram->disk, 0);
	part_stat_set_all(zram->disk->part0, 0);

	if (zram_init_done(zram)) {
		zram_slot_free_all(zram);
		zcomp_destroy_all(zram->comps);
		zs_destroy_pool(zram->mem_pool);
		vfree(zram->table);
	}
	zram->mem_pool = NULL;
	zram->table = NULL;
	zram->disksize = 0;
	zcomp_conf_reset(zram->comp_conf);
	zram_wb_reset(zram);
	memset(&zram->stats, 0, sizeof(zram->stats));
}

/**
 * zram_claim() - take exclusive ownership of a closed device
 * @zram: device
 *
 * Context: process context; takes disk->open_mutex; may sleep.
 * Return: true when we set @zram->claim; false when open or claimed.
 */
bool zram_claim(struct zram *zram)
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
void zram_unclaim(struct zram *zram)
{
	guard(mutex)(&zram->disk->open_mutex);
	zram->claim = false;
}

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
		/* Every submit path honours REQ_NOWAIT. */
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
	set_capacity(disk, 0);
	return disk;
}

static int zram_add(void)
{
	struct zram *zram;
	u32 device_id;
	int ret;

	lockdep_assert_held(&zram_index_mutex);
	zram = kzalloc_obj(*zram);
	if (!zram)
		return -ENOMEM;
	ret = xa_alloc(&zram_devices, &device_id, zram, xa_limit_31b,
		       GFP_KERNEL);
	if (ret)
		goto out_free_zram;

	mutex_init(&zram->pp_lock);
	init_rwsem(&zram->init_lock);
	zram_slot_lock_init(zram);
	zcomp_conf_reset(zram->comp_conf);
	zram_wb_init(zram);
	zram->disk = zram_alloc_disk(zram, device_id);
	if (IS_ERR(zram->disk)) {
		ret = PTR_ERR(zram->disk);
		goto out_erase_id;
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
out_erase_id:
	xa_erase(&zram_devices, device_id);
out_free_zram:
	kfree(zram);
	return ret;
}

/* -EBUSY while open; on success the caller erases the device's id. */
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
	 * del_gendisk() removes the attributes and waits for running stores
	 * (a reset owning the claim, a writeback): tear down only after it.
	 */
	del_gendisk(disk);
	zram_debugfs_unregister(zram);
	zram_reset_device(zram);
	pr_info("removed device %s\n", disk->disk_name);
	put_disk(disk);
	kfree(zram);
	return 0;
}

/* Reading creates a device: root only. */
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
	zram = xa_load(&zram_devices, dev_id);
	if (!zram)
		return -ENODEV;
	ret = zram_remove(zram);
	if (ret)
		return ret;
	xa_erase(&zram_devices, dev_id);
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

static void zram_remove_all(void)
{
	struct zram *zram;
	unsigned long id;

	guard(mutex)(&zram_index_mutex);
	/* Module unload: the module reference keeps devices closed. */
	xa_for_each(&zram_devices, id, zram)
		WARN_ON_ONCE(zram_remove(zram));
	xa_destroy(&zram_devices);
}

/* On failure the caller's zram_remove_all() removes those added. */
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

static int __init zram_init(void)
{
	int ret;

	BUILD_BUG_ON(__NR_ZRAM_PAGEFLAGS > BITS_PER_LONG);

	ret = zcomp_cpuhp_setup();
	if (ret)
		return ret;
	ret = zram_bio_module_init();
	if (ret)
		goto out_remove_cpuhp;
	ret = zram_bdev_module_init();
	if (ret)
		goto out_exit_bio;
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
	zram_bdev_module_exit();
out_exit_bio:
	zram_bio_module_exit();
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
	zram_bdev_module_exit();
	zram_bio_module_exit();
	zcomp_cpuhp_remove();
}

module_init(zram_init);

module_exit(zram_exit);

module_param_named(num_devices, zram_num_devices, uint, 0);

MODULE_PARM_DESC(num_devices, "Number of pre-created zram devices");

MODULE_LICENSE("Dual BSD/GPL");

MODULE_DESCRIPTION("Compressed RAM Block Device");
