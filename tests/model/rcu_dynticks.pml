/*
 * tests/model/rcu_dynticks.pml - Promela model of RCU-sched's per-CPU
 * idle/NMI counter (Linux's dynticks, rcu/tree.c) and of quiescent-state
 * reporting up one level of the rcu_node tree, checked with spin
 * (tests/model/check.sh).  README.md maps every step to its C line.
 *
 * Property (assert in the GP kthread, at the store that ends a grace
 * period): no reader that was running when the grace period started is
 * still running.  Readers: a task's preempt-disabled section, and the
 * body of every irq and NMI handler, including one that arrived in idle.
 *
 * Shape: NCPU CPUs, each a task (busy: readers, ticks, context-switch
 * QSes; or the idle loop); the first NHCPU of them also take an irq
 * handler and an NMI handler that may arrive at any step the C code would
 * allow (the irq only with irqs on, the NMI anywhere, also inside the
 * irq: nested entry).  CPUs NHCPU..NACTIVE-1 run readers and ticks (their
 * reports climb the tree from the CPU side); CPUs from NACTIVE on stay idle
 * (the scan reports them).  make test: NCPU=3 NHCPU=1 NACTIVE=2, i.e. one
 * CPU with nested irq/NMI entry and idle, one busy CPU in the same leaf,
 * an idle CPU in the other leaf; make verify: every CPU busy.  Two leaves under
 * a root.  The GP kthread runs MAXGP grace periods.  Each C statement
 * that touches shared state is one atomic step (a single load, store or
 * locked RMW, or one lock-held section); sequential consistency stands in
 * for the full barriers the C code places around each counter update,
 * so a mutant that moves a counter update is what a missing barrier
 * would allow.
 *
 * Mutants (cpp: spin -DMUTANT=n), each must make spin find a violation:
 *   1  rcu_nmi_enter(): the counter increment that makes an idle CPU
 *      visible comes after the handler has begun reading.
 *   2  rcu_nmi_exit(): the counter goes back to even before the
 *      handler's last read.
 *   3  force_qs_rnp(): the later passes credit a CPU whose counter is
 *      odd instead of one whose counter moved since the first pass (the
 *      snapshot comparison removed); and rcu_idle_enter() clears the
 *      nesting after the increment instead of before.
 */
#ifndef NCPU
#define NCPU 3
#endif
#ifndef MAXGP
#define MAXGP 2
#endif
#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef NHCPU
#define NHCPU 1			/* CPUs 0..NHCPU-1 take irqs and NMIs */
#endif
#ifndef NACTIVE
#define NACTIVE 2		/* CPUs NACTIVE..NCPU-1 stay idle throughout */
#endif
#define NONIDLE 4		/* DYNTICK_IRQ_NONIDLE: even, above any depth from idle (3) */
#define DYNMOD 4		/* the counter, modulo (a wrap only hides changes) */
#define LEAF(c) ((c) / 2)	/* leaf 0: CPUs 0-1, leaf 1: CPUs 2-3 */
#define BIT(c) (1 << ((c) % 2))
#define NLEVEL 3		/* reader slots per CPU: task, irq, NMI */

byte dynticks[NCPU];
byte nesting[NCPU];
byte depth[NCPU];		/* 0 task runs, 1 first handler, 2 NMI in irq */
bool irqs_on[NCPU];
bool nmi_on[NCPU];		/* NMIs do not nest in NMIs */

/* Ghost: readers running, and which of them predate the current GP. */
bool reading[NCPU * NLEVEL];
bool pre[NCPU * NLEVEL];

/* rcu_data */
byte cpu_gp[NCPU];
bool cpu_no_qs[NCPU];
byte dyn_snap[NCPU];
/* rcu_node: two leaves and a root */
byte leaf_mask[2];
byte leaf_gp[2];
byte root_mask;
byte gp_seq;
byte gps_done;

inline reader_begin(c, l) {
	reading[(c) * NLEVEL + (l)] = 1;
	pre[(c) * NLEVEL + (l)] = 0
}

inline reader_end(c, l) {
	reading[(c) * NLEVEL + (l)] = 0;
	pre[(c) * NLEVEL + (l)] = 0
}

