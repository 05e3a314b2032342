// SPDX-License-Identifier: GPL-2.0
/*
 * User-space tests for drivers/block/zram/zram_extent.c: table-driven
 * fixed cases, then randomized reserve/release sequences checked against
 * a bool-array reference model.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>

#include "zram_extent.h"
#include <linux/bitmap.h>

static unsigned int passed, failed;
unsigned long shim_words_read;

#define CHECK(cond, fmt, ...)						\
	do {								\
		if (cond) {						\
			passed++;					\
		} else {						\
			failed++;					\
			printf("FAIL %s:%d: " fmt "\n", __func__,	\
			       __LINE__, ##__VA_ARGS__);		\
		}							\
	} while (0)

#define MAX_RANGES	4
#define ALL		(~0UL)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct range {
	unsigned long start;
	unsigned long len;	/* ALL: up to the end */
};

/* Initial bitmap: all free, then @used ranges set, or every other block. */
struct fixed_case {
	const char *name;
	unsigned long nr;
	struct range used[MAX_RANGES];
	int alternating;	/* even blocks used */
	unsigned long cursor;
	unsigned int max_len;
	int ret;		/* expected length or -errno */
	unsigned long start;	/* expected first block (ret > 0) */
	unsigned long cursor_after;
};

/*
 * Deferred frees: @used blocks in use, of which @pending were freed and
 * @staged already taken. Staging moves pending to staged (@nr_staged new
 * ones); releasing then frees every staged block (@nr_released).
 */
struct stage_case {
	const char *name;
	unsigned long nr;
	struct range used[MAX_RANGES];
	struct range pending[MAX_RANGES];
	struct range staged[MAX_RANGES];
	unsigned long nr_staged;
	unsigned long nr_released;
};

static const struct stage_case stage_cases[] = {
	/* name, nr, used, pending, staged -> newly staged, released */
	{ "nothing", 128, { { 0, 1 } }, { }, { },
		0, 0 },
	{ "one pending", 128, { { 0, 10 } }, { { 5, 1 } }, { },
		1, 1 },
	{ "last block", 130, { { 0, ALL } }, { { 129, 1 } }, { },
		1, 1 },
	{ "cross words", 256, { { 0, ALL } }, { { 60, 10 }, { 190, 3 } }, { },
		13, 13 },
	{ "all pending", 100, { { 0, ALL } }, { { 1, ALL } }, { },
		99, 99 },
	{ "staged only", 128, { { 0, 64 } }, { }, { { 3, 4 } },
		0, 4 },
	{ "both", 128, { { 0, 64 } }, { { 3, 7 } }, { { 10, 10 } },
		7, 17 },
	{ "one block map", 1, { { 0, 1 } }, { { 0, 1 } }, { },
		1, 1 },
};

#define W ZRAM_EXTENT_WINDOW

static const struct fixed_case fixed_cases[] = {
	/* name, nr, used ranges, alternating,
	 *	cursor, max_len -> ret, start, cursor after
	 */
	{ "empty", 128, { }, 0,
		0, 32,	32, 0, 32 },
	{ "empty, max 1", 128, { }, 0,
		5, 1,	1, 5, 6 },
	{ "full", 128, { { 0, ALL } }, 0,
		0, 32,	-ENOSPC, 0, 0 },
	{ "full, cursor mid", 128, { { 0, ALL } }, 0,
		77, 32,	-ENOSPC, 0, 77 },
	{ "one used block", 1, { { 0, 1 } }, 0,
		0, 32,	-ENOSPC, 0, 0 },
	{ "max_len 0", 128, { }, 0,
		0, 0,	-EINVAL, 0, 0 },
	{ "alternating", 128, { }, 1,
		0, 32,	1, 1, 2 },
	{ "alternating, mid", 128, { }, 1,
		64, 32,	1, 65, 66 },
	{ "last block free", 100, { { 0, 99 } }, 0,
		0, 32,	1, 99, 0 },
	{ "last, cursor", 100, { { 0, 99 } }, 0,
		99, 32,	1, 99, 0 },
	{ "cross word", 256, { { 0, 60 }, { 70, ALL } }, 0,
		0, 32,	10, 60, 70 },
	{ "cross 2 words", 256, { { 0, 60 }, { 200, ALL } }, 0,
		0, 64,	64, 60, 124 },
	{ "clamp to max", 1000, { }, 0,
		0, 64,	64, 0, 64 },
	{ "run to end", 130, { { 0, 100 } }, 0,
		0, 64,	30, 100, 0 },
	{ "cursor wrap", 128, { { 64, ALL } }, 0,
		100, 32,	32, 0, 32 },
	{ "cursor past end", 128, { }, 0,
		500, 16,	16, 0, 16 },
	{ "longest short", 128, { { 0, 10 }, { 13, 7 }, { 25, 15 }, { 44, ALL } }, 0,
		0, 8,	5, 20, 25 },
	{ "full beats short", 256, { { 0, 10 }, { 13, 87 } }, 0,
		0, 32,	32, 100, 132 },
	{ "run spans cursor", 128, { { 0, 50 }, { 80, ALL } }, 0,
		60, 32,	30, 50, 80 },
	{ "window bound", 4096, { { 0, 10 }, { 12, W + 100 } }, 0,
		0, 32,	2, 10, 12 },
	{ "inside window", 4096, { { 0, 10 }, { 12, W - 100 } }, 0,
		0, 32,	32, W - 88, W - 56 },
	{ "block 0 only", 64, { { 1, ALL } }, 0,
		10, 32,	1, 0, 1 },
};

