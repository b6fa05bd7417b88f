/* kernel/profile_test.c: the test build's hooks into the NMI profiler
 * (tests/kernel/test_profile.c), compiled only with CONFIG_SANITIZE: the
 * grace-period wait the updaters use, a delay inside the NMI reader (to
 * widen the window a broken grace period leaves open), and a quarantine
 * that keeps retired buffers poisoned for checking instead of freeing them.
 */
#ifdef CONFIG_SANITIZE
#include "kernel/profile_internal.h"
#include "kernel/slab.h"
#include "kernel/string.h"

#define POISON_BYTE 0x6b
#define QUARANTINE_MAX 64

void (*profile_sync)(void) = synchronize_sched;
unsigned int profile_reader_delay_ns;

static bool quarantine_on;
static u8 *quarantine[QUARANTINE_MAX];
static size_t quarantine_len[QUARANTINE_MAX], quarantine_head[QUARANTINE_MAX];
static int quarantine_n;
static unsigned long quarantine_dirty;

static bool poison_intact(const u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != POISON_BYTE)
			return false;
	return true;
}

/*
 * The quarantine's own kfree() must be safe even while a test runs the
 * busted grace period: a real grace period first, so no NMI (an RCU-sched
 * reader) and no preemptible sampler still holds any of these buffers.
 * One synchronize_rcu() covers both kinds of reader (rcu/rcupdate.h: one
 * grace-period machine serves both flavours).  A write that landed before
 * it is still seen as dirt.
 */
static void quarantine_scan(void)
{
	synchronize_rcu();
	for (int i = 0; i < quarantine_n; i++) {
		u8 *g = quarantine[i];

		/* The header was kept for late readers; no reader writes it. */
		memset(g, POISON_BYTE, quarantine_head[i]);
		if (!poison_intact(g, quarantine_len[i]))
			quarantine_dirty++;
		kfree(g);
	}
	quarantine_n = 0;
}

/*
 * Called with profile_mutex held after the updater's grace period, for a
 * buffer of len bytes whose first head bytes are its header (guard word,
 * size, shift).  All but the header is poisoned: a reader the busted
 * grace period lets in late then computes a sane index and its write
 * lands in the poisoned entries, where the scan sees it; a poisoned shift
 * would be undefined behaviour of its own.
 */
bool profile_quarantine_retire(void *g, size_t len, size_t head)
{
	if (!quarantine_on)
		return false;
	if (quarantine_n == QUARANTINE_MAX)
		quarantine_scan();
	memset(g, POISON_BYTE, sizeof(u64));	/* the low guard word */
	memset((u8 *)g + head, POISON_BYTE, len - head);
	quarantine[quarantine_n] = g;
	quarantine_len[quarantine_n] = len;
	quarantine_head[quarantine_n++] = head;
	return true;
}

void profile_quarantine(bool on)
{
	mutex_lock(&profile_mutex);
	quarantine_on = on;
	mutex_unlock(&profile_mutex);
}

unsigned long profile_quarantine_check(void)
{
	mutex_lock(&profile_mutex);
	quarantine_scan();
	unsigned long dirty = quarantine_dirty;
	quarantine_dirty = 0;
	mutex_unlock(&profile_mutex);
	return dirty;
}
#endif /* CONFIG_SANITIZE */
