/* arch/x86_64/smpboot.c: bringing up the machine's CPUs.  The boot CPU
 * reads the ACPI tables (x86_platform_early_init, before rcu_init()),
 * sets up its interrupt controllers and timers (x86_platform_init), then
 * starts the APs the MADT lists with
 * INIT-SIPI-SIPI through the real-mode trampoline (trampoline.asm): all
 * of them at once, with the SDM's delays measured on the TSC once for
 * all.  Logical CPU numbers follow the MADT's order; each AP finds its
 * own (and its stack) by its APIC id in ap_boot_slots.  An AP that does
 * not answer in time is named, sent back to INIT, and skipped (its
 * number stays unused).  Each AP gets its own stack (guard page below),
 * per-CPU area, GDT/TSS/IST, IDT, LAPIC and timer, then ends in
 * smp_ap_main(). */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/nmi.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/tsc.h"
#include "asm/cpu.h"
#include "asm/cpufeature.h"
#include "asm/irqflags.h"
#include "asm/desc.h"
#include "asm/irq.h"
#include "asm/page.h"
#include "asm/smp.h"
#include "asm/topology.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/multiboot2.h"
#include "kernel/pmm.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define TRAMPOLINE_PHYS 0x8000	/* trampoline.asm: SIPI vector 0x08 */
#define AP_STACK_SIZE (16 * 1024)

u32 cpu_apic_id[NR_CPUS];
static u32 cpu_acpi_uid[NR_CPUS];
static s64 cpu_tsc_skew[NR_CPUS];

/*
 * One slot per logical CPU, scanned by ap_claim_slot (trampoline.asm, which
 * knows this layout): an AP claims the WAITING slot of its APIC id, and
 * runs as that CPU on that stack.  The BSP withdraws the slot of an AP
 * that did not answer in time (WAITING -> IDLE), so a late one halts.
 */
enum { AP_SLOT_IDLE, AP_SLOT_WAITING, AP_SLOT_CLAIMED };
struct ap_boot_slot {
	u32 apic_id;
	u32 state;
	u64 stack;
};
_Static_assert(sizeof(struct ap_boot_slot) == 16, "trampoline.asm's AP_SLOT_SIZE");
struct ap_boot_slot ap_boot_slots[NR_CPUS];
const u32 ap_boot_nr_slots = NR_CPUS;
extern struct boot_info boot_info;	/* kernel/main.c */
static u64 bsp_cr0, bsp_cr4;
static bool lapic_ok;

int smp_cpus_wanted = 1, smp_cpus_failed;
#define SMP_UNSET 0xffffffffu	/* no smp= on the command line */
static unsigned int smp_max_cpus = SMP_UNSET;
core_param(smp, smp_max_cpus, uint, "use at most this many CPUs (0: all the MADT lists)");
static unsigned int smp_timeout_ms = 2000;
core_param(smp.timeout_ms, smp_timeout_ms, uint, "how long the starting APs may go without another answering its SIPIs (5x: without another coming online; cpu_up() says so and waits 15x, and for one that started, until it is online)");
static unsigned int smp_skip_apic = 0xffffffff;
core_param(smp.skip_apic, smp_skip_apic, uint, "test: start this APIC id in a halt loop instead of the trampoline, so it never answers and must be named and skipped");
#define DEADEND_PHYS 0x7000	/* cli; hlt; jmp $-2: for smp.skip_apic */

extern const char trampoline_start[], trampoline_end[];
extern const char tr_gate[], tr_cr3[], tr_efer[], tr_entry[];
extern char ap_claim_slot[];

void smp_ap_entry(int cpu);

/* Low memory is reached through the identity map of the first 1 MiB
 * (on while APs start), not the direct map: on some firmware the page
 * is in a hole of the memory map, which the direct map does not cover. */
static void *low_page(u64 phys)
{
	return (void *)(uintptr_t)phys;
}

