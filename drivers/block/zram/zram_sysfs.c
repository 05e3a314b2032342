// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram device attributes: configuration, actions and statistics, as in
 * Documentation/ABI/testing/sysfs-block-zram (writeback's: zram_wb_sysfs.c).
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/blkdev.h>
#include <linux/cleanup.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/zsmalloc.h>

#include "zram_recomp.h"
#include "zram_slot.h"
#include "zram_sysfs.h"

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

/* Rounds up; PAGE_ALIGN() would wrap a size near U64_MAX to 0. */
static u64 zram_bytes_to_pages(u64 bytes)
{
	return (bytes >> PAGE_SHIFT) + !!(bytes & ~PAGE_MASK);
}

/* memparse() syntax, refusing what memparse() wraps past U64_MAX. */
static int zram_parse_bytes(const char *buf, u64 *bytes)
{
	static const char suffixes[] = "KMGTPE";
	const char *sfx = NULL;
	char digits[32];
	size_t n = 0;
	u64 val;

	/* End the number where memparse() does ("09" and "0x" are 0). */
	if (buf[0] == '0' && tolower(buf[1]) == 'x' && isxdigit(buf[2]))
		for (n = 2; isxdigit(buf[n]); n++)
			;
	else if (buf[0] == '0')
		for (n = 1; buf[n] >= '0' && buf[n] <= '7'; n++)
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

/* More slots than a u32 slot index addresses are refused, like a wrap. */
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

	if (!zram_claim(zram))
		return -EBUSY;
	/* Nobody can open the disk now; flush what earlier users left. */
	sync_blockdev(zram->disk->part0);
	zram_reset_device(zram);
	zram_unclaim(zram);
	return len;
}

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

/*
 * "all" (@cutoff 0) or an age in seconds (@cutoff: the boottime second that
 * long ago); 1 when no slot is that old.
 */
static int zram_parse_idle(const char *buf, u32 *cutoff)
{
	u64 now = ktime_get_boottime_seconds();
	u32 age_sec;

	if (sysfs_streq(buf, "all")) {
		*cutoff = 0;
		return 0;
	}
	if (!IS_ENABLED(CONFIG_ZRAM_TRACK_ENTRY_ACTIME) ||
	    kstrtouint(buf, 0, &age_sec))
		return -EINVAL;
	if (age_sec >= now)
		return 1;
	*cutoff = now - age_sec;
	return 0;
}

static ssize_t idle_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	u32 cutoff;
	int ret;

	ret = zram_parse_idle(buf, &cutoff);
	if (ret < 0)
		return ret;
	/* No slot is that old: nothing changes, even uninitialized. */
	if (ret)
		return len;

	guard(rwsem_read)(&zram->init_lock);
	if (!zram_init_done(zram))
		return -EINVAL;
	zram_slot_mark_idle(zram, cutoff);
	return len;
}

/* Compatibility only: streams are per CPU; writes are ignored. */
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
	return zcomp_available_show(zram->comp_conf[ZCOMP_PRIO_PRIMARY].ops,
				    buf, 0);
}

static ssize_t comp_algorithm_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct zram *zram = dev_to_zram(dev);
	const struct zcomp_ops *ops;

	if (strlen(buf) >= ZCOMP_MAX_NAME)
		return -E2BIG;
	ops = zcomp_lookup(buf);
	if (!ops)
		return -EINVAL;

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram)) {
		pr_info("cannot change algorithm for initialized device\n");
		return -EBUSY;
	}
	zcomp_conf_set(&zram->comp_conf[ZCOMP_PRIO_PRIMARY], ops);
	return len;
}

struct zram_algo_params {
	int prio;
	bool prio_given;
	const char *algo;
	s32 level;
	s32 winbits;
	const char *dict;
};

/* "key=value ..." split in place; unknown keys are ignored. */
static int zram_parse_algo_params(char *args, struct zram_algo_params *p)
{
	char *param, *val;
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
			p->prio_given = true;
		} else if (!strcmp(param, "level")) {
			ret = kstrtoint(val, 10, &p->level);
			if (ret)
				return ret;
		} else if (!strcmp(param, "deflate.winbits")) {
			ret = kstrtoint(val, 10, &p->winbits);
			if (ret)
				return ret;
		} else if (!strcmp(param, "algo")) {
			p->algo = val;
		} else if (!strcmp(param, "dict")) {
			p->dict = val;
		}
	}
	return 0;
}

/* priority=; with algo= too, the algorithm at it; algo= alone, its lowest */
static int zram_algo_params_prio(struct zram *zram,
				 const struct zram_algo_params *p)
{
	const struct zcomp_ops *ops;

	lockdep_assert_held(&zram->init_lock);
	if (p->prio_given && (p->prio < 0 || p->prio >= ZCOMP_MAX_PRIOS))
		return -EINVAL;
	if (!p->algo)
		return p->prio;
	if (!p->prio_given)
		return zcomp_conf_find(zram->comp_conf, ZCOMP_PRIO_PRIMARY,
				       p->algo);
	ops = zram->comp_conf[p->prio].ops;
	return ops && !strcmp(ops->name, p->algo) ? p->prio : -EINVAL;
}

/* EBUSY or the priority's errno, checked before the dictionary is read. */
static int zram_algo_params_check(struct zram *zram,
				  const struct zram_algo_params *p)
{
	guard(rwsem_read)(&zram->init_lock);
	if (zram_init_done(zram))
		return -EBUSY;
	return zram_algo_params_prio(zram, p);
}

/*
 * All of the priority's parameters are replaced; the level is checked when
 * the compressor is created, as the algorithm may change until then. The
 * dictionary is read with no lock held (it may be a zram attribute), so
 * the checks before it are made again once the lock is taken.
 */
static ssize_t algorithm_params_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zcomp_params params __free(zcomp_params) = {};
	struct zram *zram = dev_to_zram(dev);
	struct zram_algo_params p = {
		.prio = ZCOMP_PRIO_PRIMARY,
		.level = ZCOMP_PARAM_DEFAULT,
		.winbits = ZCOMP_PARAM_DEFAULT,
	};
	int ret, prio;

	if (!args)
		return -ENOMEM;
	ret = zram_parse_algo_params(args, &p);
	if (ret)
		return ret;
	prio = zram_algo_params_check(zram, &p);
	if (prio < 0)
		return prio;
	params.level = p.level;
	params.deflate_winbits = p.winbits;
	ret = zcomp_dict_read(&params, p.dict);
	if (ret)
		return ret;

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram))
		return -EBUSY;
	prio = zram_algo_params_prio(zram, &p);
	if (prio < 0)
		return prio;
	/* The old parameters are freed with @params on return. */
	swap(zram->comp_conf[prio].params, params);
	return len;
}

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
	/* The third column (invalid_io) is no longer counted: always 0. */
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
	/* Line 2's first column is no longer counted: always 0. */
	return sysfs_emit(buf, "version: %d\n0 %8llu\n", 1,
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

const struct attribute_group *zram_disk_groups[] = {
	&zram_disk_attr_group,
	&zram_wb_attr_group,
#ifdef CONFIG_ZRAM_MULTI_COMP
	&zram_recomp_attr_group,
#endif
	NULL,
};
