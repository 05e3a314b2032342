// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backends: lzo and lzo-rle (lib/lzo; one decompressor serves both);
 * level= or dict= is -EOPNOTSUPP at init.
 */

#include <linux/err.h>
#include <linux/lzo.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "backends.h"

static void *lzo_ctx_create(const struct zcomp *comp)
{
	void *ctx = kvzalloc(LZO1X_MEM_COMPRESS, GFP_KERNEL);

	return ctx ?: ERR_PTR(-ENOMEM);
}

static void lzo_ctx_destroy(void *ctx)
{
	kvfree(ctx);
}

/* The lzo compressors do not check the room at dst. */
static int lzo_check_room(unsigned int src_len, unsigned int dst_len)
{
	return dst_len < lzo1x_worst_compress(src_len) ? -ENOSPC : 0;
}

static int lzo_compress(const struct zcomp *comp, void *ctx, const void *src,
			unsigned int src_len, void *dst, unsigned int *dst_len)
{
	size_t len;
	int ret;

	ret = lzo_check_room(src_len, *dst_len);
	if (ret)
		return ret;
	if (lzo1x_1_compress(src, src_len, dst, &len, ctx) != LZO_E_OK)
		return -EIO;
	*dst_len = len;
	return 0;
}

static int lzorle_compress(const struct zcomp *comp, void *ctx,
			   const void *src, unsigned int src_len, void *dst,
			   unsigned int *dst_len)
{
	size_t len;
	int ret;

	ret = lzo_check_room(src_len, *dst_len);
	if (ret)
		return ret;
	if (lzorle1x_1_compress(src, src_len, dst, &len, ctx) != LZO_E_OK)
		return -EIO;
	*dst_len = len;
	return 0;
}

static int lzo_decompress(const struct zcomp *comp, void *ctx,
			  const void *src, unsigned int src_len, void *dst,
			  unsigned int *dst_len)
{
	size_t len = *dst_len;

	if (lzo1x_decompress_safe(src, src_len, dst, &len) != LZO_E_OK)
		return -EIO;
	*dst_len = len;
	return 0;
}

const struct zcomp_ops backend_lzorle = {
	.name		= "lzo-rle",
	.setup		= zcomp_setup_plain,
	.ctx_create	= lzo_ctx_create,
	.ctx_destroy	= lzo_ctx_destroy,
	.compress	= lzorle_compress,
	.decompress	= lzo_decompress,
};

const struct zcomp_ops backend_lzo = {
	.name		= "lzo",
	.setup		= zcomp_setup_plain,
	.ctx_create	= lzo_ctx_create,
	.ctx_destroy	= lzo_ctx_destroy,
	.compress	= lzo_compress,
	.decompress	= lzo_decompress,
};
