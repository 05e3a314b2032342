/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/errno.h>. */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

/* The libc <errno.h> would include this file again: use the uapi one. */
#include <asm/errno.h>

#endif