/* Where a trampoline field lands in the copy below 1 MiB. */
static volatile u32 *tr_field32(const char *sym)
{
	return low_page(TRAMPOLINE_PHYS + (sym - trampoline_start));
}

struct acpi_info acpi_info;

/* Tables are usually in RAM the direct map covers; one in a hole of the
 * memory map is reached through an uncached ioremap instead. */
static void *acpi_map(u64 phys, size_t len)
{
	int level;

	if (len == 0 || phys + len < phys || phys + len > PHYS_ADDR_MAX)
		return NULL;
	if (paging_lookup((u64)phys_to_virt(phys), &level) &&
	    paging_lookup((u64)phys_to_virt(phys + len - 1), &level))
		return phys_to_virt(phys);
	return ioremap(phys, len);
}

static void acpi_setup(void)
{
	const struct boot_info *bi = &boot_info;
	int r = acpi_parse(bi->rsdp_new_len ? bi->rsdp_new : NULL, bi->rsdp_new_len,
			   bi->rsdp_old_len ? bi->rsdp_old : NULL, bi->rsdp_old_len,
			   !bi->has_efi64 && !bi->has_efi32, acpi_map, &acpi_info);

	if (r) {
		pr_warn("acpi: no ACPI tables: one CPU, no HPET or PM timer\n");
		return;
	}
	static const char *const sources[] = {
		"?", "the multiboot2 ACPI 2.0 tag", "the multiboot2 ACPI 1.0 tag", "a BIOS area scan",
	};

	pr_info("acpi: RSDP from %s (%s boot)\n",
		sources[acpi_info.rsdp_source < ARRAY_SIZE(sources) ? acpi_info.rsdp_source : 0],
		bi->has_efi64 || bi->has_efi32 ? "UEFI" : "BIOS");
	pr_info("acpi: rev %u, OEM '%s': %d CPUs, %d I/O APICs, %d overrides, %d LAPIC NMI entries%s%s\n",
		acpi_info.revision, acpi_info.oem_id, acpi_info.nr_cpus,
		acpi_info.nr_ioapics, acpi_info.nr_isos, acpi_info.nr_lapic_nmis,
		acpi_info.have_hpet ? ", HPET" : "",
		acpi_info.pm_tmr_port ? ", PM timer" : "");
	if (acpi_info.have_dmar)
		pr_info("acpi: DMAR flags 0x%x:%s%s\n", acpi_info.dmar_flags,
			acpi_info.dmar_flags & ACPI_DMAR_INTR_REMAP ? " interrupt remapping" : "",
			acpi_info.dmar_flags & ACPI_DMAR_X2APIC_OPT_OUT ? ", x2APIC opt-out" : "");
	if (acpi_info.nr_cpus_dropped)
		pr_warn("acpi: %d more CPUs than the kernel supports (%d) ignored\n",
			acpi_info.nr_cpus_dropped, ACPI_MAX_CPUS);
	if (acpi_info.tables_bad_checksum)
		pr_warn("acpi: %d tables with a wrong checksum are used anyway (a firmware bug)\n",
			acpi_info.tables_bad_checksum);
	if (acpi_info.madt_errors || acpi_info.tables_bad)
		pr_warn("acpi: %d malformed MADT entries and %d bad tables were skipped\n",
			acpi_info.madt_errors, acpi_info.tables_bad);
}

/*
 * Whether the MADT's enabled entries hold the boot CPU.  Some firmware
 * leaves it out (or lists it disabled); smp_boot_cpus() then starts every
 * entry as an AP, one more CPU than the entries count.  Its LAPIC is not
 * mapped yet, so its id is CPUID's (leaf 0xb's 32 bits, else leaf 1's 8):
 * should that differ from the LAPIC's own, the boot CPU counts twice, one
 * leaf too many, never one too few.
 */
