/*
 * tests/host/rcu/torture_main.c - the kernel's own rcutorture (rcu/torture.c)
 * on the host shim: N shim CPUs, one flavour, a bounded run.  Passes (exit
 * 0) when the run ends as expected: SUCCESS for the real flavours, FAILURE
 * with pipeline or poison errors for `busted` (--expect-fail); and in both
 * cases no WARN, BUG or shim error.  Under ThreadSanitizer a race report
 * also fails the program (exit code 66).
 *
 *   torture --cpus 16 --type sched-expedited --ms 3000 [--expect-fail]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "rcu/torture.h"
#include "rcu/rcupdate.h"

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s --cpus N --type TYPE --ms MS [--expect-fail] [--no-nmi]\n"
		"  TYPE: sched, sched-expedited, sched-async, sched-polled, busted\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	struct shim_opts o = { .ncpus = 4, .idle_tick_every = 8, .nmi_every = 3 };
	const char *type = NULL;
	unsigned int ms = 2000;
	bool expect_fail = false, ok;
	struct rcu_torture_result res;
	struct shim_stats st;
	long errs;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (shim_parse_opt(&o, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--type") && i + 1 < argc)
			type = argv[++i];
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--expect-fail"))
			expect_fail = true;
		else if (!strcmp(argv[i], "--no-nmi"))
			o.nmi_every = 0;
		else
			usage(argv[0]);
	}
	if (!type || o.ncpus < 2 || o.ncpus > 64 || !ms)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	shim_boot(&o);
	ret = rcu_torture_run(type, ms, &res);
	errs = shim_shutdown();
	shim_get_stats(&st);
	printf("# host torture type=%s cpus=%d ms=%u ret=%d versions=%lu gps=%lu exp_gps=%lu "
	       "reads=%ld nmi_reads=%ld pipe_errors=%ld mberrors=%ld errors=%ld\n",
	       type, o.ncpus, ms, ret, res.versions, res.gps, res.exp_gps, res.reads,
	       res.nmi_reads, res.pipe_errors, res.mberrors, res.errors);
	printf("# host shim ticks=%lu idle_ticks=%lu nmis=%lu nmis_in_idle=%lu calls=%lu "
	       "switches=%lu preemptions=%lu shim_errors=%ld\n", st.ticks, st.idle_ticks,
	       st.nmis, st.nmis_in_idle, st.calls, st.switches, st.preemptions, errs);
	printf("# bench name=torture type=%s cpus=%d host=1 ms=%u gps=%lu exp_gps=%lu "
	       "gps_per_s=%lu reads=%ld\n", type, o.ncpus, ms, res.gps, res.exp_gps,
	       res.gps * 1000 / ms, res.reads);
	if (ret < 0) {
		printf("not ok: torture type '%s' refused\n", type);
		return 1;
	}
	if (expect_fail)
		ok = ret == 1 && !res.success && (res.pipe_errors > 0 || res.mberrors > 0 || res.errors > 0);
	else
		/* Progress is grace periods of either kind: an expedited
		 * flavour may see no normal one in a short run on a busy host. */
		ok = ret == 0 && res.success && res.gps + res.exp_gps > 0 && res.reads > 0;
	if (errs) {
		printf("not ok: %ld WARN/BUG/shim errors during the run\n", errs);
		ok = false;
	}
	printf("%s host torture %s at %d CPUs (%s expected, %s reported)\n", ok ? "ok" : "not ok",
	       type, o.ncpus, expect_fail ? "FAILURE" : "SUCCESS", res.success ? "SUCCESS" : "FAILURE");
	return ok ? 0 : 1;
}
