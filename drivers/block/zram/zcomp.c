// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram compression front end over the crypto API.
 *
 * Each struct zcomp owns one stream per online CPU. Streams are created and
 * destroyed by CPU hotplug multi-instance callbacks on CPUHP_ZCOMP_PREPARE,
 * so a stream exists for a CPU before any task can run there. A user picks
 * the stream of the CPU it runs on under a local_lock, which keeps the I/O
 * path free of sleeping locks (REQ_NOWAIT callers rely on that).
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "zcomp.h"

/* Scratch space per stream: a compressor may expand its input. */
#define ZCOMP_BUFFER_SIZE	(2 * PAGE_SIZE)

/*
 * Algorithms offered to user space, in the order they are listed by
 * comp_algorithm. Only those the crypto API can provide are shown.
 */
static const char * const zcomp_algorithms[] = {
	"lzo-rle",
	"lzo",
	"lz4",
	"lz4hc",
	"zstd",
	"deflate",
	"842",
};

static bool zcomp_crypto_has(const char *name)
{
	return crypto_has_comp(name, 0, 0) == 1;
}

/**
 * zcomp_lookup_algorithm() - find a usable algorithm by its sysfs name
 * @name: user supplied name; one trailing newline is ignored
 *
 * Context: process context; may sleep (the crypto API may load a module).
 * Return: the static name of the algorithm, or NULL when it is not one we
 * offer or the crypto API cannot provide it.
 */
const char *zcomp_lookup_algorithm(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(zcomp_algorithms); i++) {
		if (!sysfs_streq(name, zcomp_algorithms[i]))
			continue;
		if (!zcomp_crypto_has(zcomp_algorithms[i]))
			return NULL;
		return zcomp_algorithms[i];
	}
	return NULL;
}

/**
 * zcomp_available_show() - list the usable algorithms for sysfs
 * @cur: name of the selected algorithm, printed in brackets
 * @buf: sysfs page buffer (PAGE_SIZE bytes)
 * @at: offset in @buf to start writing at, in bytes
 *
 * Context: process context; may sleep (the crypto API may load a module).
 * Return: number of bytes written at @buf + @at.
 */
ssize_t zcomp_available_show(const char *cur, char *buf, size_t at)
{
	ssize_t sz = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(zcomp_algorithms); i++) {
		const char *name = zcomp_algorithms[i];
		const char *fmt = strcmp(cur, name) ? "%s " : "[%s] ";

		if (!zcomp_crypto_has(name))
			continue;
		sz += sysfs_emit_at(buf, at + sz, fmt, name);
	}
	sz += sysfs_emit_at(buf, at + sz, "\n");
	return sz;
}

static void zcomp_strm_free(struct zcomp_strm *zstrm)
{
	if (!IS_ERR_OR_NULL(zstrm->tfm))
		crypto_free_comp(zstrm->tfm);
	vfree(zstrm->buffer);
	zstrm->tfm = NULL;
	zstrm->buffer = NULL;
}

/**
 * zcomp_strm_init() - allocate the transform and scratch buffer of a stream
 * @comp: compressor the stream belongs to
 * @zstrm: stream of one CPU, empty
 *
 * On failure the stream is left empty.
 *
 * Context: process context (CPU hotplug prepare); may sleep.
 * Return: 0, -ENOMEM, or the crypto API's errno (e.g. -ENOENT).
 */
static int zcomp_strm_init(struct zcomp *comp, struct zcomp_strm *zstrm)
{
	struct crypto_comp *tfm;

	tfm = crypto_alloc_comp(comp->name, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);

	zstrm->buffer = vzalloc(ZCOMP_BUFFER_SIZE);
	if (!zstrm->buffer)
		goto out_free_tfm;

	zstrm->tfm = tfm;
	return 0;

out_free_tfm:
	crypto_free_comp(tfm);
	return -ENOMEM;
}

/**
 * zcomp_cpu_up_prepare() - CPU hotplug callback: create one CPU's stream
 * @cpu: CPU coming up (or online, when an instance is added)
 * @node: &struct zcomp.node of the compressor
 *
 * Context: process context, CPU hotplug lock held; may sleep.
 * Return: 0, or zcomp_strm_init()'s errno (the hotplug core then rolls
 * back the streams it already created).
 */
static int zcomp_cpu_up_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp *comp = hlist_entry(node, struct zcomp, node);
	struct zcomp_strm *zstrm = per_cpu_ptr(comp->stream, cpu);
	int ret;

	local_lock_init(&zstrm->lock);
	ret = zcomp_strm_init(comp, zstrm);
	if (ret)
		pr_err("zram: cannot allocate a %s stream for CPU %u: %d\n",
		       comp->name, cpu, ret);
	return ret;
}