static bool boot_cpu_in_madt(void)
{
	u32 id = topology_x2apic_id(), a, b, c, d;

	if (id == ~0u) {
		cpuid(1, &a, &b, &c, &d);
		id = b >> 24;
	}
	for (int i = 0; i < acpi_info.nr_cpus; i++)
		if (acpi_info.cpus[i].apic_id == id)
			return true;
	return false;
}

/* The CPUs smp_boot_cpus() may number: the MADT's and the boot CPU,
 * capped by smp= and NR_CPUS. */
static int possible_cpus(void)
{
	unsigned int n = acpi_info.have_madt && acpi_info.nr_cpus > 0 ?
		(unsigned)acpi_info.nr_cpus + !boot_cpu_in_madt() : 1;

	if (smp_max_cpus && smp_max_cpus != SMP_UNSET && smp_max_cpus < n)
		n = smp_max_cpus;
	return n < NR_CPUS ? (int)n : NR_CPUS;
}

void x86_platform_early_init(void)
{
	if (ist_stacks_guard(0))
		pr_warn("gdt: the boot CPU keeps its IST stacks without guard pages\n");
	cpu_identify(&boot_cpu_data);
	cpu_init_this();
	pr_info("cpu: %s family 0x%x model 0x%x stepping %u microcode 0x%x\n",
		x86_vendor_name(&boot_cpu_data), boot_cpu_data.x86, boot_cpu_data.x86_model,
		boot_cpu_data.x86_stepping, boot_cpu_data.microcode);
	/* LA57 left set would have been a triple fault at entry. */
	pr_info("cpu: CR4 at entry 0x%x%s, written as 0x%x\n", boot_cr4_at_entry,
		boot_cr4_at_entry & (1u << 12) ? " (LA57 set)" : "",
		(boot_cr4_at_entry & (1u << 6)) | (1u << 5));
	acpi_setup();
	init_cpu_possible(possible_cpus());
}

void x86_platform_init(void)
{
	serial_late_init();
	pic_disable();
	nmi_init();
	if (lapic_init_bsp()) {
		pr_err("smp: no local APIC: no timer interrupts, one CPU\n");
		tsc_init();
		return;
	}
	lapic_ok = true;
	cpu_apic_id[0] = lapic_id();
	topology_init();
	cpu_acpi_uid[0] = acpi_uid_of(cpu_apic_id[0]);
	ioapic_init();
	tsc_init();
	ipi_init();
	timer_init();
	smp_prepare_boot_cpu();
	local_irq_enable();
}

static size_t percpu_area_pages(void)
{
	size_t pages = (percpu_area_size() + PAGE_SIZE - 1) / PAGE_SIZE;

	return pages ? pages : 1;
}

/*
 * The APs' per-CPU areas, CPU n's at slot n - 1 of one run of pages
 * (Linux's first chunk, embedded the same way), taken before any AP's
 * stacks.  A scan of every CPU's per-CPU data (the expedited grace
 * period's dynticks reads, the fqs scan) then touches consecutive pages.
 * QEMU's TCG TLB is direct-mapped by virtual page number (256 entries
 * by default), and areas allocated one by one between each CPU's stacks
 * and page tables lay 17 or 18 pages apart: at 64 CPUs they fell in 37
 * slots, so each remote read in such a scan was a TLB miss and a page
 * walk.  NULL if no run was free: each area is then allocated alone.
 */
static void *percpu_block;
static int percpu_block_cpus;	/* CPUs 1..percpu_block_cpus have a slot */

static void percpu_block_init(int possible)
{
	u64 phys;

	if (possible < 2)
		return;
	phys = pmm_alloc_pages(percpu_area_pages() * (size_t)(possible - 1));
	if (!phys) {
		pr_warn("smp: no run of pages for %d per-CPU areas: allocated one by one\n",
			possible - 1);
		return;
	}
	percpu_block = phys_to_virt(phys);
	percpu_block_cpus = possible - 1;
}

