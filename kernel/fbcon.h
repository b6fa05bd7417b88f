/* kernel/fbcon.h: the framebuffer console, for PCs whose only screen is the
 * one the firmware set up (UEFI: no VGA text mode, often no COM1).
 *
 * It shows exactly the text printk sends to the serial port, drawn with
 * the built-in 8x16 font (kernel/font.h) on the multiboot2 framebuffer
 * (32, 24, 16 or 15 bpp RGB), or written into the VGA text buffer when
 * GRUB left the PC in EGA text mode.  The screen model is small and fixed,
 * because tests/fbcheck.py replays the serial log through the same model
 * and compares the screen QEMU dumps with it pixel for pixel:
 *   - cols = width / 8, rows = height / 16 (at most FBCON_MAX_COLS x
 *     FBCON_MAX_ROWS, top left), light grey on black, no cursor;
 *   - '\n' starts a new line, '\r' returns to column 0, '\t' moves to the
 *     next multiple of 8, '\b' one column back, any other byte is a glyph
 *     (bytes outside 0x20..0x7e show as a hollow box);
 *   - a glyph that would fall past the last column goes to a new line;
 *   - a new line below the last row scrolls the text up by
 *     fbcon_scroll_lines(rows) rows at once (a quarter of the screen, so
 *     redrawing costs little per line even on uncached video memory).
 * When it starts it replays the memory log, so the screen also shows what
 * was printed before it existed. */
#pragma once

#include "kernel/types.h"

struct boot_info;
struct mb2_framebuffer;

#define FBCON_MAX_COLS	480	/* 3840 pixels */
#define FBCON_MAX_ROWS	160	/* 2560 pixels */
#define FBCON_FG_RGB	0xaaaaaau
#define FBCON_BG_RGB	0x000000u
#define VGA_TEXT_PHYS	0xb8000ul

enum fbcon_kind { FBCON_NONE, FBCON_PIXELS, FBCON_VGA_TEXT };

struct fbcon_info {
	enum fbcon_kind kind;
	u64 phys;
	const void *base;		/* where it is mapped */
	u32 width, height, pitch;	/* pixels (characters for VGA text) */
	u32 bpp;
	u32 cols, rows;
	u32 cx, cy;			/* where the next glyph goes */
};

/* Maps the framebuffer GRUB described (needs paging_init: ioremap), clears
 * it, replays the memory log onto it and registers it as a console.
 * Prints why when there is no usable screen, and says so loudly when
 * there is no serial port either (only the memory log keeps the output). */
void fbcon_init(const struct boot_info *bi, bool serial_present);
/* false when no framebuffer console is active. */
bool fbcon_get_info(struct fbcon_info *info);
/* Reads every cell back from video memory and compares it with the glyph
 * that should be there; returns the number of cells that differ. */
unsigned long fbcon_verify(void);
/* Scrolls so far, their total and largest time in TSC cycles (each is a
 * redraw inside the console lock with irqs off). */
void fbcon_scroll_stats(u64 *count, u64 *cycles, u64 *max_cycles);

/* The pure parts, for kernel/fbcon.c itself and the host tests: checks fb
 * and takes `base` (already mapped, pitch * height bytes) as the screen.
 * Returns 0, or -EINVAL after printing why the framebuffer is unusable. */
int fbcon_setup(void *base, const struct mb2_framebuffer *fb);
void fbcon_write(const char *s, size_t n);
/* Rows one scroll moves, for a screen of `rows` rows. */
static inline u32 fbcon_scroll_lines(u32 rows)
{
	return rows >= 8 ? rows / 4 : 1;
}
