/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel's min(): both operands one type. */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define min(a, b)							\
	({								\
		__typeof__(a) _a = (a);					\
		__typeof__(b) _b = (b);					\
		(void)(&_a == &_b);					\
		_a < _b ? _a : _b;					\
	})

#endif