static bool in_percpu_block(int cpu)
{
	return percpu_block && cpu >= 1 && cpu <= percpu_block_cpus;
}

static void *alloc_percpu_area(int cpu)
{
	u64 phys;

	if (in_percpu_block(cpu))
		return (char *)percpu_block + (size_t)(cpu - 1) * percpu_area_pages() * PAGE_SIZE;
	phys = pmm_alloc_pages(percpu_area_pages());
	return phys ? phys_to_virt(phys) : NULL;
}

/* A slot of the run stays cpu's: the number goes to the next CPU tried. */
static void free_percpu_area(int cpu, void *area)
{
	if (!in_percpu_block(cpu))
		pmm_free_pages(virt_to_phys(area), percpu_area_pages());
}

/* Each AP's boot stack: its idle task's too, and again after cpu_up(). */
static void *ap_stacks[NR_CPUS];

static volatile u32 *slot_state(int cpu)
{
	return &ap_boot_slots[cpu].state;
}

/* The trampoline copied below 1 MiB, its parameters filled in, and its
 * gate open; the low identity map must be on until trampoline_close(). */
static void trampoline_open(void)
{
	memcpy(low_page(TRAMPOLINE_PHYS), trampoline_start, trampoline_end - trampoline_start);
	*tr_field32(tr_cr3) = (u32)paging_kernel_cr3();
	*tr_field32(tr_efer) = (1u << 8) | ((u32)rdmsr(MSR_EFER) & EFER_NXE);
	*(volatile u64 *)tr_field32(tr_entry) = (u64)ap_claim_slot;
	smp_wmb();
	WRITE_ONCE(*tr_field32(tr_gate), 1);
	smp_mb();
}

static void trampoline_close(void)
{
	WRITE_ONCE(*tr_field32(tr_gate), 0);
	smp_mb();
}

static u32 sipi_vector(u32 apic)
{
	return (apic == smp_skip_apic ? DEADEND_PHYS : TRAMPOLINE_PHYS) >> 12;
}

/*
 * INIT-SIPI-SIPI to the n CPUs of cpus[] (per-CPU areas set up, stacks
 * given) at once, and waits until they are online: smp.timeout_ms after
 * the last one claimed its slot for the others to claim theirs, five
 * times that after the last came online for the others.  res[i]: 0 online; -ETIMEDOUT it never claimed its slot, and
 * is back in wait-for-SIPI; -EIO it started but did not come online.
 * The trampoline must be open.
 *
 * again (cpu_up() of a CPU that answered at boot): a CPU that does not
 * answer in smp.timeout_ms is most likely a vCPU the host is not
 * running, so that is said and the wait goes on, to SMP_UP_PATIENCE
 * times as long, before it is given up.  One that started is waited
 * for until it is online, however long, with a line every five
 * smp.timeout_ms: given up on, it would still come online by itself,
 * unannounced, its hotplug hooks never run.
 */
#define SMP_UP_PATIENCE	15	/* 30 s with the default smp.timeout_ms */

