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
 * (the scan reports them).  check.sh's configurations (README.md): `one`
 * (NCPU=3 NHCPU=1 NACTIVE=2: one CPU with nested irq/NMI entry and idle,
 * one busy CPU in the same leaf, an idle CPU in the other leaf), `all2`
 * and `all3` (every CPU with nested irq/NMI entry and idle).  Two leaves
 * under a root.  The GP kthread runs MAXGP grace periods.  Each C statement
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
 *
 * CPU hotplug (-DNHOT=n: the last n active CPUs go offline and come back
 * at any step, kernel/cpu.c; configuration `hp`).  A second property,
 * asserted in the fqs scan: no grace period waits for a CPU that has
 * left qsmaskinitnext (it would wait forever; Linux's WARN in
 * rcu_implicit_dynticks_qs()).  Mutants of the qsmaskinit/qsmaskinitnext
 * handoff:
 *   4  rcu_cpu_starting(): the CPU's first reader begins before its bit
 *      is set in qsmaskinitnext.
 *   5  rcu_report_dead(): the bit is cleared (and the QS reported) before
 *      the outgoing CPU's last reader ends.
 *   6  rcu_gp_init(): no QS reported for CPUs that left between the
 *      qsmaskinit snapshot and the qsmask setting.
 *   7  no ofl_lock: the next grace period's first pass may copy the bit
 *      between rcu_report_dead()'s QS report (which may end the grace
 *      period) and the bit leaving qsmaskinitnext (needs two GPs).
 *
 * The idle entry's own QS report (IDLE_QS, on wherever the GP kthread is
 * not reduced: rcu_idle_enter() reports the CPU itself when its leaf still
 * waits for it after the counter increment).  A third property, asserted
 * at the halt: no CPU halts while a grace period whose scan read its
 * counter at task level (no handler running) still waits for it -- such
 * a CPU would be noticed only at the next timed scan, ticks later.
 * Mutants:
 *   8  rcu_idle_enter() asks whether the leaf waits before the increment.
 *   9  it asks once: a grace period that began during its report and read
 *      its counter then is not seen (needs two GPs).
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
#ifndef NHOT
#define NHOT 0			/* CPUs NACTIVE-NHOT..NACTIVE-1 go offline and back */
#endif
#if NHCPU >= NACTIVE && !defined(TICKS_EVERYWHERE) && NHOT == 0
#define NO_TICKS 1		/* no CPU ticks: reductions 3 and 4 may apply */
#else
#define NO_TICKS 0
#endif
#ifndef IDLE_QS
#define IDLE_QS (1 - NO_TICKS)	/* rcu_idle_enter()'s own QS report (see task) */
#endif
#define NONIDLE 4		/* DYNTICK_IRQ_NONIDLE: even, above any depth from idle (3) */
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
byte dyn_snap[NCPU];		/* 0 none, 1 snapshot taken, 2 taken and moved since */
bool scanned[NCPU];		/* ghost: this GP's scan read the counter at task level */
/* rcu_node: two leaves and a root */
byte leaf_mask[2];
byte leaf_gp[2];
byte root_mask;
#if NHOT > 0
byte leaf_init[2];		/* leaf rnp->qsmaskinit */
byte leaf_next[2];		/* leaf rnp->qsmaskinitnext */
bool ofl;			/* rcu_state.ofl_lock held */
#endif
byte gp_seq;
byte gps_done;

/*
 * atomic_inc_return(&rdp->dynticks): dynticks[c] is the counter's parity
 * (1: not idle), dyn_snap[c] whether it moved since the GP kthread's
 * snapshot -- all that rcu_dynticks_in_eqs() and `snap !=
 * rdp->dynticks_snap` ask of the 32-bit counter (README.md "Reductions").
 */
inline dyn_inc(c) {
	dynticks[c] = 1 - dynticks[c];
	if
	:: dyn_snap[c] == 1 -> dyn_snap[c] = 2
	:: else -> skip
	fi
}

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
 * rcu_report_qs_here() from the idle task (outside every reader), irqs
 * off: the tick's steps without its reader test.
 */
