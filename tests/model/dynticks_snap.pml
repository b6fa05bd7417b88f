/*
 * tests/model/dynticks_snap.pml - the grace period's read of an idle
 * CPU's dynticks counter (rcu/tree.c rcu_dynticks_snap(), contract (2):
 * a locked add of 0, which on x86 drains the store buffer and then
 * reads) is enough to credit that CPU with a quiescent state, on x86's
 * memory model (TSO: a CPU's stores wait in its store buffer, in order,
 * and a load may be answered before them).  check.sh runs it;
 * rcu_dynticks.pml, being sequentially consistent, cannot ask which
 * barriers the read needs.
 *
 * CPU 0 is the updater and the grace period's scan in one: it replaces
 * the pointer (PTR 0 -> 1), reads CPU 1's counter, and if the counter is
 * even (CPU 1 idle, an extended QS) frees the old object (FREED = 1), as
 * a grace period with no other CPU to wait for would.  CPU 1 runs a
 * reader, enters idle (counter 1 -> 2), leaves it (2 -> 3) and runs a
 * second reader.  Each reader that found the old pointer then reads the
 * old object, which must not be freed yet: the assertion.
 * -DMUTANT=1 makes the scan's read a plain load (atomic_read(): the
 * pointer's store may still be in CPU 0's buffer); -DMUTANT=2 makes idle
 * exit's increment a plain store (no locked RMW: rcu_eqs_exit() without
 * its full barrier).  Each must be caught.
 */

#define PTR	0	/* the RCU-protected pointer: 0 old object, 1 new */
#define FREED	1	/* the old object freed */
#define DYN	2	/* CPU 1's rdp->dynticks: odd not idle, even idle */
#define NVAR	3

byte mem[NVAR];
chan sb[2] = [3] of { byte, byte };	/* store buffers, oldest first */

/* A plain store: into this CPU's store buffer. */
inline store(cpu, v, x) { sb[cpu] ! v, x }

/* A plain load: this CPU's own buffered store of v if any (each variable
 * is stored at most once while in the buffer), else memory. */
inline load(cpu, v, r) {
	atomic {
		if
		:: sb[cpu] ?? [eval(v), _] -> sb[cpu] ?? <eval(v), r>
		:: else -> r = mem[v]
		fi
	}
}

/* smp_mb(): the buffer drains first. */
inline fence(cpu) { len(sb[cpu]) == 0 }

/* A locked increment (atomic_inc_return()): drains the buffer, then
 * updates memory at once. */
inline locked_inc(cpu, v) { atomic { len(sb[cpu]) == 0 -> mem[v] = mem[v] + 1 } }

/* Memory takes a buffered store whenever it likes, in order. */
proctype drain(byte cpu)
{
	byte v, x;
end:	do
	:: atomic { sb[cpu] ? v, x -> mem[v] = x }
	od
}

/* A reader on CPU 1: rcu_dereference(), then the object's fields. */
inline reader() {
	load(1, PTR, p);
	if
	:: p == 0 -> load(1, FREED, f); assert(f == 0)
	:: else
	fi
}

proctype cpu1()
{
	byte p, f;

	reader();
	locked_inc(1, DYN);		/* rcu_eqs_enter(): 1 -> 2 */
#if MUTANT == 2
	load(1, DYN, f);
	store(1, DYN, f + 1)		/* rcu_eqs_exit() without its barrier */
#else
	locked_inc(1, DYN);		/* rcu_eqs_exit(): 2 -> 3 */
#endif
	;
	reader()
}

proctype scan()
{
	byte d;

	store(0, PTR, 1);		/* the updater's rcu_assign_pointer() */
	/* rcu_dynticks_snap(): atomic_add_return(0), a locked RMW, drains
	 * the buffer and reads memory in one step (the +0 changes nothing) */
#if MUTANT == 1
	load(0, DYN, d);
#else
	atomic { len(sb[0]) == 0 -> d = mem[DYN] }
#endif
	if
	:: d % 2 == 0 -> store(0, FREED, 1)	/* idle: credited; the GP ends */
	:: else				/* not idle: the GP waits for its report */
	fi
}

init {
	atomic {
		mem[DYN] = 1;
		run drain(0); run drain(1);
		run scan(); run cpu1()
	}
}
