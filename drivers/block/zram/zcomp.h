/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zram compression: backend ops, per-priority configuration, compressors */

#ifndef _ZCOMP_H_
#define _ZCOMP_H_

#include <linux/bits.h>
#include <linux/cleanup.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/types.h>
#include <linux/vmalloc.h>

/* A number algorithm_params did not set: the algorithm's own default */
#define ZCOMP_PARAM_DEFAULT	INT_MIN

/* zcomp_create() flag: also per-CPU streams for decompressing in softirq */
#define ZCOMP_SOFTIRQ_STREAMS	BIT(0)

/* Longest algorithm name + 1 accepted before E2BIG. */
#define ZCOMP_MAX_NAME		128

/* Priority 0 compresses every write; higher ones only recompress. */
#define ZCOMP_PRIO_PRIMARY	0
#ifdef CONFIG_ZRAM_MULTI_COMP
#define ZCOMP_MAX_PRIOS		4
#else
#define ZCOMP_MAX_PRIOS		1
#endif

struct zcomp;

/**
 * struct zcomp_params - parameters of one compressor priority
 * @level: compression level (meaning is the backend's), or ZCOMP_PARAM_DEFAULT
 * @deflate_winbits: deflate's window bits, or ZCOMP_PARAM_DEFAULT
 * @dict: dictionary contents (vmalloc()ed), or NULL
 * @dict_sz: size of @dict in bytes; 0 without a dictionary
 *
 * Owned by the device; immutable while a struct zcomp created from it exists.
 */
struct zcomp_params {
	s32 level;
	s32 deflate_winbits;
	void *dict;
	size_t dict_sz;
};

DEFINE_FREE(zcomp_params, struct zcomp_params, vfree(_T.dict))

/**
 * struct zcomp_ops - one compression library as a zram backend
 * @name: algorithm name, as comp_algorithm lists it
 * @setup: optional; settle @comp->level, build shared state in @comp->priv.
 *	May sleep. Return 0, -ENOMEM, or -EINVAL or -EOPNOTSUPP if
 *	@comp->params are refused.
 * @release: optional; free what @setup built. May sleep.
 * @ctx_create: allocate a stream's context; may sleep. Return it or ERR_PTR().
 * @ctx_destroy: free a context from @ctx_create
 * @compress: compress @src_len bytes at @src into @dst; *@dst_len is the room
 *	(>= 2 * PAGE_SIZE) on entry, output size on exit. Return 0 or -errno.
 * @decompress: the reverse; room is PAGE_SIZE. Return 0, or -EIO.
 *
 * @compress and @decompress run with the stream held: they must not sleep or
 * allocate, and must not write @comp, which all CPUs share.
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
 * @params: its parameters (algorithm_params); reset when @ops is written
 *
 * Written under the device's init_lock (write) while it is not initialized.
 */
struct zcomp_conf {
	const struct zcomp_ops *ops;
	struct zcomp_params params;
};

/**
 * struct zcomp_strm - per-CPU compression stream
 * @lock: held from zcomp_stream_get() to zcomp_stream_put(); a local_lock, so
 *	nowait-safe and not sleeping on !PREEMPT_RT; the holder must not sleep
 * @comp: its compressor; set, like @ctx and @buffer, by CPU hotplug callbacks
 * @ctx: the backend's context (&zcomp_ops.ctx_create)
 * @buffer: 2 pages of scratch: compressed output (may exceed a page), or
 *	zsmalloc's copy of an object spanning two pages; nothing kept in it
 */
struct zcomp_strm {
	local_lock_t lock;
	const struct zcomp *comp;
	void *ctx;
	void *buffer;
};

/**
 * struct zcomp - a compressor instance owned by one zram device
 * @stream: per-CPU streams for task context
 * @softirq_stream: per-CPU streams for softirq, or NULL (ZCOMP_SOFTIRQ_STREAMS)
 * @ops: the backend
 * @params: parameters it was created with (the device's struct zcomp_conf)
 * @level: level the backend uses (@params' level or &zcomp_ops.setup's choice)
 * @priv: what &zcomp_ops.setup built, or NULL
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

int zcomp_dict_read(struct zcomp_params *params, const char *dict_path);
void zcomp_conf_set(struct zcomp_conf *conf, const struct zcomp_ops *ops);
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