inline qs_here(c) {
	atomic { depth[c] == 0 ->
		note_gp(c);
		cpu_no_qs[c] = 0;
		carry = 0;
		if
		:: cpu_gp[c] == leaf_gp[LEAF(c)] && (leaf_mask[LEAF(c)] & BIT(c)) ->
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
	bool carry, w;

	do
#ifdef TICKS_EVERYWHERE
	:: atomic { depth[c] == 0 && !reading[c * NLEVEL] -> reader_begin(c, 0) }
	:: atomic { depth[c] == 0 && reading[c * NLEVEL] -> reader_end(c, 0) }
	:: tick(c)
#endif
	:: atomic { depth[c] == 0 && !reading[c * NLEVEL] -> irqs_on[c] = 0 };
		/* rcu_idle_enter() */
#if IDLE_QS && MUTANT == 8
		/* does the leaf still wait for this CPU? asked before the increment */
		atomic { depth[c] == 0 -> w = ((leaf_gp[LEAF(c)] % 2) == 1 && (leaf_mask[LEAF(c)] & BIT(c))) };
#endif
#if MUTANT != 3
		atomic { depth[c] == 0 -> nesting[c] = 0 };
#endif
		atomic { depth[c] == 0 -> dyn_inc(c) };
#if MUTANT == 3
		atomic { depth[c] == 0 -> nesting[c] = 0 };
#endif
#if IDLE_QS
#if MUTANT != 8
		/* rcu_gp_waits_here(), after the increment */
		atomic { depth[c] == 0 -> w = ((leaf_gp[LEAF(c)] % 2) == 1 && (leaf_mask[LEAF(c)] & BIT(c))) };
#endif
		do
		:: w ->
			/* rcu_eqs_exit(), rcu_report_qs_here(), rcu_eqs_enter() */
			atomic { depth[c] == 0 -> dyn_inc(c); w = 0 };
			atomic { depth[c] == 0 -> nesting[c] = NONIDLE };
			qs_here(c);
			atomic { depth[c] == 0 -> nesting[c] = 0 };
			atomic { depth[c] == 0 -> dyn_inc(c) }
#if MUTANT != 9
			/* again: a GP that began since may have read the counter odd */
			; atomic { depth[c] == 0 ->
				w = ((leaf_gp[LEAF(c)] % 2) == 1 && (leaf_mask[LEAF(c)] & BIT(c))) }
#endif
		:: else -> break
		od;
#endif
		/* arch_safe_halt(): interrupts may arrive */
		atomic { depth[c] == 0 ->
#if IDLE_QS
			/* no GP that read this counter at task level waits for this halt */
			assert(!(scanned[c] && (leaf_mask[LEAF(c)] & BIT(c))));
#endif
			irqs_on[c] = 1 };
		atomic { depth[c] == 0 -> irqs_on[c] = 0 };
		/* rcu_idle_exit() */
		atomic { depth[c] == 0 -> dyn_inc(c) };
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
	:: atomic { !reading[c * NLEVEL] -> dyn_inc(c) };	/* idle */
		atomic { dyn_inc(c) }	/* and back */
#endif
	od
}

#if NHOT > 0
/*
 * A CPU that goes offline and comes back (kernel/cpu.c cpu_down() and
 * cpu_up()): online it runs readers and ticks like task_plain; going down,
 * its last reader ends, then rcu_report_dead() (leaf lock: report the QS
 * if the running GP awaits it, then drop the bit from qsmaskinitnext);
 * offline it runs nothing (play-dead, irqs off, its counter left odd, so
 * the GP kthread's scan can never credit it: only the handoff can);
 * coming up, rcu_cpu_starting() sets the bit and notes the leaf's GP
 * (leaf lock) before the CPU's first reader.
 */
proctype task_hp(byte c)
{
	bool carry;

	do
	:: atomic { !reading[c * NLEVEL] -> reader_begin(c, 0) }
	:: atomic { reading[c * NLEVEL] -> reader_end(c, 0) }
	:: tick(c)
	:: /* cpu_down(): the CPU stops running tasks */
#if MUTANT == 5
		atomic { reading[c * NLEVEL] -> skip };	/* inside its last reader */
#else
		atomic { !reading[c * NLEVEL] -> skip };
#endif
		/*
		 * rcu_report_dead(), ofl_lock held throughout: under the leaf
		 * lock, the QS if the running GP awaits it, carried to the
		 * root after the leaf lock is dropped, and only then (leaf
		 * lock again) the bit leaves qsmaskinitnext; with no QS to
		 * report, the bit goes in the same leaf-lock section.
		 */
#if MUTANT != 7
		atomic { !ofl -> ofl = 1 };
#endif
		atomic {
			carry = 0;
			if
			:: leaf_mask[LEAF(c)] & BIT(c) ->
				leaf_mask[LEAF(c)] = leaf_mask[LEAF(c)] & ~BIT(c);
				carry = (leaf_mask[LEAF(c)] == 0)
			:: else -> leaf_next[LEAF(c)] = leaf_next[LEAF(c)] & ~BIT(c)
			fi
		};
		if
		:: carry -> atomic { root_mask = root_mask & ~(1 << LEAF(c)); carry = 0 }
		:: else -> skip
		fi;
		atomic { leaf_next[LEAF(c)] = leaf_next[LEAF(c)] & ~BIT(c); ofl = 0 };
#if MUTANT == 5
		atomic { reader_end(c, 0) };	/* the last reader ends after */
#endif
		/* offline: the play-dead loop, until cpu_up() */
#if MUTANT == 4
		atomic { reader_begin(c, 0) };	/* a reader before the bit is set */
#endif
		/* rcu_cpu_starting(): the bit, and the leaf's GP noted (ofl_lock) */
		atomic {
#if MUTANT != 7
			!ofl ->
#endif
			leaf_next[LEAF(c)] = leaf_next[LEAF(c)] | BIT(c);
			cpu_gp[c] = leaf_gp[LEAF(c)];
			cpu_no_qs[c] = ((cpu_gp[c] % 2) == 1 &&
					(leaf_mask[LEAF(c)] & BIT(c)) != 0)
		}
	od
}
#endif

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
			from_idle = (dynticks[c] == 0);
#if MUTANT == 1
			reader_begin(c, kind);	/* reads before the CPU is visible */
#endif
			skip };
		/* ... then make it visible: atomic_inc_return() */
		if
		:: from_idle -> atomic { depth[c] == lvl -> dyn_inc(c) }
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
			atomic { depth[c] == lvl -> dyn_inc(c) }
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

