// SPDX-License-Identifier: GPL-2.0-only
/*
 * zram recompression: secondary algorithms (recomp_algorithm, priorities 1
 * to 3) and the recompress attribute, which gives stored slots a smaller
 * object from one of them. Runs under zram.pp_lock, like writeback.
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

/* "algo=NAME [priority=N]", split in place; unknown keys are ignored. */
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
	zcomp_conf_set(&zram->comp_conf[prio], ops);
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

/* "key=value ..." split in place; zram_recomp_prepare() checks priority=. */
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
			/* Signed: "-1" parses, and is refused later (EINVAL). */
			ret = kstrtoint(val, 10, &prio);
			if (!ret)
				spec->prio = prio;
			*prio_given = true;
		}
	}
	return ret;
}

/*
 * The priority used: priority=, else the lowest one @algo is configured at,
 * else 1; with both, @algo must be the one at priority=.
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

/* Stops after @spec->max_pages tried slots, at an error, or when killed. */
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
