/* arch/x86_64/cpu.c: who the boot CPU is (vendor, family, model,
 * stepping, microcode revision), decoded as Linux's cpu/common.c does,
 * for the errata checks (arch/x86_64/errata.c) and the boot log. */
#include "asm/cpufeature.h"
#include "kernel/string.h"

#define MSR_IA32_UCODE_REV    0x0000008b	/* Intel: revision in bits 63:32 */
#define MSR_AMD64_PATCH_LEVEL 0x0000008b	/* AMD: revision in bits 31:0 */

struct cpuinfo_x86 boot_cpu_data;
u32 boot_cr4_at_entry;		/* set by boot/entry.asm */

const char *x86_vendor_name(const struct cpuinfo_x86 *c)
{
	static const char *const names[] = {
		[X86_VENDOR_OTHER] = "other", [X86_VENDOR_INTEL] = "Intel",
		[X86_VENDOR_AMD] = "AMD", [X86_VENDOR_HYGON] = "Hygon",
	};

	return c->x86_vendor < ARRAY_SIZE(names) ? names[c->x86_vendor] : "?";
}

void cpu_identify(struct cpuinfo_x86 *c)
{
	u32 a, b, cx, d, sig;
	char vendor[13];

	memset(c, 0, sizeof(*c));
	cpuid(0, &a, &b, &cx, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &cx, 4);
	vendor[12] = 0;
	if (!strcmp(vendor, "GenuineIntel"))
		c->x86_vendor = X86_VENDOR_INTEL;
	else if (!strcmp(vendor, "AuthenticAMD"))
		c->x86_vendor = X86_VENDOR_AMD;
	else if (!strcmp(vendor, "HygonGenuine"))
		c->x86_vendor = X86_VENDOR_HYGON;
	cpuid(1, &sig, &b, &cx, &d);
	/* SDM vol 2 CPUID.1:EAX: the extended family counts only when the
	 * family is 0xf; the extended model when the family is 6 or 0xf. */
	c->x86 = (sig >> 8) & 0xf;
	if (c->x86 == 0xf)
		c->x86 += (sig >> 20) & 0xff;
	c->x86_model = (sig >> 4) & 0xf;
	if (c->x86 >= 0x6)
		c->x86_model += ((sig >> 16) & 0xf) << 4;
	c->x86_stepping = sig & 0xf;

	/* Intel: write 0, CPUID(1), then the MSR holds the loaded update's
	 * revision (SDM vol 3 9.11.7.1).  AMD from family 0x10 has it in
	 * PATCH_LEVEL. */
	if (c->x86_vendor == X86_VENDOR_INTEL && c->x86 >= 6) {
		wrmsr(MSR_IA32_UCODE_REV, 0);
		cpuid(1, &a, &b, &cx, &d);
		c->microcode = (u32)(rdmsr(MSR_IA32_UCODE_REV) >> 32);
	} else if ((c->x86_vendor == X86_VENDOR_AMD && c->x86 >= 0x10) ||
		   c->x86_vendor == X86_VENDOR_HYGON) {
		c->microcode = (u32)rdmsr(MSR_AMD64_PATCH_LEVEL);
	}
}

#define MSR_AMD64_DE_CFG 0xc0011029
#define DE_CFG_LFENCE_SERIALIZE (1ull << 1)

void cpu_init_this(void)
{
	/* AMD families 10h-17h (and Hygon 18h): LFENCE serialises, so that
	 * rdtsc_ordered()'s lfence;rdtsc is ordered, only with DE_CFG bit
	 * 1 set (Linux's init_amd()).  K8 and 11h always serialise it. */
	if ((boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
	     boot_cpu_data.x86_vendor == X86_VENDOR_HYGON) &&
	    boot_cpu_data.x86 >= 0x10 && boot_cpu_data.x86 != 0x11 &&
	    boot_cpu_data.x86 <= 0x18) {
		u64 v = rdmsr(MSR_AMD64_DE_CFG);

		if (!(v & DE_CFG_LFENCE_SERIALIZE))
			wrmsr(MSR_AMD64_DE_CFG, v | DE_CFG_LFENCE_SERIALIZE);
	}
}
