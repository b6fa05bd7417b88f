/* tests/host/mb2_build.h: multiboot2 infos built by hand for the host
 * tests of the code that reads them (test_multiboot2.c, test_fbcon.c):
 * mb_init(), then tags, then mb_end() writes the end tag and the total
 * size; the info is m->b, m->len bytes. */
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernel/multiboot2.h"

/* An info under construction. */
struct mb {
	_Alignas(8) unsigned char b[16384];
	size_t len;
};

static inline void put32(struct mb *m, size_t off, uint32_t v) { memcpy(m->b + off, &v, 4); }

static inline void mb_init(struct mb *m)
{
	memset(m, 0, sizeof(*m));
	m->len = 8;
}

/* Appends a tag with a payload; returns its offset.  `size` 0: the honest
 * size, else the size written in the header (the lie under test). */
static inline size_t mb_tag_sized(struct mb *m, uint32_t type, const void *pl, size_t plen, uint32_t size)
{
	size_t off = m->len;
	put32(m, off, type);
	put32(m, off + 4, size ? size : (uint32_t)(8 + plen));
	if (plen)
		memcpy(m->b + off + 8, pl, plen);
	m->len = (off + 8 + plen + 7) & ~(size_t)7;
	return off;
}

static inline size_t mb_tag(struct mb *m, uint32_t type, const void *pl, size_t plen)
{
	return mb_tag_sized(m, type, pl, plen, 0);
}

static inline void mb_end(struct mb *m)
{
	mb_tag(m, MB2_TAG_END, NULL, 0);
	put32(m, 0, (uint32_t)m->len);
}

/* A memory map tag of n entries of entry_size bytes (>= 24 written). */
static inline size_t mb_mmap(struct mb *m, uint32_t entry_size, uint32_t n)
{
	unsigned char pl[8192] = { 0 };
	size_t plen = 8 + (size_t)entry_size * n;
	memcpy(pl, &entry_size, 4);
	for (uint32_t i = 0; i < n && entry_size >= 24; i++) {
		uint64_t addr = 0x100000ull * (i + 1), len = 0x1000ull * (i + 1);
		uint32_t type = i % 2 ? MB2_MEMORY_RESERVED : MB2_MEMORY_AVAILABLE;
		memcpy(pl + 8 + i * entry_size, &addr, 8);
		memcpy(pl + 8 + i * entry_size + 8, &len, 8);
		memcpy(pl + 8 + i * entry_size + 16, &type, 4);
	}
	return mb_tag(m, MB2_TAG_MMAP, pl, plen);
}

/* A framebuffer tag: 1024x768, pitch 4096, 32 bits per pixel at addr, of
 * the given type; colour (clen bytes, e.g. the RGB type's field positions
 * and sizes) after the 24 fixed bytes. */
static inline size_t mb_framebuffer(struct mb *m, uint64_t addr, uint8_t type,
				    const void *colour, size_t clen)
{
	unsigned char fb[64] = { 0 };
	uint32_t pitch = 4096, w = 1024, h = 768;

	memcpy(fb, &addr, 8);
	memcpy(fb + 8, &pitch, 4);
	memcpy(fb + 12, &w, 4);
	memcpy(fb + 16, &h, 4);
	fb[20] = 32;
	fb[21] = type;
	if (clen)
		memcpy(fb + 24, colour, clen);
	return mb_tag(m, MB2_TAG_FRAMEBUFFER, fb, 24 + clen);
}
