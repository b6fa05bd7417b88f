/* tests/host/test_fbcon.c: host test of the framebuffer console
 * (kernel/fbcon.c) drawing into memory buffers: every pixel format it
 * claims (32 bpp both channel orders, 24, 16, 15), the VGA text layout,
 * margins and pitch padding left alone, wrapping and scrolling, the read-
 * back check catching a wrong pixel, bad framebuffer descriptions refused,
 * fbcon_init replaying the memory log, and the multiboot2 parser keeping
 * the colour fields.  Last, the same text through the C console and
 * through tests/fbcheck.py's model must give the same screen (the
 * QEMU screen test relies on the two agreeing). */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include "tests/host/ktest.h"
#include "kernel/fbcon.h"
#include "kernel/font.h"
#include "kernel/console.h"
#include "kernel/printk.h"
#include "kernel/multiboot2.h"
#include "tests/host/mb2_build.h"

/* ---- what fbcon.c and multiboot2.c call ---- */

static char last_msg[4096];
static struct console *registered;
static const char *fake_log = "";
static u8 *ioremap_buf;
static u64 ioremap_phys;
static size_t ioremap_len;
static int ioremap_calls;

int printk(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(last_msg);
	if (n > sizeof(last_msg) - 512)
		n = 0;
	va_start(ap, fmt);
	int r = vsnprintf(last_msg + n, sizeof(last_msg) - n, fmt, ap);
	va_end(ap);
	return r;
}

void register_console(struct console *c) { registered = c; }

size_t printk_log_read(char *buf, size_t size, size_t from)
{
	size_t len = strlen(fake_log), n = 0;
	for (; from < len && n < size; from++)
		buf[n++] = fake_log[from];
	return n;
}

void *ioremap(u64 phys, size_t len)
{
	ioremap_calls++;
	ioremap_phys = phys;
	ioremap_len = len;
	return ioremap_buf;
}

void *ioremap_wc(u64 phys, size_t len)
{
	return ioremap(phys, len);
}

u64 get_cycles(void)
{
	return 0;
}

/* ---- an independent model of a pixel format ---- */

struct fmt {
	const char *name;
	u8 bpp;
	u8 rp, rs, gp, gs, bp, bs;
};

static const struct fmt formats[] = {
	{ "xrgb8888", 32, 16, 8, 8, 8, 0, 8 },
	{ "xbgr8888", 32, 0, 8, 8, 8, 16, 8 },
	{ "rgb888", 24, 16, 8, 8, 8, 0, 8 },
	{ "rgb565", 16, 11, 5, 5, 6, 0, 5 },
	{ "xrgb1555", 15, 10, 5, 5, 5, 0, 5 },
};

static u32 ref_pixel(const struct fmt *f, u32 rgb)
{
	u32 r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
	return (r >> (8 - f->rs)) << f->rp | (g >> (8 - f->gs)) << f->gp |
	       (b >> (8 - f->bs)) << f->bp;
}

static u32 get_px(const u8 *p, int bytes)
{
	u32 v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (u32)p[i] << (8 * i);
	return v;
}

static struct mb2_framebuffer make_fb(const struct fmt *f, u32 w, u32 h, u32 pitch)
{
	struct mb2_framebuffer fb = {
		.addr = 0xfd000000, .pitch = pitch, .width = w, .height = h,
		.bpp = f->bpp, .type = MB2_FRAMEBUFFER_RGB, .has_rgb = true,
		.red_pos = f->rp, .red_size = f->rs, .green_pos = f->gp,
		.green_size = f->gs, .blue_pos = f->bp, .blue_size = f->bs,
	};
	return fb;
}

/* The character whose glyph is drawn at cell (cx, cy), '?' if none. */
static char read_cell(const u8 *base, u32 pitch, int bytes, u32 fg, u32 cx, u32 cy)
{
	u8 rows[FONT_HEIGHT];
	for (int r = 0; r < FONT_HEIGHT; r++) {
		rows[r] = 0;
		for (int i = 0; i < FONT_WIDTH; i++) {
			const u8 *p = base + (size_t)(cy * FONT_HEIGHT + r) * pitch +
				      (size_t)(cx * FONT_WIDTH + i) * bytes;
			if (get_px(p, bytes) == fg)
				rows[r] |= 0x80 >> i;
		}
	}
	for (int c = FONT_FIRST; c <= FONT_LAST; c++)
		if (!memcmp(rows, font8x16[c - FONT_FIRST], FONT_HEIGHT))
			return (char)c;
	return '?';
}