static unsigned long *bitmap_new(unsigned long nr)
{
	unsigned long *map = calloc(BITS_TO_LONGS(nr) + 1, sizeof(long));

	if (!map) {
		perror("calloc");
		exit(2);
	}
	return map;
}

static void fill_case(unsigned long *map, const struct fixed_case *c)
{
	unsigned long i, end;
	int r;

	for (i = 0; c->alternating && i < c->nr; i += 2)
		set_bit(i, map);
	for (r = 0; r < MAX_RANGES && (c->used[r].len || c->used[r].start); r++) {
		end = c->used[r].len == ALL ? c->nr :
		      c->used[r].start + c->used[r].len;
		for (i = c->used[r].start; i < end; i++)
			set_bit(i, map);
	}
}

static void run_fixed_case(const struct fixed_case *c)
{
	unsigned long *map = bitmap_new(c->nr);
	unsigned long *before = bitmap_new(c->nr);
	struct zram_extent_cursor cursor = { .next = c->cursor };
	unsigned long start = ~0UL, i;
	int ret;

	fill_case(map, c);
	memcpy(before, map, BITS_TO_LONGS(c->nr) * sizeof(long));
	ret = zram_extent_reserve(map, c->nr, &cursor, c->max_len, &start);
	CHECK(ret == c->ret, "%s: ret %d, want %d", c->name, ret, c->ret);
	if (ret > 0 && ret == c->ret) {
		CHECK(start == c->start, "%s: start %lu, want %lu",
		      c->name, start, c->start);
		CHECK(cursor.next == c->cursor_after,
		      "%s: cursor %lu, want %lu", c->name, cursor.next,
		      c->cursor_after);
		for (i = start; i < start + ret; i++)
			CHECK(test_bit(i, map) && !test_bit(i, before),
			      "%s: block %lu not claimed", c->name, i);
		zram_extent_release(map, start, ret);
	} else if (ret < 0) {
		CHECK(cursor.next == c->cursor, "%s: cursor moved on error",
		      c->name);
	}
	CHECK(!memcmp(before, map, BITS_TO_LONGS(c->nr) * sizeof(long)),
	      "%s: bitmap not restored by release", c->name);
	free(before);
	free(map);
}

/*
 * The run-count bound. Every other block used: the runs are the odd
 * blocks, run i (from 1) is block 2i - 1. Freeing block 2K (K =
 * ZRAM_EXTENT_MAX_RUNS) when @longer_in makes run K (2K - 1 to 2K + 1) 3
 * blocks long, the longest of the first K runs. Freeing 2K + 4 and 2K + 6
 * makes run K + 1 (2K + 3 to 2K + 7) 5 blocks long: well within the window
 * but past the bound, so never looked at. The reservation takes run K, or
 * run 1 without @longer_in.
 */
static void run_bound_case(bool longer_in)
{
	const unsigned long k = ZRAM_EXTENT_MAX_RUNS, nr = 4 * k + 64;
	unsigned long *map = bitmap_new(nr);
	struct zram_extent_cursor cursor = { };
	unsigned long start = ~0UL, i;
	unsigned long want_start = longer_in ? 2 * k - 1 : 1;
	/* Run K, the last one looked at, ends there. */
	unsigned long want_end = longer_in ? 2 * k + 2 : 2 * k;
	int want = longer_in ? 3 : 1;
	int ret;

	for (i = 0; i < nr; i += 2)
		set_bit(i, map);
	if (longer_in)
		clear_bit(2 * k, map);
	clear_bit(2 * k + 4, map);
	clear_bit(2 * k + 6, map);
	ret = zram_extent_reserve(map, nr, &cursor, 32, &start);
	CHECK(ret == want && start == want_start &&
	      cursor.next == want_start + want,
	      "run bound (longer_in %d): ret %d start %lu cursor %lu, want %d %lu %lu",
	      longer_in, ret, start, cursor.next, want, want_start,
	      want_start + want);
	/* The K runs looked at were all short: the short region ends there. */
	CHECK(cursor.short_start == 0 && cursor.short_end == want_end,
	      "run bound (longer_in %d): short region %lu-%lu, want 0-%lu",
	      longer_in, cursor.short_start, cursor.short_end, want_end);
	free(map);
}

