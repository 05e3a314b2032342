/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/types.h>, enough for zram_extent.c. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#endif
