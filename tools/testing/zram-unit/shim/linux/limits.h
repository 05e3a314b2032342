/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/limits.h>. */
#ifndef _SHIM_LINUX_LIMITS_H
#define _SHIM_LINUX_LIMITS_H

#include <limits.h>

#endif
