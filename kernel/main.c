/* kernel/main.c: kmain(), where the boot CPU arrives from boot/entry.asm in
 * 64-bit mode, and the order in which the kernel comes up.
 *
 * Each step needs only the ones above it: consoles and per-CPU data first
 * (printk uses both), then traps (so a bug below is reported, not a triple
 * fault), then the boot information and command line, memory, the
 * machine's tables and timers, the other CPUs, the scheduler and RCU.
 * Then the kernel runs what the command line asks and ends the run. */
#include "kernel/printk.h"
#include "kernel/console.h"
#include "kernel/fbcon.h"
#include "kernel/percpu.h"
#include "kernel/cmdline.h"
#include "kernel/multiboot2.h"
#include "kernel/ktap.h"
#include "kernel/system.h"
#include "kernel/string.h"
#include "kernel/pmm.h"
#include "kernel/sched.h"
#include "kernel/lockdep.h"
#include "kernel/spinlock.h"
#include "kernel/timer.h"
#include "kernel/cpu.h"
#include "kernel/jitter.h"
#include "asm/pgtable.h"
#include "asm/desc.h"
#include "asm/irq.h"
#include "asm/smp.h"
#include "rcu/rcupdate.h"
#include "rcu/kvfree.h"
#include "rcu/torture.h"
#include "kernel/profile.h"
#include "kernel/trace.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289
/* The boot information lies in low memory, identity-mapped by the early
 * page tables; no honest loader makes it larger than this. */
#define MB2_INFO_MAX (1024 * 1024)

/* Without test=, a boot runs the article's scenarios: the KTAP suites
 * named paper_* (tests/scenarios). */
static char *test_selection;
core_param(test, test_selection, charp,
	   "KTAP suites to run: all, a comma-separated list, prefix* (default: paper_*, the article's scenarios)");

/* help: the vocabulary of the command line, then the run ends (status 0). */
static bool help;
core_param(help, help, bool,
	   "print every option with its help, the test= suites and torture= flavours, and end the run");

struct boot_info boot_info;

static void parse_boot_info(unsigned long magic, unsigned long info_phys)
{
	if (magic != MB2_BOOTLOADER_MAGIC) {
		printk(KERN_ERR "boot: bad multiboot2 magic 0x%lx; no boot information\n", magic);
		return;
	}
	if (!info_phys || info_phys >= 0x100000000ul - 8) {
		printk(KERN_ERR "boot: boot information at 0x%lx is outside the early map\n", info_phys);
		return;
	}
	size_t avail = MIN((u64)MB2_INFO_MAX, 0x100000000ul - info_phys);
	if (mb2_parse((const void *)info_phys, avail, &boot_info))
		printk(KERN_ERR "boot: boot information damaged; using what could be read\n");
}

/* Which build this is, at the top of every log: the test build's figures
 * are not benchmark figures (tools/report.py warns of them by this line). */
#ifdef CONFIG_SANITIZE
#define BUILD_KIND "test (SANITIZE: UBSan, stack protector, test hooks)"
#else
#define BUILD_KIND "benchmark"
#endif
#ifdef CONFIG_PREEMPT_RCU
#define BUILD_RCU "preemptible RCU"
#else
#define BUILD_RCU "rcu_read_lock() is RCU-sched's (PREEMPT_RCU=0)"
#endif

void kmain(unsigned long magic, unsigned long info_phys)
{
	percpu_init_boot_cpu();
	lockdep_init();		/* test build: the lock validator, from here on */
	bool serial = serial_init();
	gdt_init_cpu(0);
	idt_init();

	parse_boot_info(magic, info_phys);
	pmm_init(&boot_info);	/* the free ranges; no memory touched yet */
	paging_init();		/* own tables, then pmm's bitmap: kmalloc works */
	fbcon_init(&boot_info, serial);	/* the screen, via ioremap */
	printk(KERN_INFO "rcukern: an SMP x86-64 kernel for the RCU usage article\n");
	printk_raw("# build: " BUILD_KIND ", " BUILD_RCU "\n");
	/* Whose numbers a log's bench rows are (tools/report.py's label):
	 * every run says it, not only the read-side scenario. */
	printk_raw("# platform: %s\n", arch_under_hypervisor() ? "qemu" : "hardware");
	lockdep_info();
	printk(KERN_INFO "boot: loader '%s', memory %lu MiB usable, command line '%s'\n",
	       boot_info.loader_name[0] ? boot_info.loader_name : "?",
	       (unsigned long)(pmm_usable_bytes() >> 20), boot_info.cmdline);
	cmdline_parse_kernel(boot_info.cmdline);
	if (help) {
		cmdline_help();
		printk(KERN_INFO "help: test= suites (all: every one but selftest_*):\n");
		ktap_list_suites();
		printk(KERN_INFO "help: torture= flavours (torture.secs=S):\n");
		rcu_torture_list();
		system_exit(EXIT_SUCCESS_STATUS);
	}
	spin_lock_setup(arch_under_hypervisor());	/* before any other CPU runs */
	timers_init();		/* the per-CPU timer bases, before anyone sleeps */
	sched_init();		/* kmain becomes a task; CPU 0's idle; preempt= */
	x86_platform_early_init();	/* ACPI: the CPUs there may be (rcu_init()'s tree) */
	rcu_init();		/* the node tree; CPU 0 reports from now on */
	x86_platform_init();	/* APICs, TSC, this CPU's tick; irqs on */
	jitter_init();		/* jitter= (test build): needs the TSC's rate */
	smp_boot_cpus();	/* the APs, the TSC sync check, the CPU table */
	trace_init();		/* trace=: a buffer per CPU online */
	rcu_late_init();	/* the grace-period and callback kthreads */
	kfree_rcu_init_late();	/* kfree_rcu()'s per-CPU batches (rcu/kvfree.c) */
	cpu_offline_boot();	/* cpu.offline=LIST */

	if (rcu_torture_cmdline_type()) {
		/* The rcutorture suite runs the torture= flavour, reported as KTAP. */
		int failed = ktap_run("rcutorture");
		system_exit(failed ? EXIT_FAILURE_STATUS : EXIT_SUCCESS_STATUS);
	}
	profile_boot_start();	/* profile=SECONDS[,RATE] */
	if (test_selection) {
		int failed = ktap_run(test_selection);
		profile_boot_finish();
		system_exit(failed ? EXIT_FAILURE_STATUS : EXIT_SUCCESS_STATUS);
	}
	int failed = ktap_run("paper_*");
	profile_boot_finish();
	if (failed < 0)
		printk(KERN_INFO "rcukern: this build has no scenarios to run\n");
	system_exit(failed > 0 ? EXIT_FAILURE_STATUS : EXIT_SUCCESS_STATUS);
}
