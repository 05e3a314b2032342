/* SPDX-License-Identifier: GPL-2.0-only */
/* zram device attributes (zram_sysfs.c), added with the disk. */
#ifndef _ZRAM_SYSFS_H_
#define _ZRAM_SYSFS_H_

#include <linux/sysfs.h>

extern const struct attribute_group *zram_disk_groups[];

#endif /* _ZRAM_SYSFS_H_ */
