// SPDX-License-Identifier: GPL-2.0-or-later
/* zram backend: 842 (lib/842); level= or dict= is -EOPNOTSUPP at init. */

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sw842.h>

#include "backends.h"

static void *sw842_ctx_create(const struct zcomp *comp)
{
	void *ctx = kvzalloc(SW842_MEM_COMPRESS, GFP_KERNEL);

	return ctx ?: ERR_PTR(-ENOMEM);
}

static void sw842_ctx_destroy(void *ctx)
{
	kvfree(ctx);
}

static int sw842_zcompress(const struct zcomp *comp, void *ctx,
			   const void *src, unsigned int src_len, void *dst,
			   unsigned int *dst_len)
{
	/* sw842_compress() checks the room itself (-ENOSPC). */
	return sw842_compress(src, src_len, dst, dst_len, ctx);
}

static int sw842_zdecompress(const struct zcomp *comp, void *ctx,
			     const void *src, unsigned int src_len, void *dst,
			     unsigned int *dst_len)
{
	return sw842_decompress(src, src_len, dst, dst_len) ? -EIO : 0;
}

const struct zcomp_ops backend_842 = {
	.name		= "842",
	.setup		= zcomp_setup_plain,
	.ctx_create	= sw842_ctx_create,
	.ctx_destroy	= sw842_ctx_destroy,
	.compress	= sw842_zcompress,
	.decompress	= sw842_zdecompress,
};
