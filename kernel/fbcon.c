/* kernel/fbcon.c: the framebuffer console (the screen model is described
 * in kernel/fbcon.h).
 *
 * The text on screen lives twice in memory: `text` is what should be
 * shown, `shown` what video memory holds.  Drawing a cell writes only
 * video memory, never reads it (a read from uncached video memory costs
 * a bus round trip), and a scroll redraws only the cells whose character
 * changed.  A pixel framebuffer is mapped write-combining, so a glyph's
 * stores go out as bursts, not one bus transaction each; wmb() at the end
 * of each write pushes them out before the console lock is dropped.  Writers arrive holding printk's console lock with irqs off;
 * fb_lock only orders them against fbcon_verify(), and gives up waiting
 * after a bound so a panic on a CPU whose peer died mid-line still draws. */
#include "kernel/fbcon.h"
#include "kernel/font.h"
#include "kernel/console.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/multiboot2.h"
#include "kernel/time.h"
#include "asm/io.h"
#include "asm/irqflags.h"

#define FB_MAX_BYTES	(512ul << 20)	/* no real mode is larger */
#define VGA_TEXT_ATTR	0x0700		/* light grey on black */
#define VGA_TEXT_BOX	0xfe		/* code page 437's small square */
#define LOCK_SPIN_LIMIT	10000000
#define REPLAY_CHUNK	512

struct fbcon {
	enum fbcon_kind kind;
	u8 *base;
	u64 phys;
	u32 width, height, pitch, bpp, bytes_pp;
	u32 cols, rows, cx, cy;
	u32 fg, bg;			/* packed pixel values */
};

static struct fbcon fc;
static char text[FBCON_MAX_ROWS][FBCON_MAX_COLS];
static char shown[FBCON_MAX_ROWS][FBCON_MAX_COLS];
static int fb_lock;

static bool fb_lock_get(void)
{
	for (long spin = 0; spin < LOCK_SPIN_LIMIT; spin++)
		if (!__atomic_exchange_n(&fb_lock, 1, __ATOMIC_ACQUIRE))
			return true;
	return false;			/* holder is stuck: draw regardless */
}

static void fb_lock_put(bool held)
{
	if (held)
		__atomic_store_n(&fb_lock, 0, __ATOMIC_RELEASE);
}

/* An 8-bit channel value placed into a pixel field of `size` bits. */
static u32 channel(u32 v8, u8 pos, u8 size)
{
	if (size == 0)
		return 0;
	u32 v = size <= 8 ? v8 >> (8 - size) : v8 << (size - 8);
	return v << pos;
}

static u32 pack_rgb(const struct mb2_framebuffer *fb, u32 rgb)
{
	u32 r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
	return channel(r, fb->red_pos, fb->red_size) |
	       channel(g, fb->green_pos, fb->green_size) |
	       channel(b, fb->blue_pos, fb->blue_size);
}

static void store_pixel(u8 *p, u32 v)
{
	switch (fc.bytes_pp) {
	case 4:
		*(volatile u32 *)p = v;
		break;
	case 3:
		((volatile u8 *)p)[0] = (u8)v;
		((volatile u8 *)p)[1] = (u8)(v >> 8);
		((volatile u8 *)p)[2] = (u8)(v >> 16);
		break;
	default:
		*(volatile u16 *)p = (u16)v;
		break;
	}
}

static u32 load_pixel(const u8 *p)
{
	switch (fc.bytes_pp) {
	case 4:
		return *(const volatile u32 *)p;
	case 3:
		return ((const volatile u8 *)p)[0] | ((const volatile u8 *)p)[1] << 8 |
		       (u32)((const volatile u8 *)p)[2] << 16;
	default:
		return *(const volatile u16 *)p;
	}
}

static volatile u16 *vga_cell(u32 x, u32 y)
{
	return (volatile u16 *)(fc.base + (size_t)y * fc.pitch) + x;
}

static u16 vga_char(char c)
{
	unsigned char u = (unsigned char)c;
	return VGA_TEXT_ATTR | (u >= FONT_FIRST && u <= FONT_LAST ? u : VGA_TEXT_BOX);
}

static u8 *pixel_cell(u32 x, u32 y)
{
	return fc.base + (size_t)y * FONT_HEIGHT * fc.pitch +
	       (size_t)x * FONT_WIDTH * fc.bytes_pp;
}

