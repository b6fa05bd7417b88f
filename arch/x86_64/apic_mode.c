/* arch/x86_64/apic_mode.c: the choice between xAPIC (MMIO) and x2APIC
 * (MSR) mode, as pure code so the host tests can walk every case QEMU's
 * TCG cannot show (it offers no x2APIC): firmware that already enabled
 * x2APIC, and MADT APIC ids above 254 that only x2APIC can reach.
 * arch/x86_64/lapic.c applies the answer. */
#include "arch/x86_64/lapic.h"

void apic_choose_mode(const struct apic_mode_in *in, struct apic_mode_out *out)
{
	out->x2apic = in->has_x2apic;
	out->param_ignored = false;
	if (in->want_xapic && in->has_x2apic && !in->fw_x2apic)
		out->x2apic = false;
	/* Enabled by firmware: leaving it needs a full APIC disable first,
	 * which the SDM discourages once interrupts have been routed. */
	if (in->fw_x2apic) {
		out->param_ignored = in->want_xapic;
		out->x2apic = true;
	}
	out->ids_unreachable = in->need_x2apic && !out->x2apic;
}