/* Reserves expecting @want blocks at @want_start; tags failures with @what. */
static void expect_reserve(unsigned long *map, unsigned long nr,
			   struct zram_extent_cursor *cur, const char *what,
			   int want, unsigned long want_start)
{
	unsigned long start = ~0UL;
	int ret;

	ret = zram_extent_reserve(map, nr, cur, 32, &start);
	CHECK(ret == want && start == want_start,
	      "%s: ret %d start %lu, want %d %lu", what, ret,
	      start, want, want_start);
}

/*
 * The short region on an every-other-block bitmap (runs are the odd
 * blocks). The first search looks at ZRAM_EXTENT_MAX_RUNS runs, takes
 * block 1 and leaves the region 0 to 2K. Inside it the first free run is
 * taken even where a release made a longer one; after
 * zram_extent_forget_short() the full search finds the longer one again.
 * A region used up by others sends the reservation to a full search.
 */
static void run_short_region_case(void)
{
	const unsigned long k = ZRAM_EXTENT_MAX_RUNS, nr = 8 * k;
	struct zram_extent_cursor cur = { };
	unsigned long *map = bitmap_new(nr), i;

	for (i = 0; i < nr; i += 2)
		set_bit(i, map);
	expect_reserve(map, nr, &cur, "short region, first search", 1, 1);
	CHECK(cur.short_start == 0 && cur.short_end == 2 * k,
	      "short region after first search: %lu-%lu, want 0-%lu",
	      cur.short_start, cur.short_end, 2 * k);
	/* Block 2K - 4 released: run 2K - 5 to 2K - 3 is 3 blocks long. */
	clear_bit(2 * k - 4, map);
	expect_reserve(map, nr, &cur, "short region, inside", 1, 3);
	zram_extent_forget_short(&cur);
	expect_reserve(map, nr, &cur, "short region, forgotten", 3, 2 * k - 5);
	/*
	 * That search went from block 4 over K runs (3 of them 1 block long,
	 * 2K - 5 3 blocks long, then 4 more 1 block long): region 4 to
	 * 2K + 6. The odd blocks left in it are used by others.
	 */
	CHECK(cur.short_start == 4 && cur.short_end == 2 * k + 6,
	      "short region after forgotten: %lu-%lu, want 4-%lu",
	      cur.short_start, cur.short_end, 2 * k + 6);
	for (i = 2 * k - 1; i < 2 * k + 6; i += 2)
		set_bit(i, map);
	expect_reserve(map, nr, &cur, "short region, used up", 1, 2 * k + 7);
	CHECK(cur.short_start == 2 * k - 2,
	      "short region after used up: starts at %lu, want %lu",
	      cur.short_start, 2 * k - 2);
	free(map);
}

/*
 * zram_extent_reserve_at() takes a free block and only that one: not a
 * used block, not one past the end; the cursor moves past the block only
 * when it pointed at it, to 0 past the end.
 */
static void run_reserve_at_case(void)
{
	const unsigned long nr = 130;
	struct zram_extent_cursor cur = { .next = 7 };
	unsigned long *map = bitmap_new(nr);
	unsigned long i, used = 0;

	set_bit(64, map);
	CHECK(zram_extent_reserve_at(map, nr, &cur, 63) && test_bit(63, map),
	      "reserve_at: free block 63 not taken");
	CHECK(!zram_extent_reserve_at(map, nr, &cur, 63),
	      "reserve_at: block 63 taken twice");
	CHECK(!zram_extent_reserve_at(map, nr, &cur, 64),
	      "reserve_at: used block 64 taken");
	CHECK(!zram_extent_reserve_at(map, nr, &cur, nr) &&
	      !zram_extent_reserve_at(map, nr, &cur, ~0UL),
	      "reserve_at: a block past the end taken");
	CHECK(cur.next == 7, "reserve_at: cursor %lu, want 7", cur.next);
	CHECK(zram_extent_reserve_at(map, nr, &cur, 7) && cur.next == 8,
	      "reserve_at: the cursor's block: cursor %lu, want 8", cur.next);
	cur.next = nr - 1;
	CHECK(zram_extent_reserve_at(map, nr, &cur, nr - 1) && cur.next == 0,
	      "reserve_at: the last block: cursor %lu, want 0", cur.next);
	for (i = 0; i < nr; i++)
		used += test_bit(i, map);
	CHECK(used == 4, "reserve_at: %lu blocks in use, want 4", used);
	free(map);
}

/*
 * zram_extent_unreserve() frees the blocks and moves the cursor back to
 * them when only blocks in use lie between them and it (a cursor at 0 is
 * past a run that ended the device), so that the next reservation takes
 * them again; else the cursor stays.
 */
