// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram recompression: up to three secondary compression algorithms
 * (recomp_algorithm, priorities 1 to 3) and the recompress attribute,
 * which walks the stored slots and gives each that qualifies a smaller
 * object from a secondary algorithm, if one saves memory.
 *
 * Recompression and writeback never run at once on a device: both hold
 * zram.pp_lock for their whole run, and a second one waits for the first
 * (killable), as a second writeback does (6.12 fails it with EAGAIN).
 * Neither holds init_lock while it runs, so reset waits for them without
 * blocking the statistics.
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/cleanup.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "zram_recomp.h"
#include "zram_slot.h"

#define ZRAM_RECOMP_FIRST_PRIO	(ZCOMP_PRIO_PRIMARY + 1)

static ssize_t recomp_algorithm_show(struct device *dev,
				     struct device_attribute *attr,
				     char *buf)
{
	struct zram *zram = dev_to_zram(dev);
	const struct zcomp_ops *ops;
	ssize_t at = 0;
	u32 prio;

	guard(rwsem_read)(&zram->init_lock);
	for (prio = ZRAM_RECOMP_FIRST_PRIO; prio < ZCOMP_MAX_PRIOS; prio++) {
		ops = zram->comp_conf[prio].ops;
		if (!ops)
			continue;
		at += sysfs_emit_at(buf, at, "#%u: ", prio);
		at += zcomp_available_show(ops, buf, at);
	}
	return at;
}

/**
 * zram_recomp_parse_algorithm() - parse recomp_algorithm input
 * @args: "algo=NAME [priority=N]", split in place; unknown keys are
 *	ignored, as upstream
 * @ops: out: the algorithm
 * @prio: out: its priority, 1 (the default) to ZCOMP_MAX_PRIOS - 1
 *
 * Context: process context.
 * Return: 0; -EINVAL for a key without a value, no algo=, a priority out
 * of range or an unknown algorithm; -E2BIG for a name too long;
 * kstrtoint()'s errno for a priority that is not a number.
 */
static int zram_recomp_parse_algorithm(char *args,
				       const struct zcomp_ops **ops,
				       int *prio)
{
	const char *algo = NULL;
	char *param, *val;
	int ret;

	*prio = ZRAM_RECOMP_FIRST_PRIO;
	args = skip_spaces(args);
	while (*args) {
		args = next_arg(args, &param, &val);
		if (!val || !*val)
			return -EINVAL;
		if (!strcmp(param, "algo")) {
			algo = val;
		} else if (!strcmp(param, "priority")) {
			ret = kstrtoint(val, 10, prio);
			if (ret)
				return ret;
		}
	}
	if (!algo || *prio < ZRAM_RECOMP_FIRST_PRIO ||
	    *prio >= ZCOMP_MAX_PRIOS)
		return -EINVAL;
	if (strlen(algo) >= ZCOMP_MAX_NAME)
		return -E2BIG;
	*ops = zcomp_lookup(algo);
	return *ops ? 0 : -EINVAL;
}

static ssize_t recomp_algorithm_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zram *zram = dev_to_zram(dev);
	const struct zcomp_ops *ops;
	int prio, ret;

	if (!args)
		return -ENOMEM;
	ret = zram_recomp_parse_algorithm(args, &ops, &prio);
	if (ret)
		return ret;

	guard(rwsem_write)(&zram->init_lock);
	if (zram_init_done(zram))
		return -EBUSY;
	zram->comp_conf[prio].ops = ops;
	return len;
}

/* "type=" of recompress: idle, huge or huge_idle. */
static int zram_recomp_parse_mode(const char *val, unsigned int *mode)
{
	if (!strcmp(val, "idle"))
		*mode = ZRAM_RECOMP_IDLE;
	else if (!strcmp(val, "huge"))
		*mode = ZRAM_RECOMP_HUGE;
	else if (!strcmp(val, "huge_idle"))
		*mode = ZRAM_RECOMP_IDLE | ZRAM_RECOMP_HUGE;
	else
		return -EINVAL;
	return 0;
}

/**
 * zram_recomp_parse() - parse recompress input
 * @args: "key=value ..." with type, max_pages, threshold, algo, priority,
 *	split in place; unknown keys are ignored, as upstream
 * @spec: out: the request; @spec->prio is priority= (not range checked
 *	yet), or the first secondary priority
 * @algo: out: the algo= value, or NULL (resolved to a priority later)
 * @prio_given: out: whether priority= was given
 *
 * Context: process context.
 * Return: 0; -EINVAL for a key without a value or an unknown type;
 * kstrto*()'s errno for a number that does not parse or fit.
 */