/* __note_gp_changes(), leaf lock held */
inline note_gp(c) {
	if
	:: cpu_gp[c] != leaf_gp[LEAF(c)] ->
		cpu_gp[c] = leaf_gp[LEAF(c)];
		if
		:: (cpu_gp[c] % 2) == 1 -> cpu_no_qs[c] = ((leaf_mask[LEAF(c)] & BIT(c)) != 0)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/*
 * The scheduling-clock tick on CPU c (irqs off, so one step for the
 * leaf-lock part): note_gp_changes(), a QS iff it interrupted no reader
 * (rcu_sched_clock_irq()), rcu_report_qs_rdp(); then the report carried
 * up one level under the root's lock (rcu_report_qs_rnp()).
 */
inline tick(c) {
	atomic { depth[c] == 0 ->
		note_gp(c);
		if
		:: !reading[c * NLEVEL] -> cpu_no_qs[c] = 0
		:: else -> skip
		fi;
		carry = 0;
		if
		:: !cpu_no_qs[c] && cpu_gp[c] == leaf_gp[LEAF(c)] &&
		   (leaf_mask[LEAF(c)] & BIT(c)) ->
			leaf_mask[LEAF(c)] = leaf_mask[LEAF(c)] & ~BIT(c);
			carry = (leaf_mask[LEAF(c)] == 0)
		:: else -> skip
		fi };
	if
	:: carry -> atomic { depth[c] == 0 -> root_mask = root_mask & ~(1 << LEAF(c)); carry = 0 }
	:: else -> skip
	fi
}

/*
 * The task on a CPU that takes interrupts: busy (outside readers) or in
 * the idle loop; its readers are its irq and NMI handlers, and its
 * quiescent states reach the tree only through the GP kthread's scan of
 * its counter (the protocol under test).  -DTICKS_EVERYWHERE adds task
 * readers and ticks on it too (a bigger state space: make verify).  Every step waits for
 * the handlers on this CPU to return (depth 0).
 */
proctype task(byte c)
{
	bool carry;

	do
#ifdef TICKS_EVERYWHERE
	:: atomic { depth[c] == 0 && !reading[c * NLEVEL] -> reader_begin(c, 0) }
	:: atomic { depth[c] == 0 && reading[c * NLEVEL] -> reader_end(c, 0) }
	:: tick(c)
#endif
	:: atomic { depth[c] == 0 && !reading[c * NLEVEL] -> irqs_on[c] = 0 };
		/* rcu_idle_enter() */
#if MUTANT != 3
		atomic { depth[c] == 0 -> nesting[c] = 0 };
#endif
		atomic { depth[c] == 0 -> dynticks[c] = (dynticks[c] + 1) % DYNMOD };
#if MUTANT == 3
		atomic { depth[c] == 0 -> nesting[c] = 0 };
#endif
		/* arch_safe_halt(): interrupts may arrive */
		atomic { depth[c] == 0 -> irqs_on[c] = 1 };
		atomic { depth[c] == 0 -> irqs_on[c] = 0 };
		/* rcu_idle_exit() */
		atomic { depth[c] == 0 -> dynticks[c] = (dynticks[c] + 1) % DYNMOD };
		atomic { depth[c] == 0 -> nesting[c] = NONIDLE; irqs_on[c] = 1 }
	od
}

/*
 * A CPU that takes no irqs or NMIs (nothing reads its nesting): readers
 * and ticks, so its QS climbs the tree from the CPU side; -DPLAIN_IDLE
 * lets it go idle too (make verify).
 */
proctype task_plain(byte c)
{
	bool carry;

	do
	:: atomic { !reading[c * NLEVEL] -> reader_begin(c, 0) }
	:: atomic { reading[c * NLEVEL] -> reader_end(c, 0) }
	:: tick(c)
#ifdef PLAIN_IDLE
	:: atomic { !reading[c * NLEVEL] -> dynticks[c] = (dynticks[c] + 1) % DYNMOD };	/* idle */
		dynticks[c] = (dynticks[c] + 1) % DYNMOD	/* and back */
#endif
	od
}

/*
 * An irq (kind 1: only with irqs on, never nested) or NMI (kind 2: any
 * time, also inside the irq) on CPU c: rcu_nmi_enter(), a reader,
 * rcu_nmi_exit().  Its steps run only while it is the innermost level.
 */
proctype handler(byte c; byte kind)
{
	byte lvl, t;
	bool from_idle;

	do
	:: atomic {
		((kind == 1 && irqs_on[c] && depth[c] == 0) ||
		 (kind == 2 && !nmi_on[c])) ->
			depth[c]++;
			lvl = depth[c];
			if
			:: kind == 2 -> nmi_on[c] = 1
			:: else -> skip
			fi
		};
		/* rcu_nmi_enter(): is the CPU idle (counter even)? */
		atomic { depth[c] == lvl ->
			from_idle = ((dynticks[c] % 2) == 0);
#if MUTANT == 1
			reader_begin(c, kind);	/* reads before the CPU is visible */
#endif
			skip };
		/* ... then make it visible: atomic_inc_return() */
		if
		:: from_idle -> atomic { depth[c] == lvl -> dynticks[c] = (dynticks[c] + 1) % DYNMOD }
		:: else -> skip
		fi;
		/* nesting re-read after the increment, then stepped by 1 or 2 */
		atomic { depth[c] == lvl -> t = nesting[c] };
		atomic { depth[c] == lvl ->
			if
			:: from_idle -> nesting[c] = t + 1
			:: else -> nesting[c] = t + 2
			fi;
			t = 0;
			from_idle = 0;
#if MUTANT != 1
			reader_begin(c, kind);	/* the handler's body reads from here */
#endif
			skip };
		/* rcu_nmi_exit(): the body's last read, then the nesting read */
		atomic { depth[c] == lvl ->
#if MUTANT != 2
			reader_end(c, kind);
#endif
			t = nesting[c] };
		if
		:: t != 1 -> atomic { depth[c] == lvl -> nesting[c] = t - 2; t = 0 }
		:: else ->
			atomic { depth[c] == lvl -> nesting[c] = 0; t = 0 };
			atomic { depth[c] == lvl -> dynticks[c] = (dynticks[c] + 1) % DYNMOD }
		fi;
		atomic { depth[c] == lvl ->
#if MUTANT == 2
			reader_end(c, kind);	/* read after the CPU went back to idle */
#endif
			depth[c]--;
			lvl = 0;
			if
			:: kind == 2 -> nmi_on[c] = 0
			:: else -> skip
			fi }
	od
}

/* The grace-period kthread: rcu_gp_init(), rcu_gp_fqs_loop(), rcu_gp_cleanup(). */
proctype gp_kthread()
{
	byte c, s, i;
	bool first, carry;

	do
	:: gps_done < MAXGP ->
		/* rcu_gp_init(): the start; every reader running now predates it */
		atomic {
			gp_seq = gp_seq + 1;
			i = 0;
			do
			:: i < NCPU * NLEVEL -> pre[i] = reading[i]; i++
			:: else -> break
			od;
			i = 0
		};
		atomic { root_mask = (NCPU > 2 -> 3 : 1) };
		atomic { leaf_mask[0] = (NCPU > 1 -> 3 : 1); leaf_gp[0] = gp_seq };
		atomic { leaf_mask[1] = (NCPU > 3 -> 3 : (NCPU > 2 -> 1 : 0)); leaf_gp[1] = gp_seq };
		first = 1;
		do
		:: root_mask == 0 -> break
		:: root_mask != 0 ->
			/* force_qs_rnp(): per CPU, under its leaf's lock */
			c = 0;
			do
			:: c < NCPU ->
				atomic {
					carry = 0;
					if
					:: leaf_mask[LEAF(c)] & BIT(c) ->
						s = dynticks[c];
						if
#if MUTANT == 3
						:: (s % 2) == 0 || (!first && (s % 2) == 1) ->
#else
						:: (s % 2) == 0 || (!first && s != dyn_snap[c]) ->
#endif
							leaf_mask[LEAF(c)] = leaf_mask[LEAF(c)] & ~BIT(c);
							carry = (leaf_mask[LEAF(c)] == 0)
						:: else -> skip
						fi;
						if
						:: first -> dyn_snap[c] = s
						:: else -> skip
						fi;
						s = 0
					:: else -> skip
					fi
				};
				/* rcu_report_qs_rnp(): one level up, root lock */
				if
				:: carry -> atomic { root_mask = root_mask & ~(1 << LEAF(c)); carry = 0 }
				:: else -> skip
				fi;
				c++
			:: else -> break
			od;
			c = 0;
			first = 0
		od;
		first = 0;
		/* rcu_gp_cleanup(): the leaves learn the end first, then gp_seq */
		atomic { leaf_gp[0] = gp_seq + 1 };
		atomic { leaf_gp[1] = gp_seq + 1 };
		atomic {
			i = 0;
			do
			:: i < NCPU * NLEVEL ->
				assert(!pre[i]);	/* a pre-existing reader still runs */
				i++
			:: else -> break
			od;
			i = 0;
			gp_seq = gp_seq + 1;
			gps_done++
		}
	:: else -> break
	od
}

init {
	byte c;

	atomic {
		c = 0;
		do
		:: c < NCPU ->
			dynticks[c] = 1;
			nesting[c] = NONIDLE;
			irqs_on[c] = 1;
			if
			:: c < NHCPU -> run task(c); run handler(c, 1); run handler(c, 2)
			:: c >= NHCPU && c < NACTIVE -> run task_plain(c)
			:: else -> dynticks[c] = 0; nesting[c] = 0; irqs_on[c] = 0	/* idle */
			fi;
			c++
		:: else -> break
		od;
		run gp_kthread()
	}
}