static void read_row(char *out, const u8 *base, u32 pitch, int bytes, u32 fg, u32 cols, u32 y)
{
	for (u32 x = 0; x < cols; x++)
		out[x] = read_cell(base, pitch, bytes, fg, x, y);
	out[cols] = 0;
	for (int i = (int)cols - 1; i >= 0 && out[i] == ' '; i--)
		out[i] = 0;
}

/* ---- cases ---- */

#define W 100	/* 12 columns and a 4-pixel margin */
#define H 70	/* 4 rows and a 6-line margin */
#define PAD 12

static void each_format_draws_exactly(void)
{
	for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
		const struct fmt *f = &formats[k];
		int bytes = (f->bpp + 7) / 8;
		u32 pitch = W * bytes + PAD;
		u8 *buf = malloc((size_t)pitch * H);
		memset(buf, 0x5a, (size_t)pitch * H);
		struct mb2_framebuffer fb = make_fb(f, W, H, pitch);
		ASSERT(fbcon_setup(buf, &fb) == 0);
		u32 fg = ref_pixel(f, FBCON_FG_RGB), bg = ref_pixel(f, FBCON_BG_RGB);
		/* cleared: every pixel background, the pitch padding untouched */
		int bad_clear = 0, bad_pad = 0;
		for (u32 y = 0; y < H; y++) {
			for (u32 x = 0; x < W; x++)
				bad_clear += get_px(buf + y * pitch + x * bytes, bytes) != bg;
			for (u32 i = W * bytes; i < pitch; i++)
				bad_pad += buf[y * pitch + i] != 0x5a;
		}
		EXPECT_EQ(bad_clear, 0);
		EXPECT_EQ(bad_pad, 0);

		const char *msg = "Hi {~}|\n0123456789AB";
		fbcon_write(msg, strlen(msg));
		char row[64];
		read_row(row, buf, pitch, bytes, fg, 12, 0);
		if (strcmp(row, "Hi {~}|"))
			printf("    %s: row 0 reads '%s'\n", f->name, row);
		EXPECT_STREQ(row, "Hi {~}|");
		read_row(row, buf, pitch, bytes, fg, 12, 1);
		EXPECT_STREQ(row, "0123456789AB");
		EXPECT_EQ(fbcon_verify(), 0);
		/* only fg and bg anywhere; the margins stay background */
		int other = 0, margin = 0;
		for (u32 y = 0; y < H; y++)
			for (u32 x = 0; x < W; x++) {
				u32 v = get_px(buf + y * pitch + x * bytes, bytes);
				other += v != fg && v != bg;
				margin += (x >= 96 || y >= 64) && v != bg;
			}
		EXPECT_EQ(other, 0);
		EXPECT_EQ(margin, 0);
		/* one wrong pixel in a glyph is caught by the read-back */
		u8 *p = buf + 3 * pitch + 2 * bytes;
		p[0] ^= 0x01;
		EXPECT_EQ(fbcon_verify(), 1);
		free(buf);
	}
}

