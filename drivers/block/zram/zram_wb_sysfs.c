// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writeback attributes (backing_dev, writeback, writeback_limit*,
 * writeback_batch_size, compressed_writeback, bd_stat; ABI in
 * Documentation/ABI/testing/sysfs-block-zram) and the writeback debugfs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "zram.h"

static int zram_wb_parse_mode(const char *val, unsigned int *mode)
{
	if (!strcmp(val, "idle"))
		*mode = ZRAM_WB_IDLE;
	else if (!strcmp(val, "huge"))
		*mode = ZRAM_WB_HUGE;
	else if (!strcmp(val, "huge_idle"))
		*mode = ZRAM_WB_IDLE | ZRAM_WB_HUGE;
	else if (!strcmp(val, "incompressible"))
		*mode = ZRAM_WB_INCOMPRESSIBLE;
	else
		return -EINVAL;
	return 0;
}

/* "N": a slot index below @nr_pages. */
static int zram_wb_parse_index(const char *val, unsigned long nr_pages,
			       unsigned long *index)
{
	int ret;

	ret = kstrtoul(val, 10, index);
	if (ret)
		return ret;
	return *index < nr_pages ? 0 : -ERANGE;
}

/* "N": the one slot N. */
static int zram_wb_parse_slot(const char *val, unsigned long nr_pages,
			      struct zram_wb_range *range)
{
	int ret;

	ret = zram_wb_parse_index(val, nr_pages, &range->lo);
	range->hi = range->lo + 1;
	return ret;
}

/* "A-B": slot indexes A to B inclusive, A <= B < @nr_pages. */
static int zram_wb_parse_range(char *val, unsigned long nr_pages,
			       struct zram_wb_range *range)
{
	char *hi = strchr(val, '-');
	int ret;

	if (!hi)
		return -EINVAL;
	*hi++ = '\0';
	ret = zram_wb_parse_index(val, nr_pages, &range->lo);
	if (ret)
		return ret;
	ret = zram_wb_parse_index(hi, nr_pages, &range->hi);
	if (ret)
		return ret;
	if (range->lo > range->hi)
		return -ERANGE;
	range->hi++;
	return 0;
}

/*
 * "page_index=N" and "page_indexes=A-B" add a range of any stored slot; a
 * mode, bare or "type=MODE", adds the last range (or the whole device) for
 * slots of that mode and ends the input; other "key=value" are ignored.
 * Returns the number of ranges (*@rangesp to kvfree()), -EINVAL, -ERANGE or
 * -ENOMEM.
 */
static int zram_wb_parse(const char *buf, unsigned long nr_pages,
			 struct zram_wb_range **rangesp)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zram_wb_range *ranges __free(kvfree) = NULL;
	struct zram_wb_range last = { .lo = 0, .hi = nr_pages };
	char *cur, *param, *val, *word;
	unsigned int mode;
	int nr = 0, ret;

	if (!args)
		return -ENOMEM;
	/*
	 * A range and its separator take 13 bytes or more; +1 for a mode. A
	 * page of input needs more than a page of ranges: kvmalloc, so the
	 * write needs no contiguous pages when memory is short.
	 */
	ranges = kvzalloc_objs(*ranges, (strlen(args) + 1) / 13 + 1);
	if (!ranges)
		return -ENOMEM;
	cur = skip_spaces(args);
	while (*cur) {
		cur = next_arg(cur, &param, &val);
		word = NULL;
		if (!val || !*val)
			word = param;
		else if (!strcmp(param, "type"))
			word = val;
		if (word) {
			ret = zram_wb_parse_mode(word, &mode);
			if (ret)
				return ret;
			ranges[nr] = last;
			ranges[nr++].mode = mode;
			break;
		}
		if (!strcmp(param, "page_indexes"))
			ret = zram_wb_parse_range(val, nr_pages, &last);
		else if (!strcmp(param, "page_index"))
			ret = zram_wb_parse_slot(val, nr_pages, &last);
		else
			continue;
		if (ret)
			return ret;
		last.mode = 0;
		ranges[nr++] = last;
	}
	*rangesp = no_free_ptr(ranges);
	return nr;
}