static void sipi_and_wait(const int *cpus, int n, int *res, bool again)
{
	u64 t0, limit = ns_to_cycles(smp_timeout_ms * 1000000ull), t_said;
	u64 claim_limit = again ? limit * SMP_UP_PATIENCE : limit;
	int left, last;
	bool said = false;

	for (int i = 0; i < n; i++) {
		struct ap_boot_slot *sl = &ap_boot_slots[cpus[i]];

		sl->apic_id = cpu_apic_id[cpus[i]];
		sl->stack = (u64)ap_stacks[cpus[i]];
		WRITE_ONCE(sl->state, AP_SLOT_WAITING);
	}
	smp_mb();
	/* SDM vol 3 8.4.4.1: INIT, 10 ms, SIPI, 200 us, SIPI, 200 us; the
	 * second SIPI only to those that have not claimed their slot (one
	 * that runs ignores it anyway: it is not in wait-for-SIPI). */
	for (int i = 0; i < n; i++)
		lapic_send_ipi(cpu_apic_id[cpus[i]], APIC_DM_INIT | APIC_ICR_LEVEL | APIC_ICR_ASSERT);
	mdelay(10);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++)
			if (READ_ONCE(*slot_state(cpus[i])) == AP_SLOT_WAITING)
				lapic_send_ipi(cpu_apic_id[cpus[i]],
					       APIC_DM_STARTUP | sipi_vector(cpu_apic_id[cpus[i]]));
		udelay(200);
	}
	/* The limit runs from the last AP seen to move: on a host that
	 * runs the vCPUs in turns, many starting at once take turns too. */
	t0 = get_cycles();
	last = n + 1;
	do {
		left = 0;
		for (int i = 0; i < n; i++)
			left += READ_ONCE(*slot_state(cpus[i])) == AP_SLOT_WAITING;
		if (left < last) {
			last = left;
			t0 = get_cycles();
		}
		if (again && left && !said && get_cycles() - t0 > limit) {
			pr_warn("smp: CPU %d has not answered INIT-SIPI-SIPI in %u ms (a vCPU the "
				"host does not run?); waiting up to %u ms\n", cpus[0],
				smp_timeout_ms, smp_timeout_ms * SMP_UP_PATIENCE);
			said = true;
		}
		cpu_relax();
	} while (left && get_cycles() - t0 <= claim_limit);
	for (int i = 0; i < n; i++) {
		u32 waiting = AP_SLOT_WAITING;

		res[i] = 0;
		/* Withdraw the slot first, so a late start halts in
		 * ap_claim_slot; then put the CPU back into wait-for-SIPI.  One
		 * that claimed it just now after all goes on. */
		if (__atomic_compare_exchange_n(slot_state(cpus[i]), &waiting, AP_SLOT_IDLE,
						false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			lapic_send_ipi(cpu_apic_id[cpus[i]],
				       APIC_DM_INIT | APIC_ICR_LEVEL | APIC_ICR_ASSERT);
			res[i] = -ETIMEDOUT;
		}
	}
	last = n + 1;
	t_said = get_cycles();
	do {
		left = 0;
		for (int i = 0; i < n; i++)
			left += !res[i] && !cpu_online(cpus[i]);
		if (left < last) {
			last = left;
			t0 = get_cycles();
		}
		if (again && left && get_cycles() - t_said > limit * 5) {
			pr_warn("smp: CPU %d started but is not online after %llu ms (a vCPU "
				"the host does not run?); still waiting\n", cpus[0],
				(unsigned long long)(cycles_to_ns(get_cycles() - t0) / 1000000));
			t_said = get_cycles();
		}
		cpu_relax();
	} while (left && (again || get_cycles() - t0 <= limit * 5));
	for (int i = 0; i < n; i++) {
		if (!res[i] && !cpu_online(cpus[i]))
			res[i] = -EIO;
		WRITE_ONCE(*slot_state(cpus[i]), AP_SLOT_IDLE);
	}
}

/* The IST stacks, per-CPU area and boot stack of APIC id apic as logical
 * cpu.  0 on success; on failure the CPU is named. */
static int prepare_cpu(int cpu, u32 apic, u32 uid)
{
	void *stack, *area;

	if (ist_stacks_guard(cpu)) {
		pr_err("smp: no IST stacks for CPU %d (APIC id %u)\n", cpu, apic);
		return -ENOMEM;
	}
	area = alloc_percpu_area(cpu);
	stack = alloc_kernel_stack(AP_STACK_SIZE);
	if (!area || !stack) {
		pr_err("smp: no memory for CPU %d (APIC id %u)\n", cpu, apic);
		if (area)
			free_percpu_area(cpu, area);
		if (stack)
			free_kernel_stack(stack, AP_STACK_SIZE);
		return -ENOMEM;
	}
	percpu_setup_cpu(cpu, area);
	cpu_apic_id[cpu] = apic;
	cpu_acpi_uid[cpu] = uid;
	ap_stacks[cpu] = stack;
	return 0;
}