static void wraps_and_scrolls(void)
{
	const struct fmt *f = &formats[0];
	u32 w = 80, h = 16 * 10, pitch = w * 4;	/* 10 columns, 10 rows */
	u8 *buf = calloc(pitch, h);
	struct mb2_framebuffer fb = make_fb(f, w, h, pitch);
	ASSERT(fbcon_setup(buf, &fb) == 0);
	struct fbcon_info fi;
	ASSERT(fbcon_get_info(&fi));
	EXPECT_EQ(fi.cols, 10);
	EXPECT_EQ(fi.rows, 10);
	u32 fg = ref_pixel(f, FBCON_FG_RGB);
	char row[16], line[16];

	/* 12 glyphs: the last two go on the next line */
	fbcon_write("abcdefghijkl", 12);
	read_row(row, buf, pitch, 4, fg, 10, 0);
	EXPECT_STREQ(row, "abcdefghij");
	read_row(row, buf, pitch, 4, fg, 10, 1);
	EXPECT_STREQ(row, "kl");
	/* a tab to column 8, \r and \b overwrite */
	fbcon_write("\nx\ty\rZ\bQ", 8);
	read_row(row, buf, pitch, 4, fg, 10, 2);
	EXPECT_STREQ(row, "Q       y");
	/* 20 more lines on a 10-row screen: scrolls of 2 rows at a time */
	fbcon_write("\n", 1);
	for (int i = 0; i < 20; i++) {
		int n = snprintf(line, sizeof(line), "L%d\n", i);
		fbcon_write(line, (size_t)n);
	}
	ASSERT(fbcon_get_info(&fi));
	EXPECT(fi.cy < 10 && fi.cy >= 8);
	EXPECT_EQ(fi.cx, 0);
	/* the rows above the cursor hold the last lines, in order */
	for (u32 y = 0; y < fi.cy; y++) {
		snprintf(line, sizeof(line), "L%u", 20 - fi.cy + y);
		read_row(row, buf, pitch, 4, fg, 10, y);
		EXPECT_STREQ(row, line);
	}
	for (u32 y = fi.cy; y < 10; y++) {
		read_row(row, buf, pitch, 4, fg, 10, y);
		EXPECT_STREQ(row, "");
	}
	EXPECT_EQ(fbcon_verify(), 0);
	free(buf);
}

static void unknown_bytes_show_a_box(void)
{
	const struct fmt *f = &formats[0];
	u32 pitch = 64 * 4;
	u8 *buf = calloc(pitch, 32);
	struct mb2_framebuffer fb = make_fb(f, 64, 32, pitch);
	ASSERT(fbcon_setup(buf, &fb) == 0);
	fbcon_write("\x01\x80", 2);
	u32 fg = ref_pixel(f, FBCON_FG_RGB);
	for (int cell = 0; cell < 2; cell++)
		for (int r = 0; r < FONT_HEIGHT; r++) {
			u8 bits = 0;
			for (int i = 0; i < 8; i++)
				if (get_px(buf + r * pitch + (cell * 8 + i) * 4, 4) == fg)
					bits |= 0x80 >> i;
			EXPECT_EQ(bits, font8x16_unknown[r]);
		}
	free(buf);
}

static void vga_text_layout(void)
{
	u16 cells[80 * 25];
	memset(cells, 0x5a, sizeof(cells));
	struct mb2_framebuffer fb = {
		.addr = VGA_TEXT_PHYS, .pitch = 160, .width = 80, .height = 25,
		.bpp = 16, .type = MB2_FRAMEBUFFER_TEXT,
	};
	ASSERT(fbcon_setup(cells, &fb) == 0);
	EXPECT_EQ(cells[0], 0x0720);
	EXPECT_EQ(cells[80 * 25 - 1], 0x0720);
	fbcon_write("AB\x01\nz", 5);
	EXPECT_EQ(cells[0], 0x0741);
	EXPECT_EQ(cells[1], 0x0742);
	EXPECT_EQ(cells[2], 0x07fe);
	EXPECT_EQ(cells[80], 0x077a);
	EXPECT_EQ(fbcon_verify(), 0);
	cells[1] = 0x0743;
	EXPECT_EQ(fbcon_verify(), 1);
}

