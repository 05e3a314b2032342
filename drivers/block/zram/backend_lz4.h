/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the lz4 and lz4hc backends share: both write lz4 blocks, so they
 * decompress alike, and both use only the last 64 KiB of a dictionary, the
 * farthest an lz4 match can reach back.
 */

#ifndef _ZRAM_BACKEND_LZ4_H_
#define _ZRAM_BACKEND_LZ4_H_

#include <linux/errno.h>
#include <linux/lz4.h>
#include <linux/minmax.h>
#include <linux/sizes.h>

#include "zcomp.h"

#define LZ4_DICT_WINDOW		SZ_64K
/* Shorter dictionaries hold no match (lz4's minimum match is 4 bytes). */
#define LZ4_DICT_MIN		4

/**
 * lz4_dict_window() - the part of the dictionary lz4 uses
 * @params: parameters of the compressor
 * @size: out: size of the window in bytes
 *
 * Context: any context.
 * Return: the last min(dict_sz, 64 KiB) bytes of the dictionary, or NULL
 * when there is none or it is too short to hold a match (the compressor
 * then works without one).
 */
static inline const char *lz4_dict_window(const struct zcomp_params *params,
					  int *size)
{
	size_t sz = min_t(size_t, params->dict_sz, LZ4_DICT_WINDOW);

	if (sz < LZ4_DICT_MIN)
		return NULL;
	*size = sz;
	return (const char *)params->dict + params->dict_sz - sz;
}

/**
 * lz4_block_decompress() - decompress one lz4 block; the decompress
 *	operation of both the lz4 and the lz4hc backend
 * @comp: the compressor; with a dictionary (@comp->priv set) the block
 *	refers to its last 64 KiB
 * @ctx: per-CPU context (unused: lz4 decompresses without state)
 * @src: compressed block
 * @src_len: its size in bytes
 * @dst: output buffer
 * @dst_len: in: room at @dst in bytes; out: bytes decompressed
 *
 * Context: any context; never sleeps.
 * Return: 0, or -EIO when the block is corrupt or does not fit.
 */
static inline int lz4_block_decompress(const struct zcomp *comp, void *ctx,
				       const void *src, unsigned int src_len,
				       void *dst, unsigned int *dst_len)
{
	const char *dict = NULL;
	int dict_sz = 0;
	int ret;

	if (comp->priv)
		dict = lz4_dict_window(comp->params, &dict_sz);
	if (dict)
		ret = LZ4_decompress_safe_usingDict(src, dst, src_len, *dst_len,
						    dict, dict_sz);
	else
		ret = LZ4_decompress_safe(src, dst, src_len, *dst_len);
	if (ret < 0)
		return -EIO;
	*dst_len = ret;
	return 0;
}

#endif /* _ZRAM_BACKEND_LZ4_H_ */