/* The ABI's errno order: not initialized, no backing device, bad input. */
static int zram_wb_prepare(struct zram *zram, const char *buf,
			   struct zram_wb_range **rangesp)
{
	lockdep_assert_held(&zram->pp_lock);
	guard(rwsem_read)(&zram->init_lock);
	if (!zram_init_done(zram))
		return -EINVAL;
	if (!zram->backing.bdev_file)
		return -ENODEV;
	return zram_wb_parse(buf, zram->disksize >> PAGE_SHIFT, rangesp);
}

/* Holds zram.pp_lock, not init_lock: readers of statistics need not wait. */
static ssize_t writeback_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	struct zram_wb_range *ranges = NULL;
	int ret;

	if (mutex_lock_killable(&zram->pp_lock))
		return -EINTR;
	ret = zram_wb_prepare(zram, buf, &ranges);
	if (ret > 0)
		ret = zram_wb_run(zram, ranges, ret);
	mutex_unlock(&zram->pp_lock);
	kvfree(ranges);
	return ret ? ret : len;
}

/* The two writeback_limit attributes: which field a show or store is for. */
enum zram_wb_limit_field {
	ZRAM_WB_LIMIT_ENABLE,
	ZRAM_WB_LIMIT_PAGES,
};

/*
 * A new value bumps limit_gen: a running writeback gives nothing back to a
 * new budget. The value it holds already changes nothing.
 */
static ssize_t zram_wb_limit_store(struct device *dev, const char *buf,
				   size_t len, enum zram_wb_limit_field field)
{
	struct zram *zram = dev_to_zram(dev);
	struct zram_wb *wb = &zram->wb;
	u64 val;

	if (kstrtoull(buf, 10, &val))
		return -EINVAL;
	guard(rwsem_read)(&zram->init_lock);
	guard(spinlock)(&wb->limit_lock);
	if (field == ZRAM_WB_LIMIT_ENABLE) {
		if (wb->limit_enable == !!val)
			return len;
		wb->limit_enable = !!val;
	} else {
		/* whole pages: a page is written whole */
		val = rounddown(val, ZRAM_WB_UNITS_PER_PAGE);
		if (wb->limit == val)
			return len;
		wb->limit = val;
	}
	wb->limit_gen++;
	return len;
}

static ssize_t zram_wb_limit_show(struct device *dev, char *buf,
				  enum zram_wb_limit_field field)
{
	struct zram *zram = dev_to_zram(dev);
	struct zram_wb *wb = &zram->wb;
	u64 val;

	guard(rwsem_read)(&zram->init_lock);
	scoped_guard(spinlock, &wb->limit_lock)
		val = field == ZRAM_WB_LIMIT_ENABLE ? wb->limit_enable :
						      wb->limit;
	return sysfs_emit(buf, "%llu\n", val);
}

static ssize_t writeback_limit_enable_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	return zram_wb_limit_store(dev, buf, len, ZRAM_WB_LIMIT_ENABLE);
}

static ssize_t writeback_limit_enable_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return zram_wb_limit_show(dev, buf, ZRAM_WB_LIMIT_ENABLE);
}

static ssize_t writeback_limit_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t len)
{
	return zram_wb_limit_store(dev, buf, len, ZRAM_WB_LIMIT_PAGES);
}

static ssize_t writeback_limit_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return zram_wb_limit_show(dev, buf, ZRAM_WB_LIMIT_PAGES);
}

static ssize_t writeback_batch_size_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || !val)
		return -EINVAL;
	/* Sampled once by each writeback; a running one keeps its value. */
	WRITE_ONCE(zram->wb.batch_size, val);
	return len;
}

static ssize_t writeback_batch_size_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(zram->wb.batch_size));
}

/* Set before disksize, like comp_algorithm; reset keeps it. */
static ssize_t compressed_writeback_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	bool val;
	int ret;

	ret = kstrtobool(buf, &val);
	if (ret)
		return ret;
	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram))
		return -EBUSY;
	if (val && !zram_loc_supported())
		return -EOPNOTSUPP;
	zram->wb.compressed = val;
	return len;
}

static ssize_t compressed_writeback_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return sysfs_emit(buf, "%d\n", zram->wb.compressed);
}

