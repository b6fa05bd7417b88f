/*
 * kernel/spinlock.c - spinlock slow paths and the debug reports.
 *
 * The fast paths are inline in kernel/spinlock.h; this file waits for a
 * ticket with a watchdog ("held far too long": names the holder CPU and
 * asks that CPU for its backtrace by NMI), and prints the BUG reports for
 * recursion, unlock of a lock not held, and a freed (poisoned) lock.
 * Every report counts in a counter so the tests can check it happened.
 */
#include "kernel/spinlock.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"

atomic_t spinlock_bugs = ATOMIC_INIT(0);
atomic_t spinlock_lockups = ATOMIC_INIT(0);
atomic_t raw_spinlock_lockups = ATOMIC_INIT(0);
atomic_t spinlock_holder_not_running = ATOMIC_INIT(0);
int spinlock_last_lockup_holder = -1;

/*
 * Long enough that a vCPU descheduled by the host (QEMU TCG with more
 * vCPUs than cores) does not trip it, short enough to be seen.
 */
unsigned int spinlock_timeout_ms = 5000;
core_param(spinlock.timeout_ms, spinlock_timeout_ms, uint,
	   "report a spinlock waited on longer than this (ms)");

static const void *watched_lock;
static unsigned int watched_ms;

void spin_lockup_watch(const void *lock, unsigned int ms)
{
	WRITE_ONCE(watched_ms, ms);
	smp_wmb();	/* a waiter that sees the lock sees its limit */
	WRITE_ONCE(watched_lock, lock);
}

u64 spin_lockup_limit_ns(const void *lock)
{
	unsigned int ms = READ_ONCE(spinlock_timeout_ms);

	if (lock && lock == READ_ONCE(watched_lock)) {
		smp_rmb();
		ms = READ_ONCE(watched_ms);
	}
	return (u64)ms * 1000000ull;
}

static void spin_dump(spinlock_t *l, const char *msg)
{
	int cpu = smp_processor_id();

	printk(KERN_ERR "BUG: spinlock %s on CPU#%d, lock %s (%p), owner CPU#%d, "
	       "ticket owner/next %u/%u, magic %08x\n", msg, cpu,
	       l->name ? l->name : "?", (void *)l, spin_owner_cpu(l),
	       (unsigned)__atomic_load_n(&l->raw.owner, __ATOMIC_RELAXED),
	       (unsigned)__atomic_load_n(&l->raw.next, __ATOMIC_RELAXED),
	       l->magic);
	dump_stack();
	atomic_inc(&spinlock_bugs);
}

/*
 * Magic 0 is a zeroed lock (kzalloc'd, never spin_lock_init'ed): the
 * layout makes that a valid unlocked lock, so it is accepted quietly.
 * Anything else is a freed or scribbled lock: refuse to touch it.
 */
bool spin_bug_magic(spinlock_t *l)
{
	if (l->magic == 0)
		return false;
	spin_dump(l, "bad magic");
	return true;
}

bool spin_bug_recursion(spinlock_t *l)
{
	spin_dump(l, "recursion");
	l->recursion++;
	return true;
}

/*
 * Never releases: releasing a ticket lock that is not held (or is held by
 * another CPU) would push `owner` past `next` or let two CPUs in, breaking
 * the lock for good.  Returns whether the caller's preempt_enable() pairs
 * with a real preempt_disable(): only for the inner half of a reported
 * recursion.
 */
bool spin_bug_unlock(spinlock_t *l)
{
	if (l->magic != SPINLOCK_MAGIC && l->magic != 0) {
		spin_dump(l, "bad magic at unlock");
		return true;	/* the refused lock did count */
	}
	if (l->recursion && spin_owner_cpu(l) == smp_processor_id()) {
		l->recursion--;
		return true;
	}
	if (!arch_spin_is_locked(&l->raw))
		spin_dump(l, "already unlocked");
	else
		spin_dump(l, "unlocked on the wrong CPU (not held here)");
	return false;
}

/*
 * Whether this machine's spinlocks are test-and-set (virt_spin_lock()):
 * -1 (auto) means so under a hypervisor.  Off until spin_lock_setup(), so
 * the host tests and early boot use the tickets.
 */
bool virt_spin_lock_enabled;
static int spinlock_virt = -1;
core_param(spinlock.virt, spinlock_virt, int,
	   "spinlocks test-and-set (1) or FIFO tickets (0); -1: test-and-set under a hypervisor");

void spin_lock_setup(bool under_hypervisor)
{
	bool on = spinlock_virt < 0 ? under_hypervisor : spinlock_virt != 0;

	__atomic_store_n(&virt_spin_lock_enabled, on, __ATOMIC_RELAXED);
	printk(KERN_INFO "spinlock: %s\n", on ? "test-and-set (virt_spin_lock: hypervisor)"
					      : "FIFO tickets");
}