static void run_unreserve_case(void)
{
	const unsigned long nr = 128;
	struct zram_extent_cursor cur = { };
	unsigned long *map = bitmap_new(nr);
	unsigned long start = ~0UL;

	CHECK(zram_extent_reserve(map, nr, &cur, 32, &start) == 32 &&
	      start == 0 && cur.next == 32, "unreserve: first reservation");
	zram_extent_unreserve(map, nr, &cur, 20, 12);
	CHECK(cur.next == 20 && !test_bit(20, map) && !test_bit(31, map) &&
	      test_bit(19, map), "unreserve: cursor %lu, want 20", cur.next);
	expect_reserve(map, nr, &cur, "unreserve: taken again", 32, 20);
	/* blocks 44-51 in use, then the cursor at 52: it goes back to 40 */
	zram_extent_unreserve(map, nr, &cur, 40, 4);
	CHECK(cur.next == 40 && !test_bit(40, map) && test_bit(44, map),
	      "unreserve: in use up to the cursor: cursor %lu, want 40",
	      cur.next);
	CHECK(zram_extent_reserve(map, nr, &cur, 4, &start) == 4 && start == 40,
	      "unreserve: 4 blocks after it: at %lu, want 40", start);
	/* a free block (48) between them and the cursor: it stays */
	zram_extent_release(map, 48, 1);
	cur.next = 52;
	zram_extent_unreserve(map, nr, &cur, 40, 4);
	CHECK(cur.next == 52 && !test_bit(40, map),
	      "unreserve: a free block before the cursor: cursor %lu, want 52",
	      cur.next);
	/* an extent, its cursor block taken by reserve_at, its tail back */
	cur.next = 64;
	CHECK(zram_extent_reserve(map, nr, &cur, 8, &start) == 8 &&
	      start == 64 && zram_extent_reserve_at(map, nr, &cur, 72) &&
	      cur.next == 73, "unreserve: extent and reserve_at");
	zram_extent_unreserve(map, nr, &cur, 68, 4);
	CHECK(cur.next == 68, "unreserve: behind a reserve_at: cursor %lu, want 68",
	      cur.next);
	cur.next = 96;
	CHECK(zram_extent_reserve(map, nr, &cur, 32, &start) == 32 &&
	      start == 96 && cur.next == 0, "unreserve: reservation to the end");
	zram_extent_unreserve(map, nr, &cur, 100, 28);
	CHECK(cur.next == 100, "unreserve: run to the end: cursor %lu, want 100",
	      cur.next);
	zram_extent_unreserve(map, nr, &cur, 5, 0);
	CHECK(cur.next == 100 && test_bit(5, map),
	      "unreserve: 0 blocks changed something");
	free(map);

	/* more than ZRAM_EXTENT_WINDOW blocks in use up to the cursor: it stays */
	map = bitmap_new(4 * ZRAM_EXTENT_WINDOW);
	for (start = 0; start < 2 * ZRAM_EXTENT_WINDOW; start++)
		set_bit(start, map);
	cur.next = 2 * ZRAM_EXTENT_WINDOW;
	zram_extent_unreserve(map, 4 * ZRAM_EXTENT_WINDOW, &cur, 10, 5);
	CHECK(cur.next == 2 * ZRAM_EXTENT_WINDOW && !test_bit(10, map),
	      "unreserve: far cursor: %lu, want %lu", cur.next,
	      2 * ZRAM_EXTENT_WINDOW);
	free(map);
}

/*
 * A reservation reads the bitmap in proportion to what it reserves, not to
 * the free space around it: on a fresh 64 GiB device (2^24 blocks), a run
 * of 32 blocks found by a full search, and one found in a short region
 * whose free run goes on to the end of the device.
 */
static void run_cost_case(void)
{
	const unsigned long nr = 1UL << 24, k = ZRAM_EXTENT_MAX_RUNS;
	struct zram_extent_cursor cur = { };
	unsigned long *map = bitmap_new(nr), i;

	set_bit(0, map);
	shim_words_read = 0;
	expect_reserve(map, nr, &cur, "fresh 2^24 blocks", 32, 1);
	CHECK(shim_words_read <= 8,
	      "fresh 2^24 blocks: %lu bitmap words read, want at most 8",
	      shim_words_read);
	free(map);

	/* Single free blocks 1, 3, ..: the search makes 0 to 2K short. */
	map = bitmap_new(nr);
	cur = (struct zram_extent_cursor){ };
	for (i = 0; i < 2 * k + 4; i += 2)
		set_bit(i, map);
	expect_reserve(map, nr, &cur, "singles", 1, 1);
	CHECK(cur.short_start == 0 && cur.short_end == 2 * k,
	      "singles: short region %lu-%lu, want 0-%lu",
	      cur.short_start, cur.short_end, 2 * k);
	/* Block 2K - 1 of the short region now starts a run to the end. */
	clear_bit(2 * k, map);
	clear_bit(2 * k + 2, map);
	cur.next = 2 * k - 1;
	shim_words_read = 0;
	expect_reserve(map, nr, &cur, "short region into the free rest", 32,
		       2 * k - 1);
	CHECK(shim_words_read <= 8,
	      "short region on 2^24 blocks: %lu bitmap words read, want at most 8",
	      shim_words_read);
	free(map);
}