/* After sipi_and_wait(): names a CPU that did not come up.  Its number
 * stays unused and keeps its per-CPU area (per_cpu() of it stays valid);
 * the stack of one that never started goes back, that of one that did
 * stays (it may be using it).  Either way cpu_up() refuses it. */
static void boot_failed(int cpu, int r)
{
	if (r == -ETIMEDOUT) {
		pr_err("smp: CPU %d (APIC id %u) does not answer INIT-SIPI-SIPI after %u ms; skipped\n",
		       cpu, cpu_apic_id[cpu], smp_timeout_ms);
		free_kernel_stack(ap_stacks[cpu], AP_STACK_SIZE);
	} else {
		pr_err("smp: CPU %d (APIC id %u) started but is not online after %u ms; skipped\n",
		       cpu, cpu_apic_id[cpu], smp_timeout_ms * 5);
	}
	ap_stacks[cpu] = NULL;
}

/*
 * cpu_up() of a CPU that came up at boot and went down since: it halts
 * with irqs off in arch_cpu_play_dead(), which INIT ends; the trampoline
 * then brings it in as at boot, on the same stack and per-CPU area.
 */
int arch_cpu_up(int cpu)
{
	int r;

	if (!lapic_ok || cpu <= 0 || cpu >= NR_CPUS || !ap_stacks[cpu])
		return -EINVAL;
	paging_identity_map_low(true);
	trampoline_open();
	sipi_and_wait(&cpu, 1, &r, true);
	trampoline_close();
	paging_identity_map_low(false);
	if (r)
		pr_err("smp: CPU %d (APIC id %u) did not come back: no answer to "
		       "INIT-SIPI-SIPI after %u ms\n", cpu, cpu_apic_id[cpu],
		       smp_timeout_ms * SMP_UP_PATIENCE);
	return r;
}

/* cpu_down()'s last step on the CPU itself: Linux's play-dead, a halt that
 * only an NMI (which returns here) or INIT (cpu_up()) ends. */
__noreturn void arch_cpu_play_dead(void)
{
	local_irq_disable();
	for (;;)
		__asm__ __volatile__("hlt" ::: "memory");
}

void smp_ap_entry(int cpu)
{
	/* The per-CPU base first: everything below may use this_cpu ops. */
	percpu_load(cpu);
	write_cr0(bsp_cr0);
	write_cr4(bsp_cr4);
	cpu_init_this();
	tsc_adjust_init_ap();
	paging_load_cpu();
	gdt_init_cpu(cpu);
	idt_load();
	lapic_init_ap();
	lapic_setup(cpu_acpi_uid[cpu]);
	if (lapic_id() != cpu_apic_id[cpu])
		pr_err("smp: CPU %d has APIC id %u, the MADT said %u\n", cpu,
		       lapic_id(), cpu_apic_id[cpu]);
	timer_init_ap();
	smp_ap_main(cpu);
}

static void print_cpu_table(void)
{
	int cpu;

	pr_info("smp: %d CPU%s online\n", num_online_cpus(), num_online_cpus() == 1 ? "" : "s");
	pr_info("  cpu  apic-id  pkg core thread  tsc-skew(cycles)  timer\n");
	for_each_online_cpu(cpu) {
		const char *mode = per_cpu(timer_mode, cpu);
		struct cpu_topology t;

		topology_of_cpu(cpu, &t);
		pr_info("  %3d  %7u  %3u %4u %6u  %16lld  %s\n", cpu, cpu_apic_id[cpu],
			t.package, t.core, t.thread,
			(long long)cpu_tsc_skew[cpu], mode ? mode : "none");
	}
}

