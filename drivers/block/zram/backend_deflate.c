// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: deflate (lib/zlib_*). level= is 0 (store) to 9, or -1 (the
 * default: zlib's 6); deflate.winbits= is -15 to -9 (raw deflate) or 9 to 15
 * (zlib format), by default raw with a one-page window (at most 32 KiB).
 * Other values are -EINVAL at init, dict= is -EOPNOTSUPP.
 */

#include <linux/err.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/zlib.h>

#include "backends.h"

/* Negative window bits: raw deflate. */
#define DEFLATE_WBITS	min(PAGE_SHIFT, MAX_WBITS)
#define DEFLATE_MIN_WBITS	9

struct deflate_stream_ctx {
	struct z_stream_s def;
	struct z_stream_s inf;
};

static int deflate_winbits(const struct zcomp *comp)
{
	s32 wbits = comp->params->deflate_winbits;

	return wbits == ZCOMP_PARAM_DEFAULT ? -DEFLATE_WBITS : wbits;
}

static int deflate_setup(struct zcomp *comp)
{
	int wbits = abs(deflate_winbits(comp));

	if (comp->params->dict_sz)
		return -EOPNOTSUPP;
	if (comp->level == ZCOMP_PARAM_DEFAULT)
		comp->level = Z_DEFAULT_COMPRESSION;
	if (comp->level < Z_DEFAULT_COMPRESSION ||
	    comp->level > Z_BEST_COMPRESSION)
		return -EINVAL;
	if (wbits < DEFLATE_MIN_WBITS || wbits > MAX_WBITS)
		return -EINVAL;
	return 0;
}

static void deflate_ctx_destroy(void *ctx)
{
	struct deflate_stream_ctx *zc = ctx;

	/* zlib_{de,in}flateEnd() free nothing in the kernel's zlib. */
	kvfree(zc->inf.workspace);
	kvfree(zc->def.workspace);
	kfree(zc);
}

static void *deflate_ctx_create(const struct zcomp *comp)
{
	int wbits = deflate_winbits(comp);
	struct deflate_stream_ctx *zc;

	zc = kzalloc_obj(*zc);
	if (!zc)
		return ERR_PTR(-ENOMEM);
	zc->def.workspace =
		kvzalloc(zlib_deflate_workspacesize(wbits, MAX_MEM_LEVEL),
			 GFP_KERNEL);
	zc->inf.workspace = kvzalloc(zlib_inflate_workspacesize(), GFP_KERNEL);
	if (!zc->def.workspace || !zc->inf.workspace)
		goto out_destroy;
	if (zlib_deflateInit2(&zc->def, comp->level, Z_DEFLATED, wbits,
			      MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out_destroy;
	if (zlib_inflateInit2(&zc->inf, wbits) != Z_OK)
		goto out_destroy;
	return zc;

out_destroy:
	deflate_ctx_destroy(zc);
	return ERR_PTR(-ENOMEM);
}

static int deflate_compress(const struct zcomp *comp, void *ctx,
			    const void *src, unsigned int src_len, void *dst,
			    unsigned int *dst_len)
{
	struct z_stream_s *def = &((struct deflate_stream_ctx *)ctx)->def;

	if (zlib_deflateReset(def) != Z_OK)
		return -EIO;
	def->next_in = src;
	def->avail_in = src_len;
	def->next_out = dst;
	def->avail_out = *dst_len;
	if (zlib_deflate(def, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*dst_len = def->total_out;
	return 0;
}

static int deflate_decompress(const struct zcomp *comp, void *ctx,
			      const void *src, unsigned int src_len, void *dst,
			      unsigned int *dst_len)
{
	struct z_stream_s *inf = &((struct deflate_stream_ctx *)ctx)->inf;

	if (zlib_inflateReset(inf) != Z_OK)
		return -EIO;
	inf->next_in = src;
	inf->avail_in = src_len;
	inf->next_out = dst;
	inf->avail_out = *dst_len;
	if (zlib_inflate(inf, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*dst_len = inf->total_out;
	return 0;
}

const struct zcomp_ops backend_deflate = {
	.name		= "deflate",
	.setup		= deflate_setup,
	.ctx_create	= deflate_ctx_create,
	.ctx_destroy	= deflate_ctx_destroy,
	.compress	= deflate_compress,
	.decompress	= deflate_decompress,
};
