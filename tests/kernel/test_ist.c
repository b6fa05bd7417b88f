/* tests/kernel/test_ist.c: KTAP suite `selftest_ist_crash`, which crashes
 * on purpose: an NMI handler that recurses without end must run into the
 * guard page below the NMI's IST stack (arch/x86_64/gdt.c) and be reported
 * as an overflow of that stack by the double-fault handler.  Without the
 * guard it would write over whatever lies below the stack and go on.
 * tests/qemu-configs (ist-nmi-overflow) expects exactly that report. */
#include "kernel/ktap.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "asm/nmi.h"
#include "asm/smp.h"

static volatile int nmi_recurse_armed;

static __attribute__((noinline)) int nmi_recurse(int depth)
{
	volatile char pad[200];

	pad[0] = (char)depth;
	if (nmi_recurse_armed)
		depth += nmi_recurse(depth + 1);
	return depth + pad[0];
}

static int overflowing_nmi(struct pt_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	if (!nmi_recurse_armed)
		return NMI_DONE;
	return nmi_recurse(0) ? NMI_HANDLED : NMI_HANDLED;
}

static struct nmiaction overflow_action = { overflowing_nmi, NULL, "ist-overflow" };

static void nmi_stack_overflow(void)
{
	KTAP_ASSERT(register_nmi_handler(&overflow_action) == 0);
	nmi_recurse_armed = 1;
	KTAP_ASSERT(arch_send_nmi(raw_smp_processor_id()));
	mdelay(1000);
	nmi_recurse_armed = 0;
	unregister_nmi_handler(&overflow_action);
	ktap_fail("an NMI handler recursed without end and nothing noticed");
}

KTAP_SUITE(selftest_ist_crash, KTAP_CASE(nmi_stack_overflow));