static void draw_cell(u32 x, u32 y)
{
	char c = text[y][x];

	shown[y][x] = c;
	if (fc.kind == FBCON_VGA_TEXT) {
		*vga_cell(x, y) = vga_char(c);
		return;
	}
	const u8 *glyph = font_glyph((unsigned char)c);
	u8 *row = pixel_cell(x, y);
	for (int r = 0; r < FONT_HEIGHT; r++, row += fc.pitch) {
		u8 bits = glyph[r];
		u8 *p = row;
		for (int i = 0; i < FONT_WIDTH; i++, p += fc.bytes_pp)
			store_pixel(p, bits & (0x80 >> i) ? fc.fg : fc.bg);
	}
}

static bool cell_matches(u32 x, u32 y)
{
	char c = text[y][x];

	if (fc.kind == FBCON_VGA_TEXT)
		return *vga_cell(x, y) == vga_char(c);
	const u8 *glyph = font_glyph((unsigned char)c);
	const u8 *row = pixel_cell(x, y);
	for (int r = 0; r < FONT_HEIGHT; r++, row += fc.pitch) {
		const u8 *p = row;
		for (int i = 0; i < FONT_WIDTH; i++, p += fc.bytes_pp)
			if (load_pixel(p) != (glyph[r] & (0x80 >> i) ? fc.fg : fc.bg))
				return false;
	}
	return true;
}

static void redraw_changed(void)
{
	for (u32 y = 0; y < fc.rows; y++)
		for (u32 x = 0; x < fc.cols; x++)
			if (text[y][x] != shown[y][x])
				draw_cell(x, y);
}

static u64 scroll_count, scroll_cycles, scroll_max_cycles;

static void new_line(void)
{
	fc.cx = 0;
	if (++fc.cy < fc.rows)
		return;
	u64 t0 = get_cycles();
	u32 n = fbcon_scroll_lines(fc.rows);
	memmove(text[0], text[n], (size_t)(fc.rows - n) * FBCON_MAX_COLS);
	memset(text[fc.rows - n], ' ', (size_t)n * FBCON_MAX_COLS);
	fc.cy = fc.rows - n;
	redraw_changed();
	wmb();
	u64 d = get_cycles() - t0;

	scroll_count++;
	scroll_cycles += d;
	if (d > scroll_max_cycles)
		scroll_max_cycles = d;
}

void fbcon_scroll_stats(u64 *count, u64 *cycles, u64 *max_cycles)
{
	*count = scroll_count;
	*cycles = scroll_cycles;
	*max_cycles = scroll_max_cycles;
}

static void put_glyph(char c)
{
	if (fc.cx >= fc.cols)
		new_line();
	text[fc.cy][fc.cx] = c;
	if (shown[fc.cy][fc.cx] != c)
		draw_cell(fc.cx, fc.cy);
	fc.cx++;
}

static void put_char(char c)
{
	switch (c) {
	case '\n':
		new_line();
		break;
	case '\r':
		fc.cx = 0;
		break;
	case '\t':
		do
			put_glyph(' ');
		while (fc.cx % 8 && fc.cx < fc.cols);
		break;
	case '\b':
		if (fc.cx > 0)
			fc.cx--;
		break;
	default:
		put_glyph(c);
		break;
	}
}

void fbcon_write(const char *s, size_t n)
{
	if (fc.kind == FBCON_NONE)
		return;
	bool held = fb_lock_get();
	for (size_t i = 0; i < n; i++)
		put_char(s[i]);
	wmb();
	fb_lock_put(held);
}

static void fill_defaults(struct mb2_framebuffer *fb)
{
	if (fb->has_rgb)
		return;
	/* GRUB always sends the fields; these are the usual layouts. */
	if (fb->bpp == 16) {
		fb->red_pos = 11, fb->red_size = 5, fb->green_pos = 5, fb->green_size = 6;
		fb->blue_pos = 0, fb->blue_size = 5;
	} else if (fb->bpp == 15) {
		fb->red_pos = 10, fb->red_size = 5, fb->green_pos = 5, fb->green_size = 5;
		fb->blue_pos = 0, fb->blue_size = 5;
	} else {
		fb->red_pos = 16, fb->red_size = 8, fb->green_pos = 8, fb->green_size = 8;
		fb->blue_pos = 0, fb->blue_size = 8;
	}
}

static bool field_ok(u8 pos, u8 size, u8 bpp)
{
	return size <= 16 && (u32)pos + size <= bpp;
}

