/*
 * rcu/inject.c - parses rcu.inject= (test build only; see rcu/inject.h).
 */
#include "rcu/inject.h"

#ifdef CONFIG_SANITIZE
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

unsigned int rcu_inject_mask;
static const char *rcu_inject_arg;
core_param(rcu.inject, rcu_inject_arg, charp,
	   "test build: re-inject RCU bugs, comma-separated: barrier,exp_irqoff,srcu_accel,report_dead,barrier_online,ofl_lock,stall_order,irq_eqs,barrier_migrate,poll_early");

static const struct {
	const char *name;
	unsigned int bit;
} rcu_inject_names[] = {
	{ "barrier", RCU_INJECT_BARRIER },
	{ "exp_irqoff", RCU_INJECT_EXP_IRQOFF },
	{ "srcu_accel", RCU_INJECT_SRCU_ACCEL },
	{ "report_dead", RCU_INJECT_REPORT_DEAD },
	{ "barrier_online", RCU_INJECT_BARRIER_ONLINE },
	{ "ofl_lock", RCU_INJECT_OFL_LOCK },
	{ "stall_order", RCU_INJECT_STALL_ORDER },
	{ "irq_eqs", RCU_INJECT_IRQ_EQS },
	{ "barrier_migrate", RCU_INJECT_BARRIER_MIGRATE },
	{ "poll_early", RCU_INJECT_POLL_EARLY },
};

void rcu_inject_init(void)
{
	const char *p = rcu_inject_arg;

	while (p && *p) {
		size_t n = 0, i;

		while (p[n] && p[n] != ',' && p[n] != '|')
			n++;
		for (i = 0; i < ARRAY_SIZE(rcu_inject_names); i++)
			if (strlen(rcu_inject_names[i].name) == n &&
			    !strncmp(p, rcu_inject_names[i].name, n))
				break;
		if (i < ARRAY_SIZE(rcu_inject_names)) {
			rcu_inject_mask |= rcu_inject_names[i].bit;
			pr_warn("rcu: bug injected on purpose: %s\n", rcu_inject_names[i].name);
		} else if (n) {
			pr_err("rcu: rcu.inject: unknown bug '%.*s' (barrier, exp_irqoff, srcu_accel, report_dead, barrier_online, ofl_lock, stall_order, irq_eqs, barrier_migrate, poll_early)\n",
			       (int)n, p);
		}
		p += n;
		if (*p)
			p++;
	}
}
#endif /* CONFIG_SANITIZE */
