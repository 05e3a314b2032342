/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram compression front end: backends over the kernel's compression
 * libraries (lib/lz4, lib/zstd, lib/zlib_*, lib/lzo, lib/842), one ops table
 * per algorithm, and one stream per CPU per compressor, so that compressing
 * or decompressing a slot never sleeps and never waits for another task.
 *
 * A device holds one struct zcomp_conf per priority: the algorithm and the
 * parameters user space chose (comp_algorithm, algorithm_params). At init
 * zcomp_create_all() turns every configured priority into a struct zcomp;
 * priority 0 (ZCOMP_PRIO_PRIMARY) compresses every write, higher ones are
 * for recompression (CONFIG_ZRAM_MULTI_COMP).
 *
 * Streams are for task context. A compressor created with
 * ZCOMP_SOFTIRQ_STREAMS has a second set, one per CPU, only for
 * decompressing in softirq context (zcomp_stream_get() picks the set): a
 * softirq may run on top of a task that holds its CPU's task stream.
 */

#ifndef _ZCOMP_H_
#define _ZCOMP_H_

#include <linux/bits.h>
#include <linux/cleanup.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/types.h>
#include <linux/vmalloc.h>

/* algorithm_params without level=: the algorithm's own default level */
#define ZCOMP_LEVEL_DEFAULT	INT_MIN

/* zcomp_create() flag: also make the per-CPU softirq streams. */
#define ZCOMP_SOFTIRQ_STREAMS	BIT(0)

/* Longest algorithm name + 1 accepted before E2BIG (upstream's limit). */
#define ZCOMP_MAX_NAME		128

#define ZCOMP_PRIO_PRIMARY	0
#ifdef CONFIG_ZRAM_MULTI_COMP
#define ZCOMP_MAX_PRIOS		4
#else
#define ZCOMP_MAX_PRIOS		1
#endif

struct zcomp;

/**
 * struct zcomp_params - parameters of one compressor priority
 * @level: compression level, or ZCOMP_LEVEL_DEFAULT. What it means and
 *	which values the library takes is the backend's business (see
 *	&zcomp_ops.setup).
 * @dict: dictionary contents (vmalloc()ed), or NULL
 * @dict_sz: size of @dict in bytes; 0 without a dictionary
 *
 * Owned by the device. Immutable while a struct zcomp created from it
 * exists: the device refuses algorithm_params once initialized, and frees
 * its compressors before it resets the parameters.
 */
struct zcomp_params {
	s32 level;
	void *dict;
	size_t dict_sz;
};

/* The dictionary of a struct zcomp_params variable is freed with it. */
DEFINE_FREE(zcomp_params, struct zcomp_params, vfree(_T.dict))

/**
 * struct zcomp_ops - one compression library as a zram backend
 * @name: algorithm name, as comp_algorithm lists it
 * @setup: optional. Check @comp->params and build what all streams of
 *	@comp share, in @comp->priv (e.g. a digested dictionary); may replace
 *	@comp->level, which starts as the level of @comp->params, with the
 *	level to use. Process context; may sleep. Return 0 or a negative
 *	errno (-EINVAL for a level or dictionary the library refuses).
 * @release: optional; frees what @setup built. Process context.
 * @ctx_create: allocate and initialize one stream's private context.
 *	Process context; may sleep. Return the context or an ERR_PTR()
 *	(-ENOMEM, -EINVAL).
 * @ctx_destroy: free a context from @ctx_create. Process context.
 * @compress: compress @src_len bytes at @src into @dst; *@dst_len is the
 *	room at @dst on entry (at least 2 * PAGE_SIZE), the compressed size
 *	on success. Stream held: must not sleep or allocate; nowait-safe.
 *	Return 0 or a negative errno (the data cannot be stored compressed).
 * @decompress: decompress @src_len bytes at @src into @dst; *@dst_len is
 *	the room at @dst on entry (PAGE_SIZE), the decompressed size on
 *	success. Same context as @compress. Return 0, or -EIO when the
 *	library rejects the input.
 *
 * @compress and @decompress may use the stream context @ctx freely; what
 * they read from @comp (level, params, priv) is shared by all CPUs and
 * must not be written.
 */