/*
 * The NMI on CPU c, any time (also inside the irq; not inside an NMI):
 * the same C steps as handler(), merged into fewer atomic blocks (Lipton
 * reduction, README.md "Reductions"): while the NMI runs, nothing else on
 * CPU c runs (every step there waits for its depth), and no other process
 * touches CPU c's nesting, depth or nmi_on, or writes dynticks[c]; so the
 * NMI's steps on those (and its read of dynticks[c]) commute with every
 * step that can interleave with them.  Each block holds at most one step
 * that another process can see (a write of dynticks[c], or of the ghost
 * reader flags that the GP kthread reads).
 */
proctype nmi(byte c)
{
	byte t;
	bool from_idle;

	do
	:: atomic { !nmi_on[c] ->
		depth[c]++;
		nmi_on[c] = 1;
		/* rcu_nmi_enter(): is the CPU idle (counter even)? */
		from_idle = (dynticks[c] == 0);
#if MUTANT == 1
		reader_begin(c, 2)	/* reads before the CPU is visible */
	   };
	   atomic {
#endif
		/* ... then make it visible: atomic_inc_return() */
		if
		:: from_idle -> dyn_inc(c)
		:: else -> skip
		fi
	   };
	   atomic {
		/* nesting re-read after the increment, then stepped by 1 or 2 */
		t = nesting[c];
		if
		:: from_idle -> nesting[c] = t + 1
		:: else -> nesting[c] = t + 2
		fi;
		t = 0;
		from_idle = 0;
#if MUTANT != 1
		reader_begin(c, 2);	/* the handler's body reads from here */
#endif
		skip
	   };
	   atomic {
		/* rcu_nmi_exit(): the body's last read, then the nesting read */
#if MUTANT != 2
		reader_end(c, 2);
#endif
		t = nesting[c];
		if
		:: t != 1 ->
			/* not the level that left idle: step down and return */
			nesting[c] = t - 2;
			t = 0;
#if MUTANT == 2
			reader_end(c, 2);
#endif
			depth[c]--;
			nmi_on[c] = 0
		:: else ->
			nesting[c] = 0
#if MUTANT == 2
			;
			/* back to idle before the handler's last read */
			dyn_inc(c);
			t = 2
#endif
		fi
	   }
	/* the outermost level from idle: the counter back to even, return */
	:: atomic { nmi_on[c] && t == 1 ->
		dyn_inc(c);
		t = 0;
		depth[c]--;
		nmi_on[c] = 0 }
#if MUTANT == 2
	:: atomic { nmi_on[c] && t == 2 ->
		reader_end(c, 2);	/* read after the CPU went back to idle */
		t = 0;
		depth[c]--;
		nmi_on[c] = 0 }
#endif
	od
}

