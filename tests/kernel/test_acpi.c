/* tests/kernel/test_acpi.c: KTAP suite `acpi_hw`: what the boot took from
 * the real (QEMU's or the PC's) ACPI tables, checked against the machine:
 * every enabled MADT CPU accounted for, the LAPIC and I/O APIC answering,
 * and the TSC frequency cross-checked against a second clock.
 * `acpi.expect=0|1` says whether tables must be there (the -no-acpi run
 * sets 0). */
#include "kernel/ktap.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/tsc.h"
#include "asm/irqflags.h"
#include "asm/smp.h"
#include "kernel/string.h"

static int expect_acpi = -1;
core_param(acpi.expect, expect_acpi, int, "test: 1 if ACPI tables must be found, 0 if they must not");

static void acpi_tables_as_expected(void)
{
	ktap_log("ACPI %s, rev %u, MADT %d CPUs, HPET %s, PM timer port 0x%x",
		 acpi_info.present ? "present" : "absent", acpi_info.revision,
		 acpi_info.nr_cpus, acpi_info.have_hpet ? "yes" : "no",
		 acpi_info.pm_tmr_port);
	if (expect_acpi >= 0)
		KTAP_EXPECT_EQ(acpi_info.present, expect_acpi);
	if (!acpi_info.present) {
		KTAP_EXPECT_EQ(num_online_cpus(), 1);
		return;
	}
	KTAP_EXPECT(acpi_info.have_madt);
	KTAP_EXPECT(acpi_info.nr_cpus >= 1);
	KTAP_EXPECT_EQ(acpi_info.madt_errors, 0);
	KTAP_EXPECT_EQ(acpi_info.tables_bad, 0);
}

/* False, the case skipped, when the firmware gave no MADT. */
static bool have_madt(void)
{
	if (!acpi_info.have_madt)
		ktap_skip("no MADT");
	return acpi_info.have_madt;
}

static void madt_cpus_all_accounted(void)
{
	int cpu;

	if (!have_madt())
		return;
	/* Every online CPU is a MADT CPU, and the boot CPU is among them. */
	for_each_online_cpu(cpu) {
		bool found = false;

		for (int i = 0; i < acpi_info.nr_cpus; i++)
			if (acpi_info.cpus[i].apic_id == cpu_apic_id[cpu])
				found = true;
		if (!found)
			ktap_fail("CPU %d's APIC id %u is not in the MADT", cpu, cpu_apic_id[cpu]);
	}
	/* Without smp= or a failed CPU, every MADT CPU is online. */
	if (smp_cpus_wanted == acpi_info.nr_cpus && smp_cpus_failed == 0)
		KTAP_EXPECT_EQ(num_online_cpus(), acpi_info.nr_cpus);
	KTAP_EXPECT(num_online_cpus() <= acpi_info.nr_cpus);
}

static void lapic_registers_answer(void)
{
	unsigned long flags;
	u32 ver, id;

	local_irq_save(flags);
	ver = lapic_read(APIC_VER);
	id = lapic_id();
	local_irq_restore(flags);
	ktap_log("%s mode, version 0x%x, max LVT %u", x2apic_mode ? "x2APIC" : "xAPIC",
		 ver & 0xff, (ver >> 16) & 0xff);
	/* Integrated APICs are version 0x1X; 0 or 0xff means no device there. */
	KTAP_EXPECT((ver & 0xf0) == 0x10);
	KTAP_EXPECT_EQ(id, cpu_apic_id[raw_smp_processor_id()]);
}

static void read_lvts(void *p)
{
	u32 *v = p;

	v[0] = lapic_read(APIC_LVT0);
	v[1] = lapic_read(APIC_LVT1);
}

/* The MADT's LAPIC NMI entries are applied on every CPU: the LINT pin
 * they name is an unmasked NMI input, and a pin no entry names is masked. */
static void madt_nmi_lints_applied(void)
{
	int cpu;

	if (!have_madt())
		return;
	for_each_online_cpu(cpu) {
		u32 v[2] = { 0, 0 };
		u32 uid = acpi_uid_of(cpu_apic_id[cpu]);

		KTAP_ASSERT(smp_call_function_single(cpu, read_lvts, v, 1) == 0);
		for (int lint = 0; lint < 2; lint++) {
			bool nmi = false;

			for (int i = 0; i < acpi_info.nr_lapic_nmis; i++) {
				const struct acpi_lapic_nmi *n = &acpi_info.lapic_nmis[i];

				if (n->lint == lint &&
				    (n->acpi_uid == ACPI_UID_ALL || n->acpi_uid == uid))
					nmi = true;
			}
			bool is_nmi = !(v[lint] & APIC_LVT_MASKED) &&
				      (v[lint] & 0x700) == APIC_DM_NMI;

			if (nmi != is_nmi || (!nmi && !(v[lint] & APIC_LVT_MASKED)))
				ktap_fail("CPU %d LINT%d = 0x%x, MADT says %s", cpu, lint,
					  v[lint], nmi ? "NMI" : "unused (masked)");
		}
	}
	ktap_log("%d LAPIC NMI entries checked on %d CPUs", acpi_info.nr_lapic_nmis,
		 num_online_cpus());
}

/* The TSC rate the boot chose, measured again on another clock; loosely,
 * as the host can stretch either measurement under emulation. */
static void tsc_frequency_cross_checked(void)
{
	u64 other = 0;
	const char *name = NULL;

	ktap_log("TSC %llu kHz by %s, %sinvariant", (unsigned long long)tsc_khz,
		 tsc_method, tsc_invariant ? "" : "not ");
	if (strcmp(tsc_method, "pmtimer") && (other = tsc_measure_khz_pmtimer(50)))
		name = "PM timer";
	else if (strcmp(tsc_method, "hpet") && (other = tsc_measure_khz_hpet(50)))
		name = "HPET";
	else if (strcmp(tsc_method, "pit") && (other = tsc_measure_khz_pit(50)))
		name = "PIT";
	if (!other) {
		ktap_skip("no second clock to compare with");
		return;
	}
	ktap_log("%s says %llu kHz", name, (unsigned long long)other);
	if (other * 4 < tsc_khz * 3 || other * 4 > tsc_khz * 5)
		ktap_fail("TSC %llu kHz vs %s %llu kHz: more than 25%% apart",
			  (unsigned long long)tsc_khz, name, (unsigned long long)other);
}

KTAP_SUITE(acpi_hw,
	   KTAP_CASE(acpi_tables_as_expected),
	   KTAP_CASE(madt_cpus_all_accounted),
	   KTAP_CASE(lapic_registers_answer),
	   KTAP_CASE(madt_nmi_lints_applied),
	   KTAP_CASE(tsc_frequency_cross_checked));
