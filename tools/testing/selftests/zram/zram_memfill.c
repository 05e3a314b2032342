// SPDX-License-Identifier: GPL-2.0
/*
 * zram_memfill: fill anonymous memory with a pattern that names each page,
 * then verify it on request. Used by the swap tests: the memory is pushed
 * out to a zram swap device (and from there to its backing device) between
 * the fill and the verifications.
 *
 * Usage: zram_memfill MIB [SEED]
 *
 * Maps MIB MiB of private anonymous memory, writes every 4 KiB page and
 * prints "filled N pages, checksum C". Then reads commands, one per line,
 * from stdin:
 *
 *   verify   read every page back and print
 *            "verified N pages, B bad, checksum C" (and the first bad pages)
 *   poke P   flip one byte of page P (prints "poked page P"), so that a
 *            test can show that its verification detects a bad page
 *
 * Exits at end of input: 0 when every verification found no bad page,
 * 1 otherwise, 2 on a usage or setup error.
 *
 * Page layout (512 64-bit words): word 0 holds SEED << 32 | page index,
 * words 1-255 a hash of (seed, page, word), words 256-511 repeat word 0.
 * So every page differs from every other one, compresses about 2:1, and a
 * bad page tells which page's data (or what else) it holds.
 *
 * C is the 64-bit FNV-1a hash of the memory's 64-bit words in address
 * order, taken while the words are written or checked (a separate pass
 * would swap everything in once more): equal after the fill and after a
 * verification exactly when the memory reads back as written, as far as
 * a 64-bit hash can tell.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE_BYTES	4096UL
#define PAGE_WORDS	(PAGE_BYTES / sizeof(uint64_t))
#define HASHED_WORDS	(PAGE_WORDS / 2)
#define MAX_REPORTED	8
#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static uint64_t mix(uint64_t x)
{
	/* splitmix64 finaliser */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t page_word(uint32_t seed, unsigned long page, unsigned int i)
{
	uint64_t head = (uint64_t)seed << 32 | (page & 0xffffffffULL);

	if (i == 0 || i >= HASHED_WORDS)
		return head;
	return mix(head * PAGE_WORDS + i);
}

static void fill_page(uint64_t *p, uint32_t seed, unsigned long page,
		      uint64_t *sum)
{
	unsigned int i;

	for (i = 0; i < PAGE_WORDS; i++) {
		p[i] = page_word(seed, page, i);
		*sum = (*sum ^ p[i]) * FNV_PRIME;
	}
}

/*
 * Number of words of the page that differ from the expected pattern; the
 * page's words are folded into *sum when sum is not NULL.
 */
static unsigned int check_page(const uint64_t *p, uint32_t seed,
			       unsigned long page, uint64_t *sum)
{
	unsigned int i, bad = 0;

	for (i = 0; i < PAGE_WORDS; i++) {
		if (p[i] != page_word(seed, page, i))
			bad++;
		if (sum)
			*sum = (*sum ^ p[i]) * FNV_PRIME;
	}
	return bad;
}

static void describe_bad(const uint64_t *p, uint32_t seed, unsigned long page,
			 unsigned int bad_words)
{
	uint64_t head = p[0];
	unsigned int i, zero = 1;

	for (i = 0; i < PAGE_WORDS; i++)
		if (p[i])
			zero = 0;
	if (zero) {
		printf("bad page %lu: all zeros\n", page);
		return;
	}
	if ((uint32_t)(head >> 32) == seed &&
	    !check_page(p, seed, (uint32_t)head, NULL)) {
		printf("bad page %lu: holds page %u\n", page, (uint32_t)head);
		return;
	}
	printf("bad page %lu: %u of %lu words differ, word 0 %#llx\n",
	       page, bad_words, PAGE_WORDS, (unsigned long long)head);
}

static unsigned long verify(const char *mem, uint32_t seed,
			    unsigned long pages, uint64_t *sum)
{
	unsigned long page, bad = 0;
	unsigned int words;

	*sum = FNV_OFFSET;
	for (page = 0; page < pages; page++) {
		const uint64_t *p = (const uint64_t *)(mem + page * PAGE_BYTES);

		words = check_page(p, seed, page, sum);
		if (!words)
			continue;
		if (bad < MAX_REPORTED)
			describe_bad(p, seed, page, words);
		bad++;
	}
	return bad;
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end;
}

int main(int argc, char **argv)
{
	unsigned long mib, seed = 1, pages, page, bad;
	uint64_t sum = FNV_OFFSET;
	char line[64];
	int failed = 0;
	char *mem;

	if (argc < 2 || argc > 3 || parse_ulong(argv[1], &mib) || !mib ||
	    mib > (1UL << 20) || (argc == 3 && (parse_ulong(argv[2], &seed) ||
						seed > 0xffffffffUL))) {
		fprintf(stderr, "usage: %s MIB [SEED]\n", argv[0]);
		return 2;
	}
	pages = mib * (1024 * 1024 / PAGE_BYTES);

	mem = mmap(NULL, pages * PAGE_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (page = 0; page < pages; page++)
		fill_page((uint64_t *)(mem + page * PAGE_BYTES), seed, page, &sum);
	printf("filled %lu pages, checksum 0x%016llx\n", pages,
	       (unsigned long long)sum);
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "poke ", 5) && !parse_ulong(line + 5, &page) &&
		    page < pages) {
			mem[page * PAGE_BYTES + PAGE_BYTES / 2] ^= 0x5a;
			printf("poked page %lu\n", page);
			fflush(stdout);
			continue;
		}
		if (strcmp(line, "verify")) {
			printf("unknown command '%s'\n", line);
			fflush(stdout);
			failed = 1;
			continue;
		}
		bad = verify(mem, seed, pages, &sum);
		printf("verified %lu pages, %lu bad, checksum 0x%016llx\n",
		       pages, bad, (unsigned long long)sum);
		fflush(stdout);
		if (bad)
			failed = 1;
	}
	return failed;
}