static int zram_recomp_parse(char *args, struct zram_recomp_spec *spec,
			     const char **algo, bool *prio_given)
{
	char *param, *val;
	int prio, ret = 0;

	*spec = (struct zram_recomp_spec){
		.prio = ZRAM_RECOMP_FIRST_PRIO,
		.max_pages = U64_MAX,
	};
	*algo = NULL;
	*prio_given = false;
	args = skip_spaces(args);
	while (*args && !ret) {
		args = next_arg(args, &param, &val);
		if (!val || !*val)
			return -EINVAL;
		if (!strcmp(param, "type")) {
			ret = zram_recomp_parse_mode(val, &spec->mode);
		} else if (!strcmp(param, "max_pages")) {
			ret = kstrtoull(val, 10, &spec->max_pages);
		} else if (!strcmp(param, "threshold")) {
			ret = kstrtouint(val, 10, &spec->threshold);
		} else if (!strcmp(param, "algo")) {
			*algo = val;
		} else if (!strcmp(param, "priority")) {
			/*
			 * Signed, as upstream: "-1" parses, and is refused as
			 * out of range (EINVAL) by zram_recomp_prepare().
			 */
			ret = kstrtoint(val, 10, &prio);
			if (!ret)
				spec->prio = prio;
			*prio_given = true;
		}
	}
	return ret;
}

/**
 * zram_recomp_prepare() - check a request against the initialized device
 * @zram: device
 * @spec: the parsed request; with @algo alone, set to that algorithm's
 *	priority
 * @algo: the algo= value, or NULL
 * @prio_given: whether @spec->prio came from priority=
 * @nr_slots: out: the device size in slots
 *
 * Resolves the one priority to recompress with, as upstream: priority=
 * (1 to 3), else the lowest secondary priority @algo is configured at,
 * else 1. With both, @algo must be the algorithm at that priority.
 *
 * Context: process context, zram.pp_lock held; takes init_lock for read.
 * Return: 0; -EINVAL when the device is not initialized, @spec->threshold
 * is not below huge_class_size, the priority is out of range, @algo does
 * not match, or no algorithm is configured at the priority.
 */
static int zram_recomp_prepare(struct zram *zram, struct zram_recomp_spec *spec,
			       const char *algo, bool prio_given,
			       unsigned long *nr_slots)
{
	int prio;

	lockdep_assert_held(&zram->pp_lock);
	guard(rwsem_read)(&zram->init_lock);
	if (!zram_init_done(zram) || spec->threshold >= zram->huge_class_size)
		return -EINVAL;
	if (spec->prio < ZRAM_RECOMP_FIRST_PRIO || spec->prio >= ZCOMP_MAX_PRIOS)
		return -EINVAL;
	if (algo) {
		prio = zcomp_conf_find(zram->comp_conf, prio_given ?
				       spec->prio : ZRAM_RECOMP_FIRST_PRIO, algo);
		if (prio < 0 || (prio_given && prio != spec->prio))
			return -EINVAL;
		spec->prio = prio;
	}
	if (!zram->comps[spec->prio])
		return -EINVAL;
	*nr_slots = zram->disksize >> PAGE_SHIFT;
	return 0;
}

/**
 * zram_recomp_run() - recompress the slots a request asks for
 * @zram: initialized device
 * @spec: the request
 * @nr_slots: device size in slots
 *
 * Walks every slot in index order until @spec->max_pages slots were
 * tried; stops at the first error and on a fatal signal.
 *
 * Context: process context, zram.pp_lock held (the device stays
 * initialized); sleeps.
 * Return: 0; -ENOMEM (no scratch page, or no memory for a new object:
 * that slot keeps its old one); -EIO (a slot's data did not decompress or
 * compress); -EINTR (killed).
 */
static int zram_recomp_run(struct zram *zram, const struct zram_recomp_spec *spec,
			   unsigned long nr_slots)
{
	struct page *page = alloc_page(GFP_KERNEL);
	u64 left = spec->max_pages;
	unsigned long index;
	int ret = 0;

	lockdep_assert_held(&zram->pp_lock);
	if (!page)
		return -ENOMEM;
	for (index = 0; index < nr_slots && left && !ret; index++) {
		ret = zram_slot_recompress(zram, index, spec, page);
		if (ret > 0) {
			left--;
			ret = 0;
		}
		if (fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	__free_page(page);
	return ret;
}

static ssize_t recompress_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t len)
{
	char *args __free(kfree) = kstrdup(buf, GFP_KERNEL);
	struct zram *zram = dev_to_zram(dev);
	struct zram_recomp_spec spec;
	unsigned long nr_slots;
	bool prio_given;
	const char *algo;
	int ret;

	if (!args)
		return -ENOMEM;
	ret = zram_recomp_parse(args, &spec, &algo, &prio_given);
	if (ret)
		return ret;

	if (mutex_lock_killable(&zram->pp_lock))
		return -EINTR;
	ret = zram_recomp_prepare(zram, &spec, algo, prio_given, &nr_slots);
	if (!ret)
		ret = zram_recomp_run(zram, &spec, nr_slots);
	mutex_unlock(&zram->pp_lock);
	return ret ? ret : len;
}

static DEVICE_ATTR_RW(recomp_algorithm);
static DEVICE_ATTR_WO(recompress);

static struct attribute *zram_recomp_attrs[] = {
	&dev_attr_recomp_algorithm.attr,
	&dev_attr_recompress.attr,
	NULL,
};

const struct attribute_group zram_recomp_attr_group = {
	.attrs = zram_recomp_attrs,
};
