/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Build the zram rework, written against Linux 7.3, for Debian's 6.12
 * kernel: the 7.3 kernel APIs it uses that 6.12 lacks, in terms of what
 * 6.12 has. Out-of-tree builds for a 6.12 kernel include this file first
 * (KCFLAGS=-include: tools/build/module.sh, and DKMS by dkms.conf's MAKE
 * for 6.12); it is never part of the patch series (make series-check
 * fails on a patch that names it).
 *
 * zsmalloc: 7.3 reads and writes objects with zs_obj_read_begin()/_end(),
 * zs_obj_read_sg_begin()/_end() and zs_obj_write(), and zs_malloc() takes
 * a NUMA node; 6.12 maps an object with zs_map_object(), into a per-CPU
 * buffer when it spans two pages (preemption stays disabled until
 * zs_unmap_object(), which the 7.3 callers tolerate: they never sleep
 * between begin and end).
 */
#ifndef _ZRAM_COMPAT_6_12_H_
#define _ZRAM_COMPAT_6_12_H_

/*
 * Only macros and no include: they expand where zram's sources use them,
 * after their own includes (an include here would come before their
 * pr_fmt).
 */

#define zs_obj_read_begin(pool, handle, mem_len, local_copy) \
	zs_map_object(pool, handle, ZS_MM_RO)
#define zs_obj_read_end(pool, handle, mem_len, handle_mem) \
	zs_unmap_object(pool, handle)
/*
 * One entry over the mapping: it is in the direct map on x86_64 (a page
 * of the zspage, or the per-CPU buffer of an object across two pages).
 */
#define zs_obj_read_sg_begin(pool, handle, sg, mem_len) \
	sg_init_one(sg, zs_map_object(pool, handle, ZS_MM_RO), mem_len)
#define zs_obj_read_sg_end(pool, handle) \
	zs_unmap_object(pool, handle)
#define zs_obj_write(pool, handle, handle_mem, mem_len)			\
	do {								\
		memcpy(zs_map_object(pool, handle, ZS_MM_WO), handle_mem,	\
		       mem_len);					\
		zs_unmap_object(pool, handle);				\
	} while (0)
/* variadic, so that 6.12's own three-argument prototype passes unchanged */
#define zs_malloc(pool, size, gfp, ...) zs_malloc(pool, size, gfp)

#endif /* _ZRAM_COMPAT_6_12_H_ */
