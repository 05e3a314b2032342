/* SPDX-License-Identifier: GPL-2.0-only */
/* zram bio path (zram_bio.c): reads, writes, discards, swap free notify. */
#ifndef _ZRAM_BIO_H_
#define _ZRAM_BIO_H_

struct bio;
struct block_device;

void zram_submit_bio(struct bio *bio);
void zram_slot_free_notify(struct block_device *bdev, unsigned long index);
int zram_bio_module_init(void);
void zram_bio_module_exit(void);

#endif /* _ZRAM_BIO_H_ */