static int zcomp_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp *comp = hlist_entry(node, struct zcomp, node);

	zcomp_strm_free(per_cpu_ptr(comp->stream, cpu));
	return 0;
}

/**
 * zcomp_cpuhp_setup() - register the stream hotplug callbacks
 *
 * Called once at module load, before any zcomp is created.
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno from the CPU hotplug core (-EBUSY when
 * another module, e.g. the stock zram, holds CPUHP_ZCOMP_PREPARE).
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
 *
 * Called once at module unload, after every zcomp has been destroyed.
 *
 * Context: process context; may sleep.
 */
void zcomp_cpuhp_remove(void)
{
	cpuhp_remove_multi_state(CPUHP_ZCOMP_PREPARE);
}

/**
 * zcomp_create() - create a compressor with a stream on every online CPU
 * @name: algorithm name as returned by zcomp_lookup_algorithm()
 *
 * Context: process context; may sleep.
 * Return: the new zcomp, or ERR_PTR(-ENOMEM), or the crypto API's error
 * (e.g. -ENOENT) when a transform cannot be allocated.
 */
struct zcomp *zcomp_create(const char *name)
{
	struct zcomp *comp;
	int ret;

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp)
		return ERR_PTR(-ENOMEM);

	comp->name = name;
	comp->stream = alloc_percpu(struct zcomp_strm);
	if (!comp->stream) {
		ret = -ENOMEM;
		goto out_free_comp;
	}

	/* Runs zcomp_cpu_up_prepare() for each online CPU, or rolls back. */
	ret = cpuhp_state_add_instance(CPUHP_ZCOMP_PREPARE, &comp->node);
	if (ret < 0)
		goto out_free_stream;

	return comp;

out_free_stream:
	free_percpu(comp->stream);
out_free_comp:
	kfree(comp);
	return ERR_PTR(ret);
}

/**
 * zcomp_destroy() - free a compressor and all its streams
 * @comp: compressor from zcomp_create(); no stream may be in use
 *
 * Context: process context; may sleep.
 */
void zcomp_destroy(struct zcomp *comp)
{
	cpuhp_state_remove_instance(CPUHP_ZCOMP_PREPARE, &comp->node);
	free_percpu(comp->stream);
	kfree(comp);
}

/**
 * zcomp_stream_get() - take this CPU's stream
 * @comp: compressor
 *
 * The caller must not sleep until zcomp_stream_put().
 *
 * Context: any task context; never sleeps on !PREEMPT_RT; nowait-safe.
 * Return: the stream of the current CPU.
 */
struct zcomp_strm *zcomp_stream_get(struct zcomp *comp)
{
	local_lock(&comp->stream->lock);
	return this_cpu_ptr(comp->stream);
}

/**
 * zcomp_stream_put() - release the stream taken by zcomp_stream_get()
 * @comp: compressor
 *
 * Context: same task and CPU as the matching zcomp_stream_get().
 */
void zcomp_stream_put(struct zcomp *comp)
{
	local_unlock(&comp->stream->lock);
}

/**
 * zcomp_compress() - compress one page into the stream's buffer
 * @zstrm: stream held by the caller
 * @src: PAGE_SIZE bytes of input
 * @dst_len: out: compressed size in bytes; the data is in @zstrm->buffer
 *
 * Context: stream held; never sleeps; nowait-safe.
 * Return: 0 or the compressor's negative errno.
 */
int zcomp_compress(struct zcomp_strm *zstrm, const void *src,
		   unsigned int *dst_len)
{
	unsigned int len = ZCOMP_BUFFER_SIZE;
	int ret;

	lockdep_assert_held(&zstrm->lock);
	ret = crypto_comp_compress(zstrm->tfm, src, PAGE_SIZE,
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
 *
 * Context: stream held; never sleeps; nowait-safe.
 * Return: 0, the decompressor's negative errno, or -EIO when the output is
 * not exactly one page.
 */
int zcomp_decompress(struct zcomp_strm *zstrm, const void *src,
		     unsigned int src_len, void *dst)
{
	unsigned int len = PAGE_SIZE;
	int ret;

	lockdep_assert_held(&zstrm->lock);
	ret = crypto_comp_decompress(zstrm->tfm, src, src_len, dst, &len);
	if (ret)
		return ret;
	return len == PAGE_SIZE ? 0 : -EIO;
}