static void fill_ranges(unsigned long *map, unsigned long nr,
			const struct range *ranges)
{
	unsigned long i, end;
	int r;

	for (r = 0; r < MAX_RANGES && (ranges[r].len || ranges[r].start); r++) {
		end = ranges[r].len == ALL ? nr : ranges[r].start + ranges[r].len;
		for (i = ranges[r].start; i < end; i++)
			set_bit(i, map);
	}
}

/* Sets in @map the blocks @staged holds. */
static void staged_bitmap(const struct zram_extent_staged *staged,
			  unsigned long *map, unsigned long nr)
{
	unsigned long i, bit;

	memset(map, 0, BITS_TO_LONGS(nr) * sizeof(long));
	for (i = 0; i < staged->nr; i++)
		for (bit = 0; bit < BITS_PER_LONG; bit++)
			if (staged->bits[i] & (1UL << bit))
				set_bit(staged->word[i] * BITS_PER_LONG + bit,
					map);
}

/* Stages every pending block of @pending; the staging must not fill. */
static unsigned long stage_all(unsigned long *pending, unsigned long nr,
			       struct zram_extent_staged *staged)
{
	unsigned long from = 0, n;

	n = zram_extent_stage_frees(pending, nr, &from, staged);
	CHECK(from == nr, "staging stopped at %lu of %lu", from, nr);
	return n;
}

static void run_stage_case(const struct stage_case *c)
{
	unsigned long *map = bitmap_new(c->nr);
	unsigned long *pending = bitmap_new(c->nr);
	unsigned long *staged = bitmap_new(c->nr);
	unsigned long *want = bitmap_new(c->nr);
	unsigned long *freed = bitmap_new(c->nr);
	struct zram_extent_staged st = { 0 };
	unsigned long n, i;
	unsigned int bad = 0;

	fill_ranges(map, c->nr, c->used);
	/* the staged ones were pending before */
	fill_ranges(staged, c->nr, c->staged);
	stage_all(staged, c->nr, &st);
	fill_ranges(pending, c->nr, c->pending);
	fill_ranges(freed, c->nr, c->pending);
	fill_ranges(freed, c->nr, c->staged);
	memcpy(want, map, BITS_TO_LONGS(c->nr) * sizeof(long));

	n = stage_all(pending, c->nr, &st);
	CHECK(n == c->nr_staged, "%s: staged %lu, want %lu", c->name, n,
	      c->nr_staged);
	staged_bitmap(&st, staged, c->nr);
	for (i = 0; i < c->nr; i++)
		if (test_bit(i, pending) ||
		    test_bit(i, staged) != test_bit(i, freed) ||
		    test_bit(i, map) != test_bit(i, want))
			bad++;
	CHECK(!bad, "%s: %u blocks wrong after staging", c->name, bad);

	n = zram_extent_release_staged(map, &st);
	CHECK(n == c->nr_released, "%s: released %lu, want %lu", c->name, n,
	      c->nr_released);
	CHECK(!st.nr, "%s: %lu entries left after release", c->name, st.nr);
	for (i = 0; i < c->nr; i++)
		if (test_bit(i, map) != (test_bit(i, want) &&
					 !test_bit(i, freed)))
			bad++;
	CHECK(!bad, "%s: %u blocks wrong after release", c->name, bad);
	free(freed);
	free(want);
	free(staged);
	free(pending);
	free(map);
}

/*
 * Frees in more words than one staging takes: it stops after
 * ZRAM_EXTENT_STAGED_WORDS words, at the next pending block, and the next
 * one goes on from there; together they take every block once.
 */
static void run_stage_full_case(void)
{
	unsigned long nr = (ZRAM_EXTENT_STAGED_WORDS + 3) * 2 * BITS_PER_LONG;
	unsigned long *map = bitmap_new(nr);
	unsigned long *pending = bitmap_new(nr);
	struct zram_extent_staged st = { 0 };
	unsigned long from = 0, n, total = 0, rounds = 0, i, want = 0;

	/* two blocks in every other word */
	for (i = 0; i < nr; i += 2 * BITS_PER_LONG) {
		set_bit(i + 3, pending);
		set_bit(i + 40, pending);
		want += 2;
	}
	memset(map, 0xff, BITS_TO_LONGS(nr) * sizeof(long));
	while (from < nr && rounds < 4) {
		n = zram_extent_stage_frees(pending, nr, &from, &st);
		CHECK(st.nr <= ZRAM_EXTENT_STAGED_WORDS,
		      "full: %lu entries", st.nr);
		if (!rounds)
			CHECK(n == 2 * ZRAM_EXTENT_STAGED_WORDS &&
			      from == ZRAM_EXTENT_STAGED_WORDS * 2 *
				      BITS_PER_LONG + 3,
			      "full: first staging took %lu, stopped at %lu",
			      n, from);
		CHECK(zram_extent_release_staged(map, &st) == n,
		      "full: released other than staged");
		total += n;
		rounds++;
	}
	CHECK(total == want && rounds == 2,
	      "full: %lu of %lu blocks in %lu stagings", total, want, rounds);
	for (i = 0; i < nr; i++)
		if (test_bit(i, pending) ||
		    test_bit(i, map) == (i % (2 * BITS_PER_LONG) == 3 ||
					 i % (2 * BITS_PER_LONG) == 40))
			break;
	CHECK(i == nr, "full: block %lu wrong after the releases", i);
	free(pending);
	free(map);
}

