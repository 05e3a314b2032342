/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the lz4 and lz4hc backends share: block decoding, dictionary window. */

#ifndef _ZRAM_BACKEND_LZ4_H_
#define _ZRAM_BACKEND_LZ4_H_

#include <linux/errno.h>
#include <linux/lz4.h>
#include <linux/minmax.h>
#include <linux/sizes.h>

#include "zcomp.h"

/* The farthest an lz4 match reaches back, and its shortest length. */
#define LZ4_DICT_WINDOW		SZ_64K
#define LZ4_DICT_MIN		4

/* The dictionary's last 64 KiB (*@size bytes), or NULL if too short */
static inline const char *lz4_dict_window(const struct zcomp_params *params,
					  int *size)
{
	size_t sz = min_t(size_t, params->dict_sz, LZ4_DICT_WINDOW);

	if (sz < LZ4_DICT_MIN)
		return NULL;
	*size = sz;
	return (const char *)params->dict + params->dict_sz - sz;
}

/* &zcomp_ops.decompress of lz4 and lz4hc; lz4 decodes without @ctx. */
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
