/* tests/host/test_apicmode.c: arch/x86_64/apic_mode.c, the xAPIC/x2APIC
 * choice, over every combination of its four inputs: QEMU 7.2's TCG has
 * no x2APIC, so firmware-enabled x2APIC and APIC ids above 254 are only
 * seen here.  Prints TAP; exits non-zero on a failure. */
#include <stdio.h>
#include "arch/x86_64/lapic.h"

int main(void)
{
	int failures = 0, n = 0;

	printf("TAP version 13\n1..16\n");
	for (int bits = 0; bits < 16; bits++) {
		struct apic_mode_in in = {
			.has_x2apic = bits & 1, .fw_x2apic = bits & 2,
			.want_xapic = bits & 4, .need_x2apic = bits & 8,
		};
		struct apic_mode_out out;
		/* The rules: firmware's x2APIC is kept; else the CPU's x2APIC
		 * is used unless apic=xapic; ids above 254 need x2APIC. */
		bool want_x2 = in.fw_x2apic || (in.has_x2apic && !in.want_xapic);
		bool want_unreach = in.need_x2apic && !want_x2;
		bool want_ignored = in.fw_x2apic && in.want_xapic;

		apic_choose_mode(&in, &out);
		bool ok = out.x2apic == want_x2 && out.ids_unreachable == want_unreach &&
			  out.param_ignored == want_ignored;
		printf("%sok %d has_x2=%d fw_x2=%d want_xapic=%d need_x2=%d -> x2apic=%d unreachable=%d ignored=%d\n",
		       ok ? "" : "not ", ++n, in.has_x2apic, in.fw_x2apic, in.want_xapic,
		       in.need_x2apic, out.x2apic, out.ids_unreachable, out.param_ignored);
		failures += !ok;
	}
	/* Firmware enabled x2APIC, ids past 255. */
	struct apic_mode_in fw = { .has_x2apic = true, .fw_x2apic = true, .need_x2apic = true };
	struct apic_mode_out out;

	apic_choose_mode(&fw, &out);
	if (!out.x2apic || out.ids_unreachable) {
		printf("# firmware x2APIC with ids above 255: wrong choice\n");
		failures++;
	}
	printf("# test_apicmode: %d failed\n", failures);
	return failures ? 1 : 0;
}
