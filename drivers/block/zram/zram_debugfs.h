/* SPDX-License-Identifier: GPL-2.0-only */
/* debugfs block_state (ZRAM_MEMORY_TRACKING); writeback's: zram_wb_sysfs.c */
#ifndef _ZRAM_DEBUGFS_H_
#define _ZRAM_DEBUGFS_H_

struct zram;

#ifdef CONFIG_ZRAM_MEMORY_TRACKING
void zram_debugfs_create(void);
void zram_debugfs_destroy(void);
void zram_debugfs_register(struct zram *zram);
void zram_debugfs_unregister(struct zram *zram);
#else
static inline void zram_debugfs_create(void)
{
}

static inline void zram_debugfs_destroy(void)
{
}

static inline void zram_debugfs_register(struct zram *zram)
{
}

static inline void zram_debugfs_unregister(struct zram *zram)
{
}
#endif

#endif /* _ZRAM_DEBUGFS_H_ */