void smp_boot_cpus(void)
{
	int next = 1, limit, cpu;
	int cpus[NR_CPUS] = { 0 }, res[NR_CPUS], n = 0;
	s64 worst = 0;
	u64 t0 = ktime_get_ns();

	bsp_cr0 = read_cr0();
	bsp_cr4 = read_cr4();
	/* An smp= that cannot be honoured as written says what is used. */
	unsigned int listed = acpi_info.have_madt ? (unsigned)acpi_info.nr_cpus : 1;
	unsigned int avail = listed < NR_CPUS ? listed : NR_CPUS;

	if (smp_max_cpus == 0)
		pr_warn("smp: smp=0 sets no limit: using all %u CPUs there are "
			"(the MADT lists %u, this kernel takes up to %d)\n", avail, listed, NR_CPUS);
	else if (smp_max_cpus != SMP_UNSET && smp_max_cpus > avail)
		pr_warn("smp: smp=%u is more than the %u CPUs there are (the MADT lists %u, "
			"this kernel takes up to %d): using %u\n", smp_max_cpus, avail, listed,
			NR_CPUS, avail);
	/* rcu_init() sized its tree by this (smp= and NR_CPUS included): a
	 * number beyond it would be a CPU RCU does not wait for. */
	limit = num_possible_cpus();
	if (!acpi_info.have_madt) {
		pr_warn("smp: no MADT: running on the boot CPU only\n");
		goto done;
	}
	if (!lapic_ok) {
		pr_warn("smp: no local APIC: running on the boot CPU only\n");
		goto done;
	}
	percpu_block_init(limit);
	for (int i = 0; i < acpi_info.nr_cpus; i++) {
		const struct acpi_cpu *c = &acpi_info.cpus[i];

		if (c->apic_id == cpu_apic_id[0])
			continue;
		if (next >= limit) {
			pr_info("smp: APIC id %u not started (%d possible CPUs, smp= and NR_CPUS included)\n",
				c->apic_id, limit);
			continue;
		}
		if (!x2apic_mode && c->apic_id > XAPIC_MAX_ID) {
			pr_warn("smp: APIC id %u needs x2APIC, which this CPU lacks; skipped\n",
				c->apic_id);
			continue;
		}
		smp_cpus_wanted++;
		if (prepare_cpu(next, c->apic_id, c->acpi_uid)) {
			smp_cpus_failed++;
			continue;	/* the number goes to the next one */
		}
		cpus[n++] = next++;
	}
	paging_identity_map_low(true);
	trampoline_open();
	if (smp_skip_apic != 0xffffffff)
		memcpy(low_page(DEADEND_PHYS), "\xfa\xf4\xeb\xfd", 4);
	sipi_and_wait(cpus, n, res, false);
	trampoline_close();
	for (int i = 0; i < n; i++) {
		if (res[i]) {
			boot_failed(cpus[i], res[i]);
			smp_cpus_failed++;
		}
	}
	paging_identity_map_low(false);
	pr_info("smp: %d of %d CPUs online in %llu us\n", num_online_cpus(), smp_cpus_wanted,
		(unsigned long long)(ktime_get_ns() - t0) / 1000);
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		cpu_tsc_skew[cpu] = tsc_check_sync(cpu);
		if (cpu_tsc_skew[cpu] > worst)
			worst = cpu_tsc_skew[cpu];
	}
	if (tsc_adjust_fixed_cpus())
		pr_warn("tsc: %d CPUs had a TSC_ADJUST other than the boot CPU's; set to it\n",
			tsc_adjust_fixed_cpus());
	tsc_sync_skew = worst > 0 ? (u64)worst : 0;
	if (num_online_cpus() > 1)
		pr_info("tsc: largest cross-CPU skew seen %lld cycles (%llu ns)%s\n",
			(long long)worst, (unsigned long long)cycles_to_ns(worst > 0 ? worst : 0),
			worst > 0 ? ": TSC NOT in sync" : "");
done:
	print_cpu_table();
}
