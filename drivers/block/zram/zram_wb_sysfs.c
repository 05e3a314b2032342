// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram writeback attributes: backing_dev, writeback (parsing its input and
 * running the engine), writeback_limit, writeback_limit_enable,
 * writeback_batch_size and bd_stat. Each is described in
 * Documentation/ABI/testing/sysfs-block-zram.
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

/**
 * zram_wb_parse - parse what was written to the writeback attribute
 * @buf: space-separated parameters
 * @nr_pages: device size in pages
 * @rangesp: out, array of slot ranges to write back in order, to kfree()
 *
 * Reads the parameters in order, as upstream: "page_index=N" (slot N) and
 * "page_indexes=A-B" (slots A to B) each add their range, taking any
 * stored slot. A mode ("idle", "huge", "huge_idle" or "incompressible",
 * bare or as "type=MODE") adds the last range given, or the whole device,
 * taking only the slots of that mode, and ends the input: what follows is
 * not read. Other "key=value" parameters are ignored. Ranges may repeat
 * or overlap.
 *
 * Context: process context; may sleep.
 * Return: number of ranges, 0 when there is nothing to write back;
 * -EINVAL (an unknown mode or word, a malformed range), -ERANGE (an index
 * out of range, or A > B), or -ENOMEM. On error nothing is allocated.
 */
static int zram_wb_parse(const char *buf, unsigned long nr_pages,
			 struct zram_wb_range **rangesp)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zram_wb_range *ranges __free(kfree) = NULL;
	struct zram_wb_range last = { .lo = 0, .hi = nr_pages };
	char *cur, *param, *val, *word;
	unsigned int mode;
	int nr = 0, ret;

	if (!args)
		return -ENOMEM;
	/* Every range takes at least two characters of input. */
	ranges = kzalloc_objs(*ranges, strlen(args) / 2 + 1);
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

/**
 * zram_wb_prepare - check the device and parse a writeback request
 * @zram: device
 * @buf: what was written to the writeback attribute
 * @rangesp: out, the parsed slot ranges, see zram_wb_parse()
 *
 * Checks in upstream's order: initialized, then a backing device, then
 * the input.
 *
 * Context: process context, zram.pp_lock held; takes init_lock for read.
 * Return: number of ranges (0: nothing to do); -EINVAL (not initialized,
 * bad syntax), -ENODEV (no backing device), -ERANGE, or -ENOMEM.
 */
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

/*
 * The writeback attribute. A writeback holds zram.pp_lock, not init_lock,
 * while it runs: a second one waits for it (killable), and reset takes
 * zram.pp_lock before init_lock, so it waits for the writeback without
 * making readers of the statistics wait behind it.
 */
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
	kfree(ranges);
	return ret ? ret : len;
}

/* The two writeback_limit attributes: which field a show or store is for. */
enum zram_wb_limit_field {
	ZRAM_WB_LIMIT_ENABLE,
	ZRAM_WB_LIMIT_PAGES,
};

/**
 * zram_wb_limit_store() - parse and set writeback_limit or its enable flag
 * @dev: disk device
 * @buf: decimal value: 4 KiB units for the limit, 0/non-zero for enable
 * @len: length of @buf
 * @field: which of the two to set
 *
 * Bumps limit_gen so that a running writeback re-reads the budget.
 *
 * Context: process context; takes init_lock for read, then limit_lock.
 * Return: @len, or -EINVAL for a value that is not a decimal u64.
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
	spin_lock(&wb->limit_lock);
	if (field == ZRAM_WB_LIMIT_ENABLE)
		wb->limit_enable = val;
	else	/* whole pages, as upstream: a page is written whole */
		wb->limit = rounddown(val, ZRAM_WB_UNITS_PER_PAGE);
	wb->limit_gen++;
	spin_unlock(&wb->limit_lock);
	return len;
}

/**
 * zram_wb_limit_show() - print writeback_limit or its enable flag
 * @dev: disk device
 * @buf: sysfs page
 * @field: which of the two to print
 *
 * Context: process context; takes init_lock for read, then limit_lock.
 * Return: bytes written to @buf.
 */
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

/*
 * compressed_writeback: pack compressed objects into the backing device
 * (zram_wb_pack.c); upstream's ABI. Set before disksize, like
 * comp_algorithm; reset keeps it, as upstream.
 */
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
/*
 * debugfs wb_stat: writeback statistics for tuning and tests, one
 * "name value" line each, counted since initialization. Read without a
 * lock: the counters may be mid-update relative to each other.
 */
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
	seq_printf(m, "packed_dead_bytes %llu\n",
		   (u64)atomic64_read(&st->pk_dead_bytes));
	seq_printf(m, "packed_split_reads %llu\n",
		   (u64)atomic64_read(&st->pk_split_reads));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zram_wb_stat);

/*
 * Benchmark and test knobs and wb_stat, (re)created whenever a backing
 * device is attached: the core creates the device's debugfs directory
 * before its attributes appear, and removes it with everything in it.
 */
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
	/* Ignore one trailing newline, as upstream. */
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
