/*
 * tests/model/wait_wake.pml - a wake-up that skips an empty wait queue
 * (kernel/wait.c __wake_up(), Linux's wq_has_sleeper()) loses no sleeper,
 * on x86's memory model (TSO: a CPU's stores wait in its store buffer, in
 * order, and a load may be answered before them).  check.sh runs it.
 *
 * The sleeper (wait_event(): prepare_to_wait(), its test of the
 * condition, schedule()) and the waker (the condition's store, then
 * __wake_up()) each run on a CPU of their own.  Property: no end state
 * with the sleeper asleep (spin's invalid end state: a lost wake-up).
 * -DMUTANT=1 drops the waker's barrier (wq_has_sleeper()'s smp_mb()),
 * -DMUTANT=2 the sleeper's (set_current_state()'s smp_mb() in
 * prepare_to_wait()): each must be caught.
 */

#define COND	0	/* the caller's condition */
#define LISTED	1	/* the sleeper's entry on wq->head */
#define STATE	2	/* the sleeper's ->state: 0 running, 1 sleeping */
#define LOCK	3	/* wq->lock */
#define NVAR	4

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

/* smp_mb() (mfence), and the drain every locked RMW does first. */
inline fence(cpu) { len(sb[cpu]) == 0 }

/* spin_lock(): a locked RMW, so a fence too. */
inline lock(cpu) { atomic { len(sb[cpu]) == 0 && mem[LOCK] == 0 -> mem[LOCK] = 1 } }

/* Memory takes a buffered store whenever it likes, in order. */
proctype drain(byte cpu)
{
	byte v, x;
end:	do
	:: atomic { sb[cpu] ? v, x -> mem[v] = x }
	od
}

proctype sleeper()
{
	byte c, s;

	do
	:: /* prepare_to_wait() */
	   lock(0);
	   store(0, LISTED, 1);
	   store(0, STATE, 1);
#if MUTANT != 2
	   fence(0);
#endif
	   store(0, LOCK, 0);
	   /* wait_event(): the test after prepare_to_wait() */
	   load(0, COND, c);
	   if
	   :: c -> break
	   :: else
	   fi;
	   /* schedule(): the run-queue lock drains the buffer; a task still
	    * sleeping waits there for a wake-up (an end state if none comes) */
	   fence(0);
	   atomic { mem[STATE] == 0 }
	od;
	/* finish_wait() */
	store(0, STATE, 0);
	lock(0);
	store(0, LISTED, 0);
	store(0, LOCK, 0);
	fence(0)
}

proctype waker()
{
	byte e;

	store(1, COND, 1);
	/* __wake_up(): wq_has_sleeper() */
#if MUTANT != 1
	fence(1);
#endif
	load(1, LISTED, e);
	if
	:: e ->
		/* spin_lock_irqsave(); __wake_up_locked(): autoremove, then
		 * wake_up_process() (its own locked RMWs: stored at once) */
		lock(1);
		atomic {
			if
			:: mem[LISTED] -> mem[LISTED] = 0; mem[STATE] = 0
			:: else
			fi
		}
		store(1, LOCK, 0)
	:: else
	fi
}

init {
	atomic {
		run drain(0); run drain(1);
		run sleeper(); run waker()
	}
}