struct zcomp_ops {
	const char *name;
	int (*setup)(struct zcomp *comp);
	void (*release)(struct zcomp *comp);
	void *(*ctx_create)(const struct zcomp *comp);
	void (*ctx_destroy)(void *ctx);
	int (*compress)(const struct zcomp *comp, void *ctx, const void *src,
			unsigned int src_len, void *dst, unsigned int *dst_len);
	int (*decompress)(const struct zcomp *comp, void *ctx, const void *src,
			  unsigned int src_len, void *dst,
			  unsigned int *dst_len);
};

/**
 * struct zcomp_conf - what user space chose for one compressor priority
 * @ops: the algorithm; NULL when the priority is not used
 * @params: its parameters (algorithm_params). They belong to the
 *	priority, not to the algorithm: selecting another algorithm keeps
 *	them, as upstream does.
 *
 * Written with the device's init_lock held for write, only while the
 * device is not initialized.
 */
struct zcomp_conf {
	const struct zcomp_ops *ops;
	struct zcomp_params params;
};

/**
 * struct zcomp_strm - per-CPU compression stream
 * @lock: serialises users of this CPU's stream. A local_lock: on !PREEMPT_RT
 *	it only disables preemption, so taking it never sleeps and is
 *	nowait-safe. Held from zcomp_stream_get() to zcomp_stream_put(); the
 *	holder must not sleep.
 * @comp: the compressor this stream belongs to
 * @ctx: the backend's context for this stream (&zcomp_ops.ctx_create)
 * @buffer: 2 pages of scratch space: the compressed output (a compressor
 *	may expand incompressible data beyond one page), or zsmalloc's copy
 *	of an object that spans two pages while it is read; nothing stays
 *	in it across calls.
 *
 * @comp, @ctx and @buffer are set by the CPU hotplug prepare callback and
 * cleared by the dead callback.
 */
struct zcomp_strm {
	local_lock_t lock;
	const struct zcomp *comp;
	void *ctx;
	void *buffer;
};

/**
 * struct zcomp - a compressor instance owned by one zram device
 * @stream: per-CPU streams for task context, valid for every online CPU
 * @softirq_stream: per-CPU streams for decompression in softirq context,
 *	valid for every online CPU; NULL without ZCOMP_SOFTIRQ_STREAMS
 * @ops: the backend
 * @params: parameters it was created with; owned by the device (struct
 *	zcomp_conf) and immutable while @comp exists
 * @level: level the backend uses (@params' level, or what &zcomp_ops.setup
 *	made of it)
 * @priv: what &zcomp_ops.setup built for all streams, or NULL
 * @node: CPU hotplug multi-instance node (CPUHP_ZCOMP_PREPARE)
 */
struct zcomp {
	struct zcomp_strm __percpu *stream;
	struct zcomp_strm __percpu *softirq_stream;
	const struct zcomp_ops *ops;
	const struct zcomp_params *params;
	s32 level;
	void *priv;
	struct hlist_node node;
};

int zcomp_cpuhp_setup(void);
void zcomp_cpuhp_remove(void);

const struct zcomp_ops *zcomp_lookup(const char *name);
ssize_t zcomp_available_show(const struct zcomp_ops *cur, char *buf,
			     size_t at);

int zcomp_params_read(struct zcomp_params *params, s32 level,
		      const char *dict_path);
void zcomp_conf_reset(struct zcomp_conf conf[ZCOMP_MAX_PRIOS]);
int zcomp_conf_find(const struct zcomp_conf conf[ZCOMP_MAX_PRIOS],
		    unsigned int first, const char *name);

struct zcomp *zcomp_create(const struct zcomp_ops *ops,
			   const struct zcomp_params *params, unsigned int flags);
void zcomp_destroy(struct zcomp *comp);
int zcomp_create_all(struct zcomp *comps[ZCOMP_MAX_PRIOS],
		     const struct zcomp_conf conf[ZCOMP_MAX_PRIOS],
		     unsigned int flags);
void zcomp_destroy_all(struct zcomp *comps[ZCOMP_MAX_PRIOS]);

struct zcomp_strm *zcomp_stream_get(struct zcomp *comp);
void zcomp_stream_put(struct zcomp *comp);

int zcomp_compress(struct zcomp_strm *zstrm, const void *src,
		   unsigned int *dst_len);
int zcomp_decompress(struct zcomp_strm *zstrm, const void *src,
		     unsigned int src_len, void *dst);

#endif /* _ZCOMP_H_ */
