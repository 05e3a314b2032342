// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram compression front end: algorithm lookup, per-priority configuration,
 * per-CPU streams (made by CPU hotplug; a local_lock, so I/O never sleeps).
 */

#define pr_fmt(fmt) "zram: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/kernel_read_file.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "zcomp.h"
#include "backends.h"

#define ZCOMP_BUFFER_SIZE	(2 * PAGE_SIZE)

/* The algorithms this build offers, in the order comp_algorithm lists them */
static const struct zcomp_ops * const zcomp_backends[] = {
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_LZO)
	&backend_lzorle,
	&backend_lzo,
#endif
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_LZ4)
	&backend_lz4,
#endif
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_LZ4HC)
	&backend_lz4hc,
#endif
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_ZSTD)
	&backend_zstd,
#endif
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_DEFLATE)
	&backend_deflate,
#endif
#if IS_ENABLED(CONFIG_ZRAM_BACKEND_842)
	&backend_842,
#endif
};

/**
 * zcomp_lookup() - find an algorithm of this build by name
 * @name: user supplied name; one trailing newline is ignored
 * Context: any context.
 * Return: the backend, or NULL when this build does not offer @name.
 */
const struct zcomp_ops *zcomp_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(zcomp_backends); i++)
		if (sysfs_streq(name, zcomp_backends[i]->name))
			return zcomp_backends[i];
	return NULL;
}

/* CONFIG_ZRAM_DEF_COMP, or the first algorithm if this build lacks it */
static const struct zcomp_ops *zcomp_default(void)
{
	const struct zcomp_ops *ops = zcomp_lookup(CONFIG_ZRAM_DEF_COMP);

	BUILD_BUG_ON(ARRAY_SIZE(zcomp_backends) == 0);
	return ops ?: zcomp_backends[0];
}

/**
 * zcomp_available_show() - list the algorithms for sysfs
 * @cur: the selected algorithm, printed in brackets
 * @buf: sysfs page buffer (PAGE_SIZE bytes)
 * @at: offset in @buf to start writing at, in bytes
 * Context: any context.
 * Return: number of bytes written at @buf + @at.
 */
ssize_t zcomp_available_show(const struct zcomp_ops *cur, char *buf,
			     size_t at)
{
	ssize_t sz = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(zcomp_backends); i++) {
		const struct zcomp_ops *ops = zcomp_backends[i];

		sz += sysfs_emit_at(buf, at + sz, ops == cur ? "[%s] " : "%s ",
				    ops->name);
	}
	sz += sysfs_emit_at(buf, at + sz, "\n");
	return sz;
}

/**
 * zcomp_dict_read() - read a dict= file whole into parameters
 * @params: out: its dictionary, which the caller owns; unchanged on error
 * @dict_path: dict= value, or NULL for no dictionary
 * Context: process context; may sleep (reads a file).
 * Return: 0, or the file read's errno (-EINVAL for an empty file).
 */
int zcomp_dict_read(struct zcomp_params *params, const char *dict_path)
{
	void *dict = NULL;
	ssize_t sz;

	if (!dict_path)
		return 0;
	sz = kernel_read_file_from_path(dict_path, 0, &dict, INT_MAX, NULL,
					READING_POLICY);
	if (sz < 0)
		return sz;
	params->dict = dict;
	params->dict_sz = sz;
	return 0;
}

/**
 * zcomp_conf_set() - choose a priority's algorithm, with default parameters
 * @conf: the priority's configuration; its dictionary is freed
 * @ops: the algorithm, or NULL for none
 * Context: process context, no compressor created from @conf exists.
 */
void zcomp_conf_set(struct zcomp_conf *conf, const struct zcomp_ops *ops)
{
	vfree(conf->params.dict);
	conf->params = (struct zcomp_params){
		.level = ZCOMP_PARAM_DEFAULT,
		.deflate_winbits = ZCOMP_PARAM_DEFAULT,
	};
	conf->ops = ops;
}

/**
 * zcomp_conf_reset() - default algorithm at priority 0, none above, no params
 * @conf: the device's configuration, one entry per priority; frees dictionaries
 * Context: process context, no compressor created from @conf exists.
 */
void zcomp_conf_reset(struct zcomp_conf conf[ZCOMP_MAX_PRIOS])
{
	unsigned int prio;

	for (prio = 0; prio < ZCOMP_MAX_PRIOS; prio++)
		zcomp_conf_set(&conf[prio], NULL);
	conf[ZCOMP_PRIO_PRIMARY].ops = zcomp_default();
}

/**
 * zcomp_conf_find() - the priority an algorithm is configured for
 * @conf: the device's configuration, one entry per priority
 * @first: lowest priority to look at (0 for all)
 * @name: algorithm name (an algo= value)
 * Context: any context; the caller keeps @conf stable.
 * Return: the lowest such priority >= @first, or -EINVAL when none.
 */
