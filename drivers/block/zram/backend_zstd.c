// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zram backend: zstd (lib/zstd).
 *
 * level= is the zstd level: zstd_min_clevel() (negative, fastest) to
 * zstd_max_clevel() (22); the default is zstd_default_clevel() (3). The
 * library clamps values outside that range.
 *
 * Every stream has static compression and decompression contexts, sized
 * at creation for one page at the configured level, so the I/O path never
 * allocates. With dict=, setup digests the dictionary once into a
 * compression and a decompression dictionary that every stream uses by
 * reference (the dictionary contents stay in struct zcomp_params); a file
 * in zstd's dictionary format (zstd --train) is used with its entropy
 * tables, any other file as raw content.
 */

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/zstd.h>

#include "backends.h"

/**
 * struct zstd_shared - what all streams of a zstd compressor share
 * @params: frame and compression parameters for one page at the level,
 *	used without a dictionary
 * @cparams: compression parameters for one page at the level after the
 *	dictionary (without one: those of @params); the digested dictionary
 *	is built for them and the stream workspaces are sized for them
 * @cdict: digested compression dictionary, or NULL without dict=
 * @ddict: digested decompression dictionary, or NULL without dict=
 */
struct zstd_shared {
	zstd_parameters params;
	zstd_compression_parameters cparams;
	zstd_cdict *cdict;
	zstd_ddict *ddict;
};

/**
 * struct zstd_stream_ctx - one stream's contexts
 * @cctx: compression context, in @cwork
 * @dctx: decompression context, in @dwork
 * @cwork: static workspace of @cctx
 * @dwork: static workspace of @dctx
 */
struct zstd_stream_ctx {
	zstd_cctx *cctx;
	zstd_dctx *dctx;
	void *cwork;
	void *dwork;
};

/*
 * Allocator for the digested dictionaries. zstd calls it only while they
 * are created and freed, from zstd_setup() and zstd_release(): the stream
 * contexts are static and cannot allocate.
 */
static void *zstd_dict_alloc(void *opaque, size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

static void zstd_dict_free(void *opaque, void *address)
{
	kvfree(address);
}

/* allocate, free, opaque */
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

/**
 * zstd_setup() - resolve the level, digest the dictionary
 * @comp: compressor being created
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOMEM, or -EINVAL when zstd cannot digest the dictionary
 * (e.g. a file with zstd's dictionary magic and corrupt tables).
 */
static int zstd_setup(struct zcomp *comp)
{
	const struct zcomp_params *params = comp->params;
	struct zstd_shared *zs;

	if (comp->level == ZCOMP_LEVEL_DEFAULT)
		comp->level = zstd_default_clevel();
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
		/* zstd_free_[cd]dict() take NULL */
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

/**
 * zstd_ctx_create() - allocate one stream's static contexts
 * @comp: compressor, set up
 *
 * The compression workspace is sized for &zstd_shared.cparams, the
 * largest parameters compression uses, with the dictionary or without.
 *
 * Context: process context; may sleep.
 * Return: the context, or ERR_PTR(-ENOMEM).
 */
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
