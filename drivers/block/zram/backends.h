/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The zram backends (backend_*.c, one per algorithm), for zcomp.c. */

#ifndef _ZRAM_BACKENDS_H_
#define _ZRAM_BACKENDS_H_

#include <linux/errno.h>

#include "zcomp.h"

extern const struct zcomp_ops backend_lzorle;
extern const struct zcomp_ops backend_lzo;
extern const struct zcomp_ops backend_lz4;
extern const struct zcomp_ops backend_lz4hc;
extern const struct zcomp_ops backend_zstd;
extern const struct zcomp_ops backend_deflate;
extern const struct zcomp_ops backend_842;

/* &zcomp_ops.setup of an algorithm without levels or dictionaries */
static inline int zcomp_setup_plain(struct zcomp *comp)
{
	if (comp->params->dict_sz || comp->level != ZCOMP_PARAM_DEFAULT)
		return -EOPNOTSUPP;
	return 0;
}

#endif /* _ZRAM_BACKENDS_H_ */
