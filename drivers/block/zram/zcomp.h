/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zram compression front end: one crypto API "comp" transform and one
 * scratch buffer per CPU, so that compressing or decompressing a slot never
 * sleeps and never waits for another task.
 */

#ifndef _ZCOMP_H_
#define _ZCOMP_H_

#include <linux/cpuhotplug.h>
#include <linux/crypto.h>
#include <linux/local_lock.h>
#include <linux/types.h>

/**
 * struct zcomp_strm - per-CPU compression stream
 * @lock: serialises users of this CPU's stream. A local_lock: on !PREEMPT_RT
 *	it only disables preemption, so taking it never sleeps and is
 *	nowait-safe. Held from zcomp_stream_get() to zcomp_stream_put(); the
 *	holder must not sleep.
 * @tfm: crypto API compression transform; owned by this stream, allocated
 *	by the CPU hotplug prepare callback, freed by the dead callback.
 * @buffer: 2 pages of scratch space for the compressed output (a
 *	compressor may expand incompressible data beyond one page).
 */
struct zcomp_strm {
	local_lock_t lock;
	struct crypto_comp *tfm;
	void *buffer;
};

/**
 * struct zcomp - a compressor instance owned by one zram device
 * @stream: per-CPU streams, valid for every online CPU
 * @name: crypto API algorithm name; points into a static table
 * @node: CPU hotplug multi-instance node (CPUHP_ZCOMP_PREPARE)
 */
struct zcomp {
	struct zcomp_strm __percpu *stream;
	const char *name;
	struct hlist_node node;
};

int zcomp_cpuhp_setup(void);
void zcomp_cpuhp_remove(void);

const char *zcomp_lookup_algorithm(const char *name);
ssize_t zcomp_available_show(const char *cur, char *buf, size_t at);

struct zcomp *zcomp_create(const char *name);
void zcomp_destroy(struct zcomp *comp);

struct zcomp_strm *zcomp_stream_get(struct zcomp *comp);
void zcomp_stream_put(struct zcomp *comp);

int zcomp_compress(struct zcomp_strm *zstrm, const void *src,
		   unsigned int *dst_len);
int zcomp_decompress(struct zcomp_strm *zstrm, const void *src,
		     unsigned int src_len, void *dst);

#endif /* _ZCOMP_H_ */