static int check_pixels(struct mb2_framebuffer *fb)
{
	if (fb->bpp != 15 && fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32) {
		pr_err("fbcon: %u bits per pixel is not supported (15, 16, 24, 32 are)\n", fb->bpp);
		return -EINVAL;
	}
	fill_defaults(fb);
	if (!field_ok(fb->red_pos, fb->red_size, fb->bpp) ||
	    !field_ok(fb->green_pos, fb->green_size, fb->bpp) ||
	    !field_ok(fb->blue_pos, fb->blue_size, fb->bpp)) {
		pr_err("fbcon: colour fields r%u:%u g%u:%u b%u:%u do not fit %u bpp\n",
		       fb->red_pos, fb->red_size, fb->green_pos, fb->green_size,
		       fb->blue_pos, fb->blue_size, fb->bpp);
		return -EINVAL;
	}
	u32 bytes_pp = (fb->bpp + 7) / 8;
	u32 align = bytes_pp == 3 ? 1 : bytes_pp;	/* pixels are stored whole */
	if (fb->width < FONT_WIDTH || fb->height < FONT_HEIGHT ||
	    (u64)fb->width * bytes_pp > fb->pitch || fb->pitch % align || fb->addr % align) {
		pr_err("fbcon: bad geometry %ux%u, pitch %u at %u bpp\n",
		       fb->width, fb->height, fb->pitch, fb->bpp);
		return -EINVAL;
	}
	return 0;
}

int fbcon_setup(void *base, const struct mb2_framebuffer *fb_in)
{
	struct mb2_framebuffer fb = *fb_in;

	fc.kind = FBCON_NONE;
	if (fb.type == MB2_FRAMEBUFFER_RGB) {
		if (check_pixels(&fb))
			return -EINVAL;
	} else if (fb.type == MB2_FRAMEBUFFER_TEXT) {
		if (fb.width == 0 || fb.height == 0 || (u64)fb.width * 2 > fb.pitch) {
			pr_err("fbcon: bad text mode %ux%u, pitch %u\n", fb.width, fb.height, fb.pitch);
			return -EINVAL;
		}
	} else {
		pr_err("fbcon: framebuffer type %u (indexed colour, %ux%u %u bpp) is not supported\n",
		       fb.type, fb.width, fb.height, fb.bpp);
		return -EINVAL;
	}
	if ((u64)fb.pitch * fb.height > FB_MAX_BYTES) {
		pr_err("fbcon: framebuffer of %lu bytes is implausibly large\n",
		       (unsigned long)((u64)fb.pitch * fb.height));
		return -EINVAL;
	}

	fc.base = base;
	fc.phys = fb.addr;
	fc.width = fb.width;
	fc.height = fb.height;
	fc.pitch = fb.pitch;
	fc.bpp = fb.bpp;
	if (fb.type == MB2_FRAMEBUFFER_TEXT) {
		fc.cols = MIN(fb.width, (u32)FBCON_MAX_COLS);
		fc.rows = MIN(fb.height, (u32)FBCON_MAX_ROWS);
	} else {
		fc.bytes_pp = (fb.bpp + 7) / 8;
		fc.fg = pack_rgb(&fb, FBCON_FG_RGB);
		fc.bg = pack_rgb(&fb, FBCON_BG_RGB);
		fc.cols = MIN(fb.width / FONT_WIDTH, (u32)FBCON_MAX_COLS);
		fc.rows = MIN(fb.height / FONT_HEIGHT, (u32)FBCON_MAX_ROWS);
	}
	fc.cx = fc.cy = 0;
	memset(text, ' ', sizeof(text));
	memset(shown, ' ', sizeof(shown));
	fc.kind = fb.type == MB2_FRAMEBUFFER_TEXT ? FBCON_VGA_TEXT : FBCON_PIXELS;

	/* Everything, margins included: GRUB's menu is still on the screen. */
	if (fc.kind == FBCON_VGA_TEXT) {
		for (u32 y = 0; y < fb.height; y++)
			for (u32 x = 0; x < fb.width; x++)
				*vga_cell(x, y) = vga_char(' ');
	} else {
		for (u32 y = 0; y < fb.height; y++)
			for (u32 x = 0; x < fb.width; x++)
				store_pixel(fc.base + (size_t)y * fc.pitch + (size_t)x * fc.bytes_pp, fc.bg);
	}
	return 0;
}

