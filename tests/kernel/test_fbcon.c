/* tests/kernel/test_fbcon.c: KTAP suite `fbcon`, the framebuffer console
 * (kernel/fbcon.c) on the screen GRUB set up: its geometry, every glyph
 * of the font drawn and read back from video memory, and scrolling.
 * tests/fbcheck.py also compares QEMU's dump of this screen with the
 * serial log, pixel for pixel, from the host side. */
#include "kernel/ktap.h"
#include "kernel/fbcon.h"
#include "kernel/font.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "arch/x86_64/paging.h"

/* tests/qemu-configs sets this: the host dumps the screen while we wait. */
static unsigned int hold_ms;
core_param(fbcon.hold_ms, hold_ms, uint,
	   "test: after the fbcon suite's checks, print a marker and keep the screen still this long (tests/fbcheck.py dumps it)");

static bool have_screen(struct fbcon_info *fi)
{
	if (fbcon_get_info(fi))
		return true;
	ktap_skip("no framebuffer console on this machine");
	return false;
}

static void fbcon_geometry(void)
{
	struct fbcon_info fi;

	if (!have_screen(&fi))
		return;
	ktap_log("%s %ux%u, %u bpp, pitch %u at 0x%lx: %ux%u characters, scroll %u",
		 fi.kind == FBCON_VGA_TEXT ? "VGA text" : "pixels",
		 fi.width, fi.height, fi.bpp, fi.pitch, (unsigned long)fi.phys,
		 fi.cols, fi.rows, fbcon_scroll_lines(fi.rows));
	KTAP_EXPECT(fi.cols >= 1 && fi.cols <= FBCON_MAX_COLS);
	KTAP_EXPECT(fi.rows >= 1 && fi.rows <= FBCON_MAX_ROWS);
	KTAP_EXPECT(fi.cy < fi.rows);
	KTAP_EXPECT(fi.cx <= fi.cols);
	if (fi.kind == FBCON_PIXELS)
		KTAP_EXPECT(fi.cols == MIN(fi.width / FONT_WIDTH, (u32)FBCON_MAX_COLS));
}

/* Every printable character, so a wrong glyph shows as a wrong cell. */
static void fbcon_all_glyphs(void)
{
	struct fbcon_info fi;
	char line[48];

	if (!have_screen(&fi))
		return;
	for (int c = FONT_FIRST; c <= FONT_LAST; c += 32) {
		int n = 0;
		for (int k = c; k < c + 32 && k <= FONT_LAST; k++)
			line[n++] = (char)k;
		line[n] = 0;
		ktap_log("glyphs: %s", line);
	}
	unsigned long bad = fbcon_verify();
	if (bad)
		ktap_fail("%lu cells on screen differ from their glyphs", bad);
}

/* More lines than the screen has: the text must scroll, not run off. */
static void fbcon_scrolls(void)
{
	struct fbcon_info before, after;

	if (!have_screen(&before))
		return;
	for (u32 i = 0; i <= before.rows; i++)
		ktap_log("scroll line %u of %u", i + 1, before.rows + 1);
	fbcon_get_info(&after);
	KTAP_EXPECT(after.cy < after.rows);
	/* after a scroll, the cursor is at most a scroll's worth from the end */
	KTAP_EXPECT(after.cy + fbcon_scroll_lines(after.rows) >= after.rows - 1);
	unsigned long bad = fbcon_verify();
	if (bad)
		ktap_fail("%lu cells differ after scrolling", bad);
	u64 count, cycles, max;

	fbcon_scroll_stats(&count, &cycles, &max);
	KTAP_EXPECT(count > 0);
	if (count)
		ktap_log("bench name=fbcon_scroll cpus=1 width=%u height=%u bpp=%u scrolls=%llu mean_us=%llu max_us=%llu",
			 after.width, after.height, after.bpp, (unsigned long long)count,
			 (unsigned long long)(cycles_to_ns(cycles / count) / 1000),
			 (unsigned long long)(cycles_to_ns(max) / 1000));
}

/* The memory type the CPU uses for the screen, from its page entry and
 * the PAT: write-combining for pixels (uncached, every glyph's 128 stores
 * are one bus transaction each, inside the console lock with irqs off),
 * uncached for the tiny VGA text buffer.  QEMU ignores the type, but the
 * entry is the one a PC would use. */
static void fbcon_mapped_write_combining(void)
{
	struct fbcon_info fi;
	int level;

	if (!have_screen(&fi))
		return;
	u64 pte = paging_lookup((u64)fi.base, &level);

	KTAP_ASSERT(pte != 0);
	if (!paging_features.pat) {
		KTAP_EXPECT(pte & PTE_PCD);
		ktap_skip("no PAT on this CPU: the screen is uncached");
		return;
	}
	/* PAT index: PAT bit (7 in a 4 KiB entry, 12 in a large one), PCD, PWT */
	unsigned int pat_bit = level == 1 ? 7 : 12;
	unsigned int idx = (unsigned int)(((pte >> pat_bit) & 1) << 2 | ((pte >> 4) & 1) << 1 |
					  ((pte >> 3) & 1));
	unsigned int type = (unsigned int)(paging_read_pat() >> (idx * 8)) & 7;

	ktap_log("screen mapped with PAT entry %u: memory type %u", idx, type);
	if (fi.kind == FBCON_VGA_TEXT)
		KTAP_EXPECT(type == 0 || type == 7);	/* UC or UC- */
	else
		KTAP_EXPECT_EQ(type, 1);		/* WC */
}

/* Last, so the screen holds every line above when the host looks. */
static void fbcon_hold_for_dump(void)
{
	struct fbcon_info fi;

	if (!have_screen(&fi))
		return;
	if (!hold_ms) {
		ktap_skip("no host screen dump asked for (fbcon.hold_ms=0)");
		return;
	}
	ktap_log("fbcon: screen ready for a dump, holding %u ms", hold_ms);
	mdelay(hold_ms);
}

KTAP_SUITE(fbcon,
	   KTAP_CASE(fbcon_geometry),
	   KTAP_CASE(fbcon_mapped_write_combining),
	   KTAP_CASE(fbcon_scrolls),
	   KTAP_CASE(fbcon_all_glyphs),	/* after the scroll: still on screen */
	   KTAP_CASE_TIMEOUT(fbcon_hold_for_dump, 120000));