/*
 * The holder has kept the lock past the limit, but is it running?  A
 * holder that takes no NMI for a second is not: under a hypervisor its
 * vCPU is not being run (QEMU TCG with many more vCPUs than host cores
 * can leave one unrun for seconds).  That is said once per wait, without
 * "BUG:", and the clock starts again; a holder that runs and still keeps
 * the lock is the lockup.
 */
bool lockup_holder_not_running(int holder, const char *kind, const void *lock, bool *said)
{
	if (holder < 0 || cpu_answers_nmi(holder))
		return false;
	if (!*said)
		printk(KERN_WARNING "spinlock: CPU#%d waits on %s %p held by CPU#%d past %u ms, "
		       "but CPU#%d takes no NMI: not run by the host? waiting on\n",
		       smp_processor_id(), kind, lock, holder,
		       (unsigned)(spin_lockup_limit_ns(lock) / 1000000), holder);
	*said = true;
	atomic_inc(&spinlock_holder_not_running);
	return true;
}

/* One report per wait: the spinlock_t names its holder and asks it alone. */
static void spin_lockup_report(spinlock_t *l)
{
	int holder = spin_owner_cpu(l);

	__atomic_store_n(&spinlock_last_lockup_holder, holder, __ATOMIC_RELAXED);
	printk(KERN_ERR "BUG: spinlock lockup suspected on CPU#%d, "
	       "lock %s (%p) held by CPU#%d for more than %u ms\n",
	       smp_processor_id(), l->name ? l->name : "?",
	       (void *)l, holder, (unsigned)(spin_lockup_limit_ns(l) / 1000000));
	dump_stack();
	if (holder >= 0 && holder != smp_processor_id())
		trigger_cpu_backtrace(holder);
	atomic_inc(&spinlock_lockups);
}

/*
 * A bare arch_spinlock_t (a run queue's, a timer base's) records no
 * holder: every CPU is asked for its backtrace, one of them holds it.
 */
static void raw_spin_lockup_report(arch_spinlock_t *raw)
{
	printk(KERN_ERR "BUG: raw spinlock lockup suspected on CPU#%d, lock %p "
	       "(ticket owner/next %u/%u) not free for more than %u ms; "
	       "backtraces of all CPUs follow\n", smp_processor_id(), (void *)raw,
	       (unsigned)__atomic_load_n(&raw->owner, __ATOMIC_RELAXED),
	       (unsigned)__atomic_load_n(&raw->next, __ATOMIC_RELAXED),
	       (unsigned)(spin_lockup_limit_ns(raw) / 1000000));
	dump_stack();
	trigger_all_cpu_backtrace();
	atomic_inc(&raw_spinlock_lockups);
}

/* Our turn: the ticket is being served, or (ticket < 0) the lock was free and we took it. */
static bool lock_got(arch_spinlock_t *raw, int ticket, u16 served)
{
	if (ticket >= 0)
		return served == (u16)ticket;
	return served == __atomic_load_n(&raw->next, __ATOMIC_RELAXED) &&
	       __arch_spin_trylock(raw);
}

/*
 * Wait for our ticket, or for a free lock to take.  The clock is read
 * only every 1024 spins, and a clock that does not run yet (early boot)
 * just disables the watchdog.  The clock restarts whenever the ticket
 * being served moves on: a long queue of waiters that each hold it
 * briefly is contention, not a lockup (with more vCPUs than host cores
 * every ticket handoff waits for the host to run the next waiter, and 16
 * of them took a waiter past 5 s).  What is reported is one holder
 * keeping it for spinlock.timeout_ms.  One report per wait; the wait goes
 * on, since giving up a ticket would wedge every later waiter.  l is the
 * spinlock_t around raw, or NULL for a bare one.
 */
static void lock_wait(arch_spinlock_t *raw, int ticket, spinlock_t *l)
{
	u64 start = 0, limit = spin_lockup_limit_ns(l ? (const void *)l : raw);
	unsigned long spins = 0;
	bool reported = false;
	u16 served = 0, now_served;
	bool said = false;

	while (!lock_got(raw, ticket,
			 now_served = __atomic_load_n(&raw->owner, __ATOMIC_ACQUIRE))) {
		cpu_relax();
		if (reported || (++spins & 1023))
			continue;
		u64 now = ktime_get_ns();
		if (!start || now_served != served) {
			start = now;
			served = now_served;
			continue;
		}
		if (limit && now - start > limit) {
			if (l && lockup_holder_not_running(spin_owner_cpu(l), "lock", l, &said)) {
				start = ktime_get_ns();
				continue;
			}
			reported = true;
			if (l)
				spin_lockup_report(l);
			else
				raw_spin_lockup_report(raw);
		}
	}
}

void spin_lock_wait(spinlock_t *l, int ticket)
{
	lock_wait(&l->raw, ticket, l);
}

void arch_spin_lock_wait(arch_spinlock_t *l, int ticket)
{
	lock_wait(l, ticket, NULL);
}