#if NO_TICKS && !IDLE_QS
/*
 * No CPU ticks: no process but this one reads or writes the rcu_node
 * masks, leaf_gp or gp_seq, so its steps on them commute with
 * every other step and merge into the step beside them that others can
 * see (README.md "Reductions"): the GP start (reads reading[], writes
 * pre[]), one block per CPU scanned (reads dynticks[c]), the end (reads
 * pre[] in the assert).  The C steps are those of the general version.
 */
proctype gp_kthread()
{
	byte c, s, i;
	bool first;

	do
	:: atomic { gps_done < MAXGP ->
		/* rcu_gp_init() */
		gp_seq = gp_seq + 1;
		i = 0;
		do
		:: i < NCPU * NLEVEL -> pre[i] = reading[i]; i++
		:: else -> break
		od;
		i = 0;
		do	/* the last GP's snapshots are never read again */
		:: i < NCPU -> dyn_snap[i] = 0; i++
		:: else -> break
		od;
		i = 0;
		root_mask = (NCPU > 2 -> 3 : 1);
		leaf_mask[0] = (NCPU > 1 -> 3 : 1); leaf_gp[0] = gp_seq;
		leaf_mask[1] = (NCPU > 3 -> 3 : (NCPU > 2 -> 1 : 0)); leaf_gp[1] = gp_seq;
		first = 1;
		c = 0
	   };
		do
		:: atomic { root_mask == 0 ->
			/* rcu_gp_cleanup() */
			leaf_gp[0] = gp_seq + 1;
			leaf_gp[1] = gp_seq + 1;
			i = 0;
			do
			:: i < NCPU * NLEVEL ->
				assert(!pre[i]);	/* a pre-existing reader still runs */
				i++
			:: else -> break
			od;
			i = 0;
			c = 0;
			first = 0;
			gp_seq = gp_seq + 1;
			gps_done++;
			break }
		:: atomic { root_mask != 0 ->
			/* force_qs_rnp(first): CPU c under its leaf's lock, and the carry */
			if
			:: leaf_mask[LEAF(c)] & BIT(c) ->
				s = dynticks[c];
				if
#if MUTANT == 3
				:: s == 0 || (!first && s == 1) ->
#else
				:: s == 0 || (!first && dyn_snap[c] == 2) ->
#endif
					leaf_mask[LEAF(c)] = leaf_mask[LEAF(c)] & ~BIT(c);
					if
					:: leaf_mask[LEAF(c)] == 0 ->
						root_mask = root_mask & ~(1 << LEAF(c))
					:: else -> skip
					fi
				:: else -> skip
				fi;
				if
				:: first -> dyn_snap[c] = 1
				:: else -> skip
				fi;
				s = 0
			:: else -> skip
			fi;
			c++;
			if
			:: c == NCPU -> c = 0; first = 0
			:: else -> skip
			fi }
		od
	:: atomic { else -> break }
	od
}
#else
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
			i = 0;
			do	/* the last GP's snapshots are never read again */
			:: i < NCPU -> dyn_snap[i] = 0; scanned[i] = 0; i++
			:: else -> break
			od;
			i = 0
		};