bool fbcon_get_info(struct fbcon_info *info)
{
	memset(info, 0, sizeof(*info));
	info->kind = fc.kind;
	if (fc.kind == FBCON_NONE)
		return false;
	info->phys = fc.phys;
	info->base = fc.base;
	info->width = fc.width;
	info->height = fc.height;
	info->pitch = fc.pitch;
	info->bpp = fc.bpp;
	info->cols = fc.cols;
	info->rows = fc.rows;
	info->cx = fc.cx;
	info->cy = fc.cy;
	return true;
}

unsigned long fbcon_verify(void)
{
	unsigned long flags, bad = 0;

	if (fc.kind == FBCON_NONE)
		return 0;
	local_irq_save(flags);
	bool held = fb_lock_get();
	for (u32 y = 0; y < fc.rows; y++)
		for (u32 x = 0; x < fc.cols; x++)
			bad += !cell_matches(x, y);
	fb_lock_put(held);
	local_irq_restore(flags);
	return bad;
}

static struct console fb_console = {
	.name = "fb0",
	.write = fbcon_write,
};

/* What was printed before this console existed: the same bytes the serial
 * port got, so screen and serial log agree from the first line. */
static void replay_log(void)
{
	char buf[REPLAY_CHUNK];
	size_t from = 0, n;

	while ((n = printk_log_read(buf, sizeof(buf), from)) > 0) {
		fbcon_write(buf, n);
		from += n;
	}
}

static void no_screen(bool serial, const char *why)
{
	if (serial)
		pr_info("fbcon: no framebuffer console: %s\n", why);
	else
		pr_warn("fbcon: no serial port and no screen (%s): output is kept only in the %s\n",
			why, "memory log (printk_log_read)");
}

void fbcon_init(const struct boot_info *bi, bool serial)
{
	struct mb2_framebuffer fb;
	u64 phys, len;

	if (bi->has_framebuffer) {
		fb = bi->fb;
	} else if (!bi->has_efi32 && !bi->has_efi64) {
		/* A BIOS boot without the tag: GRUB left the PC in text mode. */
		memset(&fb, 0, sizeof(fb));
		fb.type = MB2_FRAMEBUFFER_TEXT;
		fb.addr = VGA_TEXT_PHYS;
		fb.width = 80, fb.height = 25, fb.pitch = 160, fb.bpp = 16;
	} else {
		no_screen(serial, "the boot loader passed no framebuffer");
		return;
	}
	if (fb.type == MB2_FRAMEBUFFER_TEXT) {
		/* EGA text: the tag's address is the VGA text buffer's anyway. */
		if (fb.addr != VGA_TEXT_PHYS)
			pr_warn("fbcon: text mode at 0x%lx; using the VGA text buffer at 0x%lx\n",
				(unsigned long)fb.addr, VGA_TEXT_PHYS);
		fb.addr = VGA_TEXT_PHYS;
		fb.width = MIN(fb.width, 132u);
		fb.height = MIN(fb.height, 60u);
		fb.pitch = fb.width * 2;
	}
	phys = fb.addr;
	len = (u64)fb.pitch * fb.height;
	if (phys == 0 || len == 0 || len > FB_MAX_BYTES) {
		pr_err("fbcon: framebuffer at 0x%lx: bad address or size %ux%u, pitch %u\n",
		       (unsigned long)phys, fb.width, fb.height, fb.pitch);
		no_screen(serial, "bad framebuffer description");
		return;
	}
	/* VGA text memory stays uncached: it is tiny, and legacy. */
	void *base = fb.type == MB2_FRAMEBUFFER_TEXT ? ioremap(phys, len) : ioremap_wc(phys, len);
	if (!base) {
		pr_err("fbcon: cannot map the framebuffer at 0x%lx (%lu bytes)\n",
		       (unsigned long)phys, (unsigned long)len);
		no_screen(serial, "framebuffer not mappable");
		return;
	}
	if (fbcon_setup(base, &fb)) {
		no_screen(serial, "unusable framebuffer");
		return;
	}
	replay_log();
	register_console(&fb_console);
	if (fc.kind == FBCON_VGA_TEXT)
		pr_info("fbcon: VGA text console %ux%u\n", fc.cols, fc.rows);
	else
		pr_info("fbcon: %ux%u %u bpp at 0x%lx, %ux%u characters\n",
			fc.width, fc.height, fc.bpp, (unsigned long)fc.phys, fc.cols, fc.rows);
	if (!serial)
		pr_warn("fbcon: no serial port: this screen is the only console\n");
}