/*
 * Reference model: the allocator's contract restated one block at a time
 * over a bool array. Runs are visited in next-fit order from the cursor;
 * the first run of @max_len wins, else the longest among the first
 * ZRAM_EXTENT_MAX_RUNS runs that start within ZRAM_EXTENT_WINDOW blocks of
 * the first free block seen. A search stopped by one of those bounds
 * before wrapping leaves a short region behind, from where it started to
 * the end of the last run it looked at; a reservation starting inside
 * takes the first free run found before the region's end.
 */
struct model {
	unsigned long nr;
	bool *used;
	bool *pending;	/* freed, still used until staged and released */
	bool *staged;
	unsigned long cursor;
	unsigned long short_start, short_end;
};

/* Frees a used, not yet freed block the deferred way. */
static void model_defer_free(struct model *m, unsigned long *pending,
			     unsigned long b)
{
	if (!m->used[b] || m->pending[b] || m->staged[b])
		return;
	m->pending[b] = true;
	set_bit(b, pending);
}

static unsigned long model_stage(struct model *m)
{
	unsigned long i, n = 0;

	for (i = 0; i < m->nr; i++) {
		if (m->pending[i]) {
			m->pending[i] = false;
			m->staged[i] = true;
			n++;
		}
	}
	return n;
}

static unsigned long model_release_staged(struct model *m)
{
	unsigned long i, n = 0;

	for (i = 0; i < m->nr; i++) {
		if (m->staged[i]) {
			m->staged[i] = false;
			m->used[i] = false;
			n++;
		}
	}
	return n;
}

static unsigned long model_run_len(const struct model *m, unsigned long p)
{
	unsigned long e = p;

	while (e < m->nr && !m->used[e])
		e++;
	return e - p;
}

/* First free block in [from, short_end), or ~0UL: the short path. */
static unsigned long model_first_short(const struct model *m,
				       unsigned long from)
{
	unsigned long p;

	if (from < m->short_start || from >= m->short_end)
		return ~0UL;
	for (p = from; p < m->short_end; p++)
		if (!m->used[p])
			return p;
	return ~0UL;
}

/* The full search; sets the short region. Returns the run, or len 0. */
static unsigned long model_search(struct model *m, unsigned long from,
				  unsigned int max_len, unsigned long *best)
{
	unsigned long best_len = 0, deadline = ~0UL, last_end = from;
	unsigned long k, p, lo, len, runs = 0;
	bool bounded = false;

	*best = 0;
	for (k = 0; k < m->nr; k++) {
		p = (from + k) % m->nr;
		lo = p >= from ? from : 0;
		if (m->used[p] || (p != lo && !m->used[p - 1]))
			continue;
		if (k > deadline) {
			bounded = p >= from;
			break;
		}
		len = model_run_len(m, p);
		if (len > best_len) {
			*best = p;
			best_len = len;
			if (best_len >= max_len)
				break;
		}
		last_end = p + len;
		if (++runs >= ZRAM_EXTENT_MAX_RUNS) {
			bounded = p >= from;
			break;
		}
		if (deadline == ~0UL)
			deadline = k + ZRAM_EXTENT_WINDOW;
	}
	m->short_start = from;
	m->short_end = bounded ? last_end : 0;
	return best_len;
}

static int model_reserve(struct model *m, unsigned int max_len,
			 unsigned long *start)
{
	unsigned long from = m->cursor < m->nr ? m->cursor : 0;
	unsigned long best, best_len, k;

	if (!max_len)
		return -EINVAL;
	best = model_first_short(m, from);
	if (best != ~0UL)
		best_len = model_run_len(m, best);
	else
		best_len = model_search(m, from, max_len, &best);
	if (!best_len)
		return -ENOSPC;
	if (best_len > max_len)
		best_len = max_len;
	for (k = best; k < best + best_len; k++)
		m->used[k] = true;
	*start = best;
	m->cursor = best + best_len < m->nr ? best + best_len : 0;
	return best_len;
}

static bool model_matches(const struct model *m, const unsigned long *map,
			  const unsigned long *pending,
			  const struct zram_extent_staged *st)
{
	unsigned long *staged = bitmap_new(m->nr);
	unsigned long i;

	staged_bitmap(st, staged, m->nr);
	for (i = 0; i < m->nr; i++)
		if (m->used[i] != test_bit(i, map) ||
		    m->pending[i] != test_bit(i, pending) ||
		    m->staged[i] != test_bit(i, staged))
			break;
	free(staged);
	return i == m->nr;
}