static void bad_descriptions_refused(void)
{
	static u8 buf[4096];
	const struct fmt *f = &formats[0];
	struct mb2_framebuffer ok = make_fb(f, 16, 16, 64), fb;

	struct { const char *why; struct mb2_framebuffer fb; } cases[9];
	int n = 0;
	fb = ok; fb.bpp = 8; cases[n].why = "8 bpp"; cases[n++].fb = fb;
	fb = ok; fb.pitch = 63; cases[n].why = "pitch short"; cases[n++].fb = fb;
	fb = ok; fb.width = 7; cases[n].why = "narrower than a glyph"; cases[n++].fb = fb;
	fb = ok; fb.height = 0; cases[n].why = "no lines"; cases[n++].fb = fb;
	fb = ok; fb.red_pos = 30; cases[n].why = "red past 32 bits"; cases[n++].fb = fb;
	fb = ok; fb.type = MB2_FRAMEBUFFER_INDEXED; cases[n].why = "indexed"; cases[n++].fb = fb;
	fb = ok; fb.pitch = 1u << 20; fb.height = 4096; cases[n].why = "4 GiB"; cases[n++].fb = fb;
	fb = ok; fb.pitch = 66; cases[n].why = "pitch not whole pixels"; cases[n++].fb = fb;
	fb = ok; fb.type = MB2_FRAMEBUFFER_TEXT; fb.width = 80; fb.pitch = 100;
	cases[n].why = "text pitch short"; cases[n++].fb = fb;

	for (int i = 0; i < n; i++) {
		last_msg[0] = 0;
		memset(buf, 0x5a, sizeof(buf));
		int r = fbcon_setup(buf, &cases[i].fb);
		if (r != -EINVAL)
			printf("    accepted: %s\n", cases[i].why);
		EXPECT_EQ(r, -EINVAL);
		EXPECT(strstr(last_msg, "fbcon: ") != NULL);
		struct fbcon_info fi;
		EXPECT(!fbcon_get_info(&fi));
		fbcon_write("x", 1);		/* no screen: draws nothing */
		EXPECT_EQ(buf[0], 0x5a);
	}
	EXPECT(fbcon_setup(buf, &ok) == 0);
}

static void init_replays_the_log(void)
{
	static u8 buf[160 * 4 * 48];
	struct boot_info *bi = calloc(1, sizeof(*bi));
	bi->has_framebuffer = true;
	bi->fb = make_fb(&formats[0], 160, 48, 160 * 4);
	bi->fb.addr = 0x123400000ull;		/* above 4 GiB */
	ioremap_buf = buf;
	ioremap_calls = 0;
	registered = NULL;
	fake_log = "[c0] early line\n[c0] second\n";
	last_msg[0] = 0;
	fbcon_init(bi, true);
	EXPECT_EQ(ioremap_calls, 1);
	EXPECT_EQ(ioremap_phys, 0x123400000ull);
	EXPECT_EQ(ioremap_len, 160 * 4 * 48);
	EXPECT(registered != NULL);
	EXPECT(strstr(last_msg, "fbcon: 160x48 32 bpp at 0x123400000, 20x3 characters") != NULL);
	char row[32];
	u32 fg = ref_pixel(&formats[0], FBCON_FG_RGB);
	read_row(row, buf, 160 * 4, 4, fg, 20, 0);
	EXPECT_STREQ(row, "[c0] early line");
	read_row(row, buf, 160 * 4, 4, fg, 20, 1);
	EXPECT_STREQ(row, "[c0] second");

	/* UEFI without a framebuffer, with and without a serial port */
	bi->has_framebuffer = false;
	bi->has_efi64 = true;
	ioremap_calls = 0;
	registered = NULL;
	last_msg[0] = 0;
	fbcon_init(bi, true);
	EXPECT_EQ(ioremap_calls, 0);
	EXPECT(registered == NULL);
	EXPECT(strstr(last_msg, "no framebuffer console") != NULL);
	last_msg[0] = 0;
	fbcon_init(bi, false);
	EXPECT(strstr(last_msg, "no serial port and no screen") != NULL);
	EXPECT(strstr(last_msg, "memory log") != NULL);

	/* a description too large to map is refused before ioremap */
	bi->has_framebuffer = true;
	bi->fb.pitch = 1u << 20;
	bi->fb.height = 1u << 12;
	last_msg[0] = 0;
	fbcon_init(bi, true);
	EXPECT_EQ(ioremap_calls, 0);
	EXPECT(strstr(last_msg, "bad address or size") != NULL);

	/* a framebuffer at physical 0 is a broken description */
	bi->fb = make_fb(&formats[0], 160, 48, 160 * 4);
	bi->fb.addr = 0;
	last_msg[0] = 0;
	fbcon_init(bi, true);
	EXPECT_EQ(ioremap_calls, 0);
	EXPECT(strstr(last_msg, "bad address or size") != NULL);

	/* ioremap failing: said, not dereferenced */
	bi->fb = make_fb(&formats[0], 160, 48, 160 * 4);
	ioremap_buf = NULL;
	last_msg[0] = 0;
	fbcon_init(bi, true);
	EXPECT(strstr(last_msg, "cannot map the framebuffer") != NULL);
	EXPECT(registered == NULL);
	fake_log = "";
	free(bi);
}

