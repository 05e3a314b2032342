/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The zram backends (backend_*.c, one per algorithm); only zcomp.c uses it. */

#ifndef _ZRAM_BACKENDS_H_
#define _ZRAM_BACKENDS_H_

#include "zcomp.h"

extern const struct zcomp_ops backend_lzorle;
extern const struct zcomp_ops backend_lzo;
extern const struct zcomp_ops backend_lz4;
extern const struct zcomp_ops backend_lz4hc;
extern const struct zcomp_ops backend_zstd;
extern const struct zcomp_ops backend_deflate;
extern const struct zcomp_ops backend_842;

#endif /* _ZRAM_BACKENDS_H_ */