/* Small deterministic PRNG (xorshift64*), so seeds reproduce anywhere. */
static unsigned long long rng_state;

static unsigned long rnd(unsigned long n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL >> 11) % n;
}

static void run_random(unsigned long long seed, unsigned int ops)
{
	struct model m;
	struct zram_extent_cursor cursor = { };
	struct zram_extent_staged st = { 0 };
	unsigned long *map, *pending, i, start, mstart, from;
	unsigned int op, max_len, density, r;
	unsigned int bad = 0;
	int ret, mret;

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	m.nr = 1 + rnd(rnd(4) ? 2048 : 40);
	m.used = calloc(m.nr, sizeof(bool));
	m.pending = calloc(m.nr, sizeof(bool));
	m.staged = calloc(m.nr, sizeof(bool));
	m.cursor = 0;
	m.short_start = 0;
	m.short_end = 0;
	map = bitmap_new(m.nr);
	pending = bitmap_new(m.nr);
	density = rnd(100);
	for (i = 0; i < m.nr; i++) {
		if (rnd(100) < density) {
			m.used[i] = true;
			set_bit(i, map);
		}
	}

	for (op = 0; op < ops && !bad; op++) {
		r = rnd(100);
		if (r < 50) {
			max_len = rnd(10) ? 1 + rnd(64) : rnd(3);
			ret = zram_extent_reserve(map, m.nr, &cursor, max_len,
						  &start);
			mret = model_reserve(&m, max_len, &mstart);
			if (ret != mret || (ret > 0 && start != mstart) ||
			    (ret > 0 && cursor.next != m.cursor) ||
			    cursor.short_start != m.short_start ||
			    cursor.short_end != m.short_end)
				bad++;
		} else if (r < 64) {
			i = rnd(m.nr);
			if (m.used[i] && !m.pending[i] && !m.staged[i]) {
				m.used[i] = false;
				zram_extent_release(map, i, 1);
			}
		} else if (r < 84) {
			model_defer_free(&m, pending, rnd(m.nr));
		} else if (r < 90) {
			/* as the model stages all, never a full staging */
			from = 0;
			if (st.nr + BITS_TO_LONGS(m.nr) <=
			    ZRAM_EXTENT_STAGED_WORDS &&
			    zram_extent_stage_frees(pending, m.nr, &from,
						    &st) != model_stage(&m))
				bad++;
		} else if (r < 95) {
			if (zram_extent_release_staged(map, &st) !=
			    model_release_staged(&m))
				bad++;
			/* As zram's harvest does after a release. */
			if (rnd(2)) {
				zram_extent_forget_short(&cursor);
				m.short_start = 0;
				m.short_end = 0;
			}
		} else {
			start = rnd(m.nr);
			max_len = 1 + rnd(m.nr - start < 64 ? m.nr - start : 64);
			for (i = start; i < start + max_len; i++) {
				if (m.pending[i] || m.staged[i])
					continue;
				m.used[i] = false;
				zram_extent_release(map, i, 1);
			}
		}
		if ((op & 15) == 0 && !model_matches(&m, map, pending, &st))
			bad++;
	}
	if (!model_matches(&m, map, pending, &st))
		bad++;
	CHECK(!bad, "seed %llu (nr %lu): diverged from model at op %u",
	      seed, m.nr, op);
	free(pending);
	free(map);
	free(m.staged);
	free(m.pending);
	free(m.used);
}

/* Fill a bitmap completely one extent at a time; nothing free is lost. */
static void run_fill(unsigned long nr, unsigned int max_len)
{
	unsigned long *map = bitmap_new(nr);
	struct zram_extent_cursor cursor = { };
	unsigned long start, total = 0, i;
	int ret;

	while ((ret = zram_extent_reserve(map, nr, &cursor, max_len,
					  &start)) > 0)
		total += ret;
	CHECK(ret == -ENOSPC && total == nr,
	      "fill nr %lu max %u: ret %d total %lu", nr, max_len, ret, total);
	for (i = 0; i < nr; i++)
		if (!test_bit(i, map))
			break;
	CHECK(i == nr, "fill nr %lu: block %lu left free", nr, i);
	free(map);
}

/*
 * Releases racing with reservations: a second thread releases every block
 * of a full bitmap, one at a time in shuffled order, while the main thread
 * reserves. Each reserved block must have been released before and not be
 * handed out twice; at the end every block is reserved again.
 */
enum { BLK_HELD, BLK_RELEASED, BLK_RESERVED };

struct race {
	unsigned long nr;
	unsigned long *map;
	unsigned long *order;
	int *state;
};

static void *race_release(void *arg)
{
	struct race *r = arg;
	unsigned long i, b;

	for (i = 0; i < r->nr; i++) {
		b = r->order[i];
		__atomic_store_n(&r->state[b], BLK_RELEASED, __ATOMIC_SEQ_CST);
		zram_extent_release(r->map, b, 1);
	}
	return NULL;
}