static void multiboot2_keeps_colour_fields(void)
{
	struct mb m;
	u8 colours[6] = { 0, 8, 8, 8, 16, 8 };	/* BGR order */

	mb_init(&m);
	mb_framebuffer(&m, 0xc0000000, MB2_FRAMEBUFFER_RGB, colours, sizeof(colours));
	mb_end(&m);
	struct boot_info *bi = calloc(1, sizeof(*bi));
	EXPECT_EQ(mb2_parse(m.b, m.len, bi), 0);
	EXPECT(bi->has_framebuffer);
	EXPECT(bi->fb.has_rgb);
	EXPECT_EQ(bi->fb.red_pos, 0);
	EXPECT_EQ(bi->fb.blue_pos, 16);
	EXPECT_EQ(bi->fb.green_size, 8);
	free(bi);
}

/* The same bytes through kernel/fbcon.c and through fbcheck.py's model. */
static void fbcheck_model_agrees(void)
{
	const struct fmt *f = &formats[0];
	u32 w = 240, h = 160, pitch = w * 4;		/* 30x10, scroll 2 */
	u8 *buf = calloc(pitch, h);
	struct mb2_framebuffer fb = make_fb(f, w, h, pitch);
	ASSERT(fbcon_setup(buf, &fb) == 0);

	char text[8192];
	int n = snprintf(text, sizeof(text),
			 "[c0] fbcon: %ux%u 32 bpp at 0xfd000000, 30x10 characters\n", w, h);
	for (int i = 0; i < 23; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "[c%d] line %d\twith a tab, long enough to wrap past thirty%s\r\n",
			      i % 3, i, i % 5 == 0 ? " \x01\x7f" : (i % 7 == 0 ? "\b!" : ""));
	n += snprintf(text + n, sizeof(text) - n, "exactly thirty characters....\nend\n");
	fbcon_write(text, (size_t)n);

	const char *log = "build/fbcheck-model.log", *ppm = "build/fbcheck-model.ppm";
	FILE *fl = fopen(log, "wb"), *fp = fopen(ppm, "wb");
	ASSERT(fl && fp);
	fwrite("firmware noise\r\n", 1, 16, fl);
	fwrite(text, 1, (size_t)n, fl);
	fclose(fl);
	fprintf(fp, "P6\n%u %u\n255\n", w, h);
	for (u32 i = 0; i < w * h; i++) {
		u32 v = get_px(buf + i * 4, 4);
		u8 rgb[3] = { (u8)(v >> 16), (u8)(v >> 8), (u8)v };
		fwrite(rgb, 1, 3, fp);
	}
	fclose(fp);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "python3 %s/tests/fbcheck.py --ppm %s --log %s",
		 ROOT_DIR, ppm, log);
	EXPECT_EQ(system(cmd), 0);

	/* and it can fail: one pixel off */
	fp = fopen(ppm, "r+b");
	ASSERT(fp);
	fseek(fp, -(long)(3 * (w * 150 + 5)), SEEK_END);
	u8 lit[3] = { 0xaa, 0xaa, 0xaa };
	fwrite(lit, 1, 3, fp);
	fclose(fp);
	int r = system(cmd);
	EXPECT(r != 0);
	free(buf);
}

int main(void)
{
	RUN(each_format_draws_exactly);
	RUN(wraps_and_scrolls);
	RUN(unknown_bytes_show_a_box);
	RUN(vga_text_layout);
	RUN(bad_descriptions_refused);
	RUN(init_replays_the_log);
	RUN(multiboot2_keeps_colour_fields);
	RUN(fbcheck_model_agrees);
	return ktest_summary();
}
