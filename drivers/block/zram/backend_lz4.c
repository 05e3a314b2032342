// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: lz4 (lib/lz4).
 *
 * level= is lz4's acceleration factor: 1, the default, compresses best;
 * larger values trade ratio for speed; values below 1 mean 1.
 *
 * With dict=, every page is compressed as if it followed the last 64 KiB
 * of the dictionary. Setup loads that window once into a template stream;
 * each compression starts from a copy of the template (16 KiB) instead of
 * hashing the dictionary again.
 */

#include <linux/err.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "backend_lz4.h"
#include "backends.h"

/**
 * lz4_setup() - resolve the level, load the dictionary into a template
 * @comp: compressor being created
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
static int lz4_setup(struct zcomp *comp)
{
	const char *dict;
	void *tpl;
	int dict_sz;

	if (comp->level == ZCOMP_LEVEL_DEFAULT)
		comp->level = LZ4_ACCELERATION_DEFAULT;
	dict = lz4_dict_window(comp->params, &dict_sz);
	if (!dict)
		return 0;
	tpl = kvzalloc(LZ4_STREAMSIZE, GFP_KERNEL);
	if (!tpl)
		return -ENOMEM;
	LZ4_loadDict(tpl, dict, dict_sz);
	comp->priv = tpl;
	return 0;
}

static void lz4_release(struct zcomp *comp)
{
	kvfree(comp->priv);
}

/*
 * A stream: the work memory of LZ4_compress_fast(), or the LZ4_stream_t
 * of LZ4_compress_fast_continue(); both are LZ4_STREAMSIZE bytes.
 */
static void *lz4_ctx_create(const struct zcomp *comp)
{
	void *ctx = kvzalloc(LZ4_STREAMSIZE, GFP_KERNEL);

	return ctx ?: ERR_PTR(-ENOMEM);
}

static void lz4_ctx_destroy(void *ctx)
{
	kvfree(ctx);
}

static int lz4_compress(const struct zcomp *comp, void *ctx, const void *src,
			unsigned int src_len, void *dst, unsigned int *dst_len)
{
	int ret;

	if (comp->priv) {
		/* The stream's state after loading the dictionary. */
		memcpy(ctx, comp->priv, LZ4_STREAMSIZE);
		ret = LZ4_compress_fast_continue(ctx, src, dst, src_len,
						 *dst_len, comp->level);
	} else {
		ret = LZ4_compress_fast(src, dst, src_len, *dst_len,
					comp->level, ctx);
	}
	if (ret <= 0)
		return -EIO;
	*dst_len = ret;
	return 0;
}

const struct zcomp_ops backend_lz4 = {
	.name		= "lz4",
	.setup		= lz4_setup,
	.release	= lz4_release,
	.ctx_create	= lz4_ctx_create,
	.ctx_destroy	= lz4_ctx_destroy,
	.compress	= lz4_compress,
	.decompress	= lz4_block_decompress,
};
