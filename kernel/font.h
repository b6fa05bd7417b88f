/* kernel/font.h: the built-in 8x16 bitmap font (kernel/font8x16.c) the
 * framebuffer console draws with.  Row r of a glyph is one byte, its most
 * significant bit the leftmost pixel. */
#pragma once

#include "kernel/types.h"

#define FONT_WIDTH	8
#define FONT_HEIGHT	16
#define FONT_FIRST	0x20
#define FONT_LAST	0x7e

extern const u8 font8x16[FONT_LAST - FONT_FIRST + 1][FONT_HEIGHT];
extern const u8 font8x16_unknown[FONT_HEIGHT];

static inline const u8 *font_glyph(unsigned char c)
{
	if (c < FONT_FIRST || c > FONT_LAST)
		return font8x16_unknown;
	return font8x16[c - FONT_FIRST];
}