int zcomp_conf_find(const struct zcomp_conf conf[ZCOMP_MAX_PRIOS],
		    unsigned int first, const char *name)
{
	int prio;

	for (prio = first; prio < ZCOMP_MAX_PRIOS; prio++)
		if (conf[prio].ops && !strcmp(conf[prio].ops->name, name))
			return prio;
	return -EINVAL;
}

static void zcomp_strm_free(struct zcomp_strm *zstrm)
{
	if (zstrm->ctx)
		zstrm->comp->ops->ctx_destroy(zstrm->ctx);
	kvfree(zstrm->buffer);
	zstrm->comp = NULL;
	zstrm->ctx = NULL;
	zstrm->buffer = NULL;
}

/* Leaves @zstrm empty on failure. */
static int zcomp_strm_init(struct zcomp *comp, struct zcomp_strm *zstrm)
{
	void *ctx;

	ctx = comp->ops->ctx_create(comp);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	zstrm->buffer = kvzalloc(ZCOMP_BUFFER_SIZE, GFP_KERNEL);
	if (!zstrm->buffer)
		goto out_destroy_ctx;

	zstrm->ctx = ctx;
	zstrm->comp = comp;
	return 0;

out_destroy_ctx:
	comp->ops->ctx_destroy(ctx);
	return -ENOMEM;
}

/* Two local_lock_init() sites: lockdep tells task and softirq streams apart */
static int zcomp_cpu_up_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp *comp = hlist_entry(node, struct zcomp, node);
	struct zcomp_strm *zstrm = per_cpu_ptr(comp->stream, cpu);
	struct zcomp_strm *sstrm;
	int ret;

	local_lock_init(&zstrm->lock);
	ret = zcomp_strm_init(comp, zstrm);
	if (ret)
		goto out_report;
	if (!comp->softirq_stream)
		return 0;
	sstrm = per_cpu_ptr(comp->softirq_stream, cpu);
	local_lock_init(&sstrm->lock);
	ret = zcomp_strm_init(comp, sstrm);
	if (!ret)
		return 0;
	zcomp_strm_free(zstrm);
out_report:
	pr_err("cannot allocate a %s stream for CPU %u: %d\n",
	       comp->ops->name, cpu, ret);
	return ret;
}

static int zcomp_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp *comp = hlist_entry(node, struct zcomp, node);

	if (comp->softirq_stream)
		zcomp_strm_free(per_cpu_ptr(comp->softirq_stream, cpu));
	zcomp_strm_free(per_cpu_ptr(comp->stream, cpu));
	return 0;
}

/**
 * zcomp_cpuhp_setup() - register the stream hotplug callbacks
 * Context: module load, before any zcomp exists; may sleep.
 * Return: 0 or -errno (-EBUSY: another zram module holds CPUHP_ZCOMP_PREPARE).
 */
int zcomp_cpuhp_setup(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_ZCOMP_PREPARE, "block/zram:prepare",
				      zcomp_cpu_up_prepare, zcomp_cpu_dead);
	return ret < 0 ? ret : 0;
}

/**
 * zcomp_cpuhp_remove() - unregister the stream hotplug callbacks
 * Context: module unload, after every zcomp is destroyed; may sleep.
 */
void zcomp_cpuhp_remove(void)
{
	cpuhp_remove_multi_state(CPUHP_ZCOMP_PREPARE);
}

/**
 * zcomp_create() - create a compressor with a stream on every online CPU
 * @ops: the algorithm
 * @params: its parameters; must outlive the compressor unchanged
 * @flags: 0 or ZCOMP_SOFTIRQ_STREAMS (doubles the streams' memory)
 * Context: process context; may sleep.
 * Return: the compressor, or ERR_PTR() of -ENOMEM or the backend's errno.
 */
struct zcomp *zcomp_create(const struct zcomp_ops *ops,
			   const struct zcomp_params *params, unsigned int flags)
{
	struct zcomp *comp;
	int ret;

	comp = kzalloc_obj(*comp);
	if (!comp)
		return ERR_PTR(-ENOMEM);

	comp->ops = ops;
	comp->params = params;
	comp->level = params->level;
	ret = -ENOMEM;
	comp->stream = alloc_percpu(struct zcomp_strm);
	if (!comp->stream)
		goto out_free_comp;
	if (flags & ZCOMP_SOFTIRQ_STREAMS) {
		comp->softirq_stream = alloc_percpu(struct zcomp_strm);
		if (!comp->softirq_stream)
			goto out_free_stream;
	}
	if (ops->setup) {
		ret = ops->setup(comp);
		if (ret)
			goto out_free_softirq_stream;
	}
	ret = cpuhp_state_add_instance(CPUHP_ZCOMP_PREPARE, &comp->node);
	if (ret < 0)
		goto out_release;

	return comp;

out_release:
	if (ops->release)
		ops->release(comp);
out_free_softirq_stream:
	free_percpu(comp->softirq_stream);
out_free_stream:
	free_percpu(comp->stream);
out_free_comp:
	kfree(comp);
	return ERR_PTR(ret);
}

/**
 * zcomp_destroy() - free a compressor and all its streams
 * @comp: compressor from zcomp_create(); no stream may be in use
 * Context: process context; may sleep.
 */