#if NHOT > 0
		/*
		 * First pass, leaves up: each leaf's qsmaskinit from its
		 * qsmaskinitnext (onlines and offlines since the last GP),
		 * the root's from which leaves have a CPU (only this kthread
		 * writes qsmaskinit, so the root's is computed with it below).
		 */
		atomic {
#if MUTANT != 7
			!ofl ->		/* ofl_lock */
#endif
			leaf_init[0] = leaf_next[0]
		};
		atomic {
#if MUTANT != 7
			!ofl ->
#endif
			leaf_init[1] = leaf_next[1]
		};
		/* Second pass, root first: qsmask = qsmaskinit ... */
		atomic { root_mask = (leaf_init[0] != 0 -> 1 : 0) | (leaf_init[1] != 0 -> 2 : 0) };
		i = 0;
		do
		:: i < 2 ->
			atomic {
				leaf_mask[i] = leaf_init[i];
				leaf_gp[i] = gp_seq;
				carry = 0;
#if MUTANT != 6
				/* ... and the QS of CPUs that left since the first pass */
				if
				:: leaf_mask[i] & ~leaf_next[i] ->
					leaf_mask[i] = leaf_mask[i] & leaf_next[i];
					carry = (leaf_mask[i] == 0)
				:: else -> skip
				fi
#endif
			};
			if
			:: carry -> atomic { root_mask = root_mask & ~(1 << i); carry = 0 }
			:: else -> skip
			fi;
			i++
		:: else -> i = 0; break
		od;
#else
		atomic { root_mask = (NCPU > 2 -> 3 : 1) };
		atomic { leaf_mask[0] = (NCPU > 1 -> 3 : 1); leaf_gp[0] = gp_seq };
		atomic { leaf_mask[1] = (NCPU > 3 -> 3 : (NCPU > 2 -> 1 : 0)); leaf_gp[1] = gp_seq };
#endif
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
#if NHOT > 0
						/* an offline CPU would hold the GP forever */
						assert(leaf_next[LEAF(c)] & BIT(c));
#endif
						s = dynticks[c];
						scanned[c] = scanned[c] || depth[c] == 0;
						if
#if MUTANT == 3
						:: s == 0 || (!first && s == 1) ->
#else
						:: s == 0 || (!first && dyn_snap[c] == 2) ->
#endif
							leaf_mask[LEAF(c)] = leaf_mask[LEAF(c)] & ~BIT(c);
							carry = (leaf_mask[LEAF(c)] == 0)
						:: else -> skip
						fi;
						if
						:: first -> dyn_snap[c] = 1
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
#endif

init {
	byte c;

	atomic {
		c = 0;
		do
		:: c < NCPU ->
			dynticks[c] = 1;
			nesting[c] = NONIDLE;
#if NHOT > 0
			leaf_next[LEAF(c)] = leaf_next[LEAF(c)] | BIT(c);	/* online at boot */
#endif
			irqs_on[c] = 1;
			if
			:: c < NHCPU -> run task(c); run handler(c, 1); run nmi(c)
#if NHOT > 0
			:: c >= NACTIVE - NHOT && c < NACTIVE -> run task_hp(c)
			:: c >= NHCPU && c < NACTIVE - NHOT -> run task_plain(c)
#else
			:: c >= NHCPU && c < NACTIVE -> run task_plain(c)
#endif
			:: else -> dynticks[c] = 0; nesting[c] = 0; irqs_on[c] = 0	/* idle */
			fi;
			c++
		:: else -> break
		od;
		run gp_kthread()
	}
}