static ssize_t bd_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	return sysfs_emit(buf, "%8llu %8llu %8llu\n",
			  (u64)atomic64_read(&zram->stats.bd_count) *
			  ZRAM_WB_UNITS_PER_PAGE,
			  (u64)atomic64_read(&zram->stats.bd_reads) *
			  ZRAM_WB_UNITS_PER_PAGE,
			  (u64)atomic64_read(&zram->stats.bd_writes) *
			  ZRAM_WB_UNITS_PER_PAGE);
}

#ifdef CONFIG_ZRAM_MEMORY_TRACKING
/* Read unlocked: the counters may be mid-update relative to each other. */
static int zram_wb_stat_show(struct seq_file *m, void *v)
{
	struct zram *zram = m->private;
	struct zram_stats *st = &zram->stats;

	seq_printf(m, "bios_large_folio %llu\n",
		   (u64)atomic64_read(&st->wb_bios_large_folio));
	seq_printf(m, "bios_order0_folios %llu\n",
		   (u64)atomic64_read(&st->wb_bios_order0_folios));
	seq_printf(m, "packed_objects %llu\n",
		   (u64)atomic64_read(&st->pk_objects));
	seq_printf(m, "packed_bytes %llu\n",
		   (u64)atomic64_read(&st->pk_bytes));
	seq_printf(m, "packed_blocks %llu\n",
		   (u64)atomic64_read(&st->pk_blocks));
	/* Bytes of those blocks no live object holds: freed or never used. */
	seq_printf(m, "packed_unused_bytes %lld\n",
		   (s64)atomic64_read(&st->pk_blocks) * PAGE_SIZE -
		   (s64)atomic64_read(&st->pk_bytes));
	seq_printf(m, "packed_split_reads %llu\n",
		   (u64)atomic64_read(&st->pk_split_reads));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zram_wb_stat);

/* Recreated on each attach; the core removes the directory with its files. */
static void zram_wb_debugfs_register(struct zram *zram)
{
	struct dentry *dir = zram->debugfs_dir;

	if (!dir)
		return;
	debugfs_lookup_and_remove("wb_max_bio_pages", dir);
	debugfs_create_u32("wb_max_bio_pages", 0600, dir,
			   &zram->wb.max_bio_pages);
	debugfs_lookup_and_remove("wb_large_folios", dir);
	debugfs_create_bool("wb_large_folios", 0600, dir,
			    &zram->wb.large_folios);
	debugfs_lookup_and_remove("wb_stat", dir);
	debugfs_create_file("wb_stat", 0400, dir, zram, &zram_wb_stat_fops);
}
#else
static void zram_wb_debugfs_register(struct zram *zram)
{
}
#endif

static ssize_t backing_dev_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	char *path __free(kfree) = kstrndup(buf, PATH_MAX, GFP_KERNEL);
	struct zram *zram = dev_to_zram(dev);
	int err;

	if (!path)
		return -ENOMEM;
	/* Ignore one trailing newline (echo adds it). */
	if (*path && path[strlen(path) - 1] == '\n')
		path[strlen(path) - 1] = '\0';

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram))
		return -EBUSY;
	err = zram_bdev_attach(zram, path);
	if (err)
		return err;
	zram_wb_debugfs_register(zram);
	pr_info("%s: backing device %s\n", zram->disk->disk_name,
		zram->backing.bdev_path);
	return len;
}

static ssize_t backing_dev_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct zram *zram = dev_to_zram(dev);

	guard(rwsem_read)(&zram->init_lock);
	if (!zram->backing.bdev_path)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%s\n", zram->backing.bdev_path);
}

static DEVICE_ATTR_RW(backing_dev);

static DEVICE_ATTR_WO(writeback);

static DEVICE_ATTR_RW(writeback_limit);

static DEVICE_ATTR_RW(writeback_limit_enable);

static DEVICE_ATTR_RW(writeback_batch_size);

static DEVICE_ATTR_RO(bd_stat);

static DEVICE_ATTR_RW(compressed_writeback);

static struct attribute *zram_wb_attrs[] = {
	&dev_attr_backing_dev.attr,
	&dev_attr_writeback.attr,
	&dev_attr_writeback_limit.attr,
	&dev_attr_writeback_limit_enable.attr,
	&dev_attr_writeback_batch_size.attr,
	&dev_attr_bd_stat.attr,
	&dev_attr_compressed_writeback.attr,
	NULL,
};

const struct attribute_group zram_wb_attr_group = {
	.attrs = zram_wb_attrs,
};