void zcomp_destroy(struct zcomp *comp)
{
	cpuhp_state_remove_instance(CPUHP_ZCOMP_PREPARE, &comp->node);
	if (comp->ops->release)
		comp->ops->release(comp);
	free_percpu(comp->softirq_stream);
	free_percpu(comp->stream);
	kfree(comp);
}

/**
 * zcomp_create_all() - create the compressor of every configured priority
 * @comps: out: a compressor or NULL per priority; all NULL on failure
 * @conf: the device's configuration; must outlive the compressors unchanged
 * @flags: zcomp_create() flags, for every compressor
 * Context: process context; may sleep.
 * Return: 0, or zcomp_create()'s errno for the first priority that failed.
 */
int zcomp_create_all(struct zcomp *comps[ZCOMP_MAX_PRIOS],
		     const struct zcomp_conf conf[ZCOMP_MAX_PRIOS],
		     unsigned int flags)
{
	unsigned int prio;
	struct zcomp *comp;

	for (prio = 0; prio < ZCOMP_MAX_PRIOS; prio++) {
		comps[prio] = NULL;
		if (!conf[prio].ops)
			continue;
		comp = zcomp_create(conf[prio].ops, &conf[prio].params, flags);
		if (IS_ERR(comp))
			goto out_destroy_created;
		comps[prio] = comp;
	}
	return 0;

out_destroy_created:
	pr_err("cannot create the %s compressor (priority %u): %ld\n",
	       conf[prio].ops->name, prio, PTR_ERR(comp));
	zcomp_destroy_all(comps);
	return PTR_ERR(comp);
}

/**
 * zcomp_destroy_all() - destroy the compressors of zcomp_create_all()
 * @comps: one compressor or NULL per priority; all NULL afterwards
 * Context: process context; no stream in use; may sleep.
 */
void zcomp_destroy_all(struct zcomp *comps[ZCOMP_MAX_PRIOS])
{
	unsigned int prio;

	for (prio = ZCOMP_MAX_PRIOS; prio-- > 0;) {
		if (comps[prio])
			zcomp_destroy(comps[prio]);
		comps[prio] = NULL;
	}
}

/* Softirq may interrupt a task that holds its CPU's task stream. */
static struct zcomp_strm __percpu *zcomp_streams(struct zcomp *comp)
{
	return in_serving_softirq() ? comp->softirq_stream : comp->stream;
}

/**
 * zcomp_stream_get() - take this CPU's stream (in softirq, the softirq one)
 * @comp: compressor; in softirq, one created with ZCOMP_SOFTIRQ_STREAMS
 * Context: task or softirq; nowait-safe, never sleeps on !PREEMPT_RT. The
 * caller must not sleep until zcomp_stream_put().
 * Return: the stream of the current CPU.
 */
struct zcomp_strm *zcomp_stream_get(struct zcomp *comp)
{
	struct zcomp_strm __percpu *streams = zcomp_streams(comp);

	local_lock(&streams->lock);
	return this_cpu_ptr(streams);
}

/**
 * zcomp_stream_put() - release the stream taken by zcomp_stream_get()
 * @comp: compressor
 * Context: same task or softirq, and CPU, as the matching zcomp_stream_get().
 */
void zcomp_stream_put(struct zcomp *comp)
{
	local_unlock(&zcomp_streams(comp)->lock);
}

/**
 * zcomp_compress() - compress one page into the stream's buffer
 * @zstrm: stream held by the caller
 * @src: PAGE_SIZE bytes of input
 * @dst_len: out: compressed size in bytes; the data is in @zstrm->buffer
 * Context: stream held; never sleeps; nowait-safe.
 * Return: 0 or the backend's negative errno.
 */
int zcomp_compress(struct zcomp_strm *zstrm, const void *src,
		   unsigned int *dst_len)
{
	const struct zcomp *comp = zstrm->comp;
	unsigned int len = ZCOMP_BUFFER_SIZE;
	int ret;

	lockdep_assert_held(&zstrm->lock);
	ret = comp->ops->compress(comp, zstrm->ctx, src, PAGE_SIZE,
				  zstrm->buffer, &len);
	if (!ret)
		*dst_len = len;
	return ret;
}

/**
 * zcomp_decompress() - decompress one object into a full page
 * @zstrm: stream held by the caller
 * @src: compressed object
 * @src_len: size of @src in bytes
 * @dst: PAGE_SIZE bytes of output
 * Context: stream held; never sleeps; nowait-safe.
 * Return: 0, or -EIO when the backend fails or its output is not one page.
 */
int zcomp_decompress(struct zcomp_strm *zstrm, const void *src,
		     unsigned int src_len, void *dst)
{
	const struct zcomp *comp = zstrm->comp;
	unsigned int len = PAGE_SIZE;
	int ret;

	lockdep_assert_held(&zstrm->lock);
	ret = comp->ops->decompress(comp, zstrm->ctx, src, src_len, dst, &len);
	if (ret)
		return ret;
	return len == PAGE_SIZE ? 0 : -EIO;
}
