// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: zstd (lib/zstd). level= is zstd_min_clevel() to
 * zstd_max_clevel() (else -EINVAL at init), default zstd_default_clevel().
 * Stream contexts are static, sized for one page, so the I/O path never
 * allocates. dict= is digested once, by reference; a zstd --train file
 * brings its entropy tables.
 */

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/zstd.h>

#include "backends.h"

/* @cparams (one page, after the dictionary) size the cdict and workspaces */
struct zstd_shared {
	zstd_parameters params;
	zstd_compression_parameters cparams;
	zstd_cdict *cdict;
	zstd_ddict *ddict;
};

struct zstd_stream_ctx {
	zstd_cctx *cctx;
	zstd_dctx *dctx;
	void *cwork;
	void *dwork;
};

/* Only the digested dictionaries are allocated: stream contexts are static. */
static void *zstd_dict_alloc(void *opaque, size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

static void zstd_dict_free(void *opaque, void *address)
{
	kvfree(address);
}

static const zstd_custom_mem zstd_dict_mem = {
	zstd_dict_alloc, zstd_dict_free, NULL
};

static void zstd_release(struct zcomp *comp)
{
	struct zstd_shared *zs = comp->priv;

	if (!zs)
		return;
	zstd_free_ddict(zs->ddict);
	zstd_free_cdict(zs->cdict);
	kfree(zs);
	comp->priv = NULL;
}

static int zstd_setup(struct zcomp *comp)
{
	const struct zcomp_params *params = comp->params;
	struct zstd_shared *zs;

	if (comp->level == ZCOMP_PARAM_DEFAULT)
		comp->level = zstd_default_clevel();
	if (comp->level < zstd_min_clevel() || comp->level > zstd_max_clevel())
		return -EINVAL;
	zs = kzalloc_obj(*zs);
	if (!zs)
		return -ENOMEM;
	comp->priv = zs;
	zs->params = zstd_get_params(comp->level, PAGE_SIZE);
	zs->cparams = zstd_get_cparams(comp->level, PAGE_SIZE, params->dict_sz);
	if (!params->dict_sz)
		return 0;

	zs->cdict = zstd_create_cdict_byreference(params->dict,
						  params->dict_sz, zs->cparams,
						  zstd_dict_mem);
	zs->ddict = zstd_create_ddict_byreference(params->dict,
						  params->dict_sz,
						  zstd_dict_mem);
	if (!zs->cdict || !zs->ddict) {
		zstd_release(comp);
		return -EINVAL;
	}
	return 0;
}

static void zstd_ctx_destroy(void *ctx)
{
	struct zstd_stream_ctx *zc = ctx;

	kvfree(zc->dwork);
	kvfree(zc->cwork);
	kfree(zc);
}

static void *zstd_ctx_create(const struct zcomp *comp)
{
	const struct zstd_shared *zs = comp->priv;
	struct zstd_stream_ctx *zc;
	size_t csz, dsz;

	zc = kzalloc_obj(*zc);
	if (!zc)
		return ERR_PTR(-ENOMEM);
	csz = zstd_cctx_workspace_bound(&zs->cparams);
	dsz = zstd_dctx_workspace_bound();
	zc->cwork = kvzalloc(csz, GFP_KERNEL);
	zc->dwork = kvzalloc(dsz, GFP_KERNEL);
	if (!zc->cwork || !zc->dwork)
		goto out_destroy;
	zc->cctx = zstd_init_cctx(zc->cwork, csz);
	zc->dctx = zstd_init_dctx(zc->dwork, dsz);
	if (!zc->cctx || !zc->dctx)
		goto out_destroy;
	return zc;

out_destroy:
	zstd_ctx_destroy(zc);
	return ERR_PTR(-ENOMEM);
}

static int zstd_compress(const struct zcomp *comp, void *ctx, const void *src,
			 unsigned int src_len, void *dst,
			 unsigned int *dst_len)
{
	const struct zstd_shared *zs = comp->priv;
	struct zstd_stream_ctx *zc = ctx;
	size_t ret;

	if (zs->cdict)
		ret = zstd_compress_using_cdict(zc->cctx, dst, *dst_len, src,
						src_len, zs->cdict);
	else
		ret = zstd_compress_cctx(zc->cctx, dst, *dst_len, src, src_len,
					 &zs->params);
	if (zstd_is_error(ret))
		return -EIO;
	*dst_len = ret;
	return 0;
}

static int zstd_decompress(const struct zcomp *comp, void *ctx,
			   const void *src, unsigned int src_len, void *dst,
			   unsigned int *dst_len)
{
	const struct zstd_shared *zs = comp->priv;
	struct zstd_stream_ctx *zc = ctx;
	size_t ret;

	if (zs->ddict)
		ret = zstd_decompress_using_ddict(zc->dctx, dst, *dst_len, src,
						  src_len, zs->ddict);
	else
		ret = zstd_decompress_dctx(zc->dctx, dst, *dst_len, src,
					   src_len);
	if (zstd_is_error(ret))
		return -EIO;
	*dst_len = ret;
	return 0;
}

const struct zcomp_ops backend_zstd = {
	.name		= "zstd",
	.setup		= zstd_setup,
	.release	= zstd_release,
	.ctx_create	= zstd_ctx_create,
	.ctx_destroy	= zstd_ctx_destroy,
	.compress	= zstd_compress,
	.decompress	= zstd_decompress,
};
