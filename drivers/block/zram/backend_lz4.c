// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: lz4 (lib/lz4). level= is the acceleration factor: 1 (the
 * default) compresses best, larger is faster; below 1 is -EINVAL at init.
 * With dict=, each page starts from a copy of a stream preloaded with the
 * window; a dictionary too short for lz4 to index is -EINVAL.
 */

#include <linux/err.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "backend_lz4.h"
#include "backends.h"

static int lz4_setup(struct zcomp *comp)
{
	const char *dict;
	void *tpl;
	int dict_sz;

	if (comp->level == ZCOMP_PARAM_DEFAULT)
		comp->level = LZ4_ACCELERATION_DEFAULT;
	if (comp->level < LZ4_ACCELERATION_DEFAULT)
		return -EINVAL;
	if (!comp->params->dict_sz)
		return 0;
	dict = lz4_dict_window(comp->params, &dict_sz);
	if (!dict)
		return -EINVAL;
	tpl = kvzalloc(LZ4_STREAMSIZE, GFP_KERNEL);
	if (!tpl)
		return -ENOMEM;
	/* It loads nothing of a window shorter than a machine word. */
	if (LZ4_loadDict(tpl, dict, dict_sz) != dict_sz) {
		kvfree(tpl);
		return -EINVAL;
	}
	comp->priv = tpl;
	return 0;
}

static void lz4_release(struct zcomp *comp)
{
	kvfree(comp->priv);
}

/* Work memory of LZ4_compress_fast() or stream of its _continue() variant */
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
