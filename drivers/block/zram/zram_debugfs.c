// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram debugfs: zram/<device>/block_state lists the stored slots, metadata
 * the bytes of the driver's own bookkeeping.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "zram_debugfs.h"
#include "zram_slot.h"

static struct dentry *zram_debugfs_root;

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

/* s(ame) w(ritten back) h(uge) i(dle) r(ecompressed) n (incompressible) */
static int zram_block_state_show(struct seq_file *m, void *v)
{
	struct zram *zram = m->private;
	u32 index = (struct zram_table_entry *)v - zram->table;

	lockdep_assert_held_read(&zram->init_lock);
	zram_slot_lock(zram, index);
	/* Whole seconds in the ABI's format with microseconds. */
	seq_printf(m, "%12u %12u.000000 %c%c%c%c%c%c\n", index,
		   zram_slot_get_actime(zram, index),
		   zram_flag_char(zram, index, ZRAM_SAME, 's'),
		   zram_flag_char(zram, index, ZRAM_WB, 'w'),
		   zram_flag_char(zram, index, ZRAM_HUGE, 'h'),
		   zram_flag_char(zram, index, ZRAM_IDLE, 'i'),
		   zram_slot_get_prio(zram, index) ? 'r' : '.',
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

/* Bytes the driver keeps besides the data, as zram.rst lists them. */
static int zram_metadata_show(struct seq_file *m, void *v)
{
	struct zram *zram = m->private;
	u64 table = 0;
	size_t maps, pack, reserve;

	guard(rwsem_read)(&zram->init_lock);
	if (zram_init_done(zram))
		table = (zram->disksize >> PAGE_SHIFT) * sizeof(*zram->table);
	zram_bdev_meta_bytes(zram, &maps, &pack, &reserve);
	seq_printf(m, "slot_table %llu\n", table);
	seq_printf(m, "backing_maps %zu\n", maps);
	seq_printf(m, "packing %zu\n", pack);
	seq_printf(m, "read_reserve %zu\n", reserve);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zram_metadata);

/**
 * zram_debugfs_create() - create the driver's debugfs directory
 *
 * Context: module init; may sleep.
 */
void zram_debugfs_create(void)
{
	zram_debugfs_root = debugfs_create_dir("zram", NULL);
}

/**
 * zram_debugfs_destroy() - remove it, once every device is gone
 *
 * Context: module exit; may sleep.
 */
void zram_debugfs_destroy(void)
{
	debugfs_remove_recursive(zram_debugfs_root);
}

/**
 * zram_debugfs_register() - create a device's directory and its files
 * @zram: device, before its sysfs attributes appear
 *
 * Context: process context; may sleep.
 */
void zram_debugfs_register(struct zram *zram)
{
	zram->debugfs_dir = debugfs_create_dir(zram->disk->disk_name,
					       zram_debugfs_root);
	debugfs_create_file("block_state", 0400, zram->debugfs_dir, zram,
			    &zram_block_state_fops);
	debugfs_create_file("metadata", 0400, zram->debugfs_dir, zram,
			    &zram_metadata_fops);
}

/**
 * zram_debugfs_unregister() - remove a device's directory
 * @zram: device, after its sysfs attributes are gone
 *
 * Context: process context; waits for readers of its files; may sleep.
 */
void zram_debugfs_unregister(struct zram *zram)
{
	debugfs_remove_recursive(zram->debugfs_dir);
}
