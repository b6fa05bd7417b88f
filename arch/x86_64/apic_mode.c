/* arch/x86_64/apic_mode.c: the choice between xAPIC (MMIO) and x2APIC
 * (MSR) mode, as pure code so the host tests can walk every case QEMU's
 * TCG cannot show (it offers no x2APIC).  arch/x86_64/lapic.c applies
 * the answer.
 *
 * The rule is Linux's (try_to_enable_x2apic()) for a kernel that never
 * sets up interrupt remapping: on bare metal x2APIC without remapping is
 * not architecturally supported, so xAPIC is kept unless firmware
 * already enabled x2APIC (leaving it needs a full APIC disable, which
 * the SDM discourages once firmware has routed interrupts) or some APIC
 * id is above 254, which only x2APIC can reach.  Under a hypervisor the
 * virtual APIC needs no remapping and x2APIC saves exits.  The ACPI DMAR
 * table's X2APIC_OPT_OUT flag (dmar_x2apic_optout()), which real
 * firmware often sets, and apic=xapic keep xAPIC. */
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/acpi.h"

void apic_choose_mode(const struct apic_mode_in *in, struct apic_mode_out *out)
{
	bool opt_out = in->have_dmar && (in->dmar_flags & ACPI_DMAR_X2APIC_OPT_OUT);

	out->param_ignored = false;
	if (in->fw_x2apic) {
		out->x2apic = true;
		out->param_ignored = in->want_xapic;
		out->why = "enabled by firmware";
	} else if (!in->has_x2apic) {
		out->x2apic = false;
		out->why = "the CPU has no x2APIC";
	} else if (in->want_xapic) {
		out->x2apic = false;
		out->why = "apic=xapic";
	} else if (opt_out) {
		out->x2apic = false;
		out->why = "the firmware opts out of x2APIC (ACPI DMAR)";
	} else if (in->need_x2apic) {
		out->x2apic = true;
		out->why = "APIC ids above 254";
	} else if (in->hypervisor) {
		out->x2apic = true;
		out->why = "virtual APIC";
	} else {
		out->x2apic = false;
		out->why = "no interrupt remapping on bare metal";
	}
	out->ids_unreachable = in->need_x2apic && !out->x2apic;
}