static void run_race(unsigned long nr, unsigned int max_len)
{
	struct race r = { .nr = nr };
	struct zram_extent_cursor cursor = { };
	unsigned long start, got = 0, i, j, tmp;
	unsigned int bad = 0;
	pthread_t thread;
	int ret, k;

	r.map = bitmap_new(nr);
	r.order = calloc(nr, sizeof(*r.order));
	r.state = calloc(nr, sizeof(*r.state));
	for (i = 0; i < nr; i++) {
		set_bit(i, r.map);
		r.order[i] = i;
	}
	for (i = nr - 1; i > 0; i--) {
		j = rnd(i + 1);
		tmp = r.order[i];
		r.order[i] = r.order[j];
		r.order[j] = tmp;
	}
	pthread_create(&thread, NULL, race_release, &r);
	while (got < nr) {
		ret = zram_extent_reserve(r.map, nr, &cursor, max_len, &start);
		if (ret == -ENOSPC)
			continue;
		for (k = 0; k < ret; k++) {
			if (__atomic_load_n(&r.state[start + k],
					    __ATOMIC_SEQ_CST) != BLK_RELEASED)
				bad++;
			r.state[start + k] = BLK_RESERVED;
		}
		got += ret;
	}
	pthread_join(thread, NULL);
	for (i = 0; i < nr; i++)
		if (!test_bit(i, r.map) || r.state[i] != BLK_RESERVED)
			bad++;
	CHECK(!bad, "race nr %lu max %u: %u bad blocks", nr, max_len, bad);
	free(r.state);
	free(r.order);
	free(r.map);
}

/*
 * Two reservers racing (zram serialises them, the allocator does not rely
 * on it): each thread reserves with its own cursor on an alternating
 * bitmap, then a free one, until -ENOSPC. Every free block must be handed
 * out exactly once, and no -ENOSPC may come while a block is free.
 */
struct reserver {
	unsigned long nr;
	unsigned long *map;
	unsigned int max_len;
	int *owner;	/* thread id + 1 per block, 0 when not handed out */
	int id;
	unsigned int bad;
};

static void *race_reserve(void *arg)
{
	struct reserver *r = arg;
	struct zram_extent_cursor cur = { .next = r->id * r->nr / 2 };
	unsigned long start;
	int ret, k;

	while ((ret = zram_extent_reserve(r->map, r->nr, &cur, r->max_len,
					  &start)) > 0) {
		for (k = 0; k < ret; k++)
			if (__atomic_exchange_n(&r->owner[start + k], r->id + 1,
						__ATOMIC_SEQ_CST))
				r->bad++;
	}
	if (ret != -ENOSPC)
		r->bad++;
	return NULL;
}

static void run_race_reservers(unsigned long nr, unsigned int max_len,
			       bool alternating)
{
	struct reserver r[2];
	unsigned long *map = bitmap_new(nr), i, given = 0, want = 0;
	int *owner = calloc(nr, sizeof(*owner));
	pthread_t t[2];
	int j;

	for (i = 0; i < nr; i++) {
		if (alternating && !(i % 2))
			set_bit(i, map);
		else
			want++;
	}
	for (j = 0; j < 2; j++) {
		r[j] = (struct reserver){ .nr = nr, .map = map,
			.max_len = max_len, .owner = owner, .id = j };
		pthread_create(&t[j], NULL, race_reserve, &r[j]);
	}
	for (j = 0; j < 2; j++)
		pthread_join(t[j], NULL);
	for (i = 0; i < nr; i++) {
		if (owner[i])
			given++;
		if (!test_bit(i, map))
			r[0].bad++;
	}
	CHECK(!r[0].bad && !r[1].bad && given == want,
	      "two reservers nr %lu max %u alt %d: bad %u+%u, %lu of %lu given",
	      nr, max_len, alternating, r[0].bad, r[1].bad, given, want);
	free(owner);
	free(map);
}

int main(void)
{
	unsigned long long seed;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixed_cases); i++)
		run_fixed_case(&fixed_cases[i]);
	for (i = 0; i < ARRAY_SIZE(stage_cases); i++)
		run_stage_case(&stage_cases[i]);
	run_stage_full_case();
	run_bound_case(true);
	run_bound_case(false);
	run_short_region_case();
	run_reserve_at_case();
	run_unreserve_case();
	run_cost_case();
	run_fill(1, 32);
	run_fill(63, 32);
	run_fill(64, 64);
	run_fill(4099, 17);
	for (seed = 1; seed <= 200; seed++)
		run_random(seed, 20000);

	rng_state = 42;
	run_race(100000, 32);
	run_race(4099, 1);
	for (i = 0; i < 20; i++) {
		run_race_reservers(100000, 32, true);
		run_race_reservers(100000, 32, false);
		run_race_reservers(4099, 1, true);
	}

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
