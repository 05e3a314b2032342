// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: lz4hc (lib/lz4; lz4 output). level= is 1 to 16 (default 9;
 * others are -EINVAL at init). With dict=, each page starts from a copy of
 * a stream preloaded with the window.
 */

#include <linux/err.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "backend_lz4.h"
#include "backends.h"

static int lz4hc_setup(struct zcomp *comp)
{
	const char *dict;
	void *tpl;
	int dict_sz;

	if (comp->level == ZCOMP_PARAM_DEFAULT)
		comp->level = LZ4HC_DEFAULT_CLEVEL;
	if (comp->level < 1 || comp->level > LZ4HC_MAX_CLEVEL)
		return -EINVAL;
	dict = lz4_dict_window(comp->params, &dict_sz);
	if (!dict)
		return 0;
	tpl = kvzalloc(LZ4_STREAMHCSIZE, GFP_KERNEL);
	if (!tpl)
		return -ENOMEM;
	LZ4_resetStreamHC(tpl, comp->level);
	LZ4_loadDictHC(tpl, dict, dict_sz);
	comp->priv = tpl;
	return 0;
}

static void lz4hc_release(struct zcomp *comp)
{
	kvfree(comp->priv);
}

/* Work memory of LZ4_compress_HC() or stream of its _continue() variant */
static void *lz4hc_ctx_create(const struct zcomp *comp)
{
	void *ctx = kvzalloc(LZ4_STREAMHCSIZE, GFP_KERNEL);

	return ctx ?: ERR_PTR(-ENOMEM);
}

static void lz4hc_ctx_destroy(void *ctx)
{
	kvfree(ctx);
}

static int lz4hc_compress(const struct zcomp *comp, void *ctx,
			  const void *src, unsigned int src_len, void *dst,
			  unsigned int *dst_len)
{
	int ret;

	if (comp->priv) {
		memcpy(ctx, comp->priv, LZ4_STREAMHCSIZE);
		ret = LZ4_compress_HC_continue(ctx, src, dst, src_len,
					       *dst_len);
	} else {
		ret = LZ4_compress_HC(src, dst, src_len, *dst_len, comp->level,
				      ctx);
	}
	if (ret <= 0)
		return -EIO;
	*dst_len = ret;
	return 0;
}

const struct zcomp_ops backend_lz4hc = {
	.name		= "lz4hc",
	.setup		= lz4hc_setup,
	.release	= lz4hc_release,
	.ctx_create	= lz4hc_ctx_create,
	.ctx_destroy	= lz4hc_ctx_destroy,
	.compress	= lz4hc_compress,
	.decompress	= lz4_block_decompress,
};
