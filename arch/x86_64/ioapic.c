/* arch/x86_64/ioapic.c: the I/O APICs.  At boot every input is masked;
 * the few device interrupts the kernel uses are routed one by one, after
 * the MADT's interrupt source overrides (the PIT's irq 0 is usually GSI 2,
 * the ACPI SCI level/low).  Destinations are physical APIC ids: without
 * interrupt remapping an I/O APIC can reach only ids up to 254. */
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/mmio.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"

#define IOREGSEL 0x00
#define IOWIN    0x10
#define IOAPIC_VER 0x01
#define IOAPIC_REDTBL(n) (0x10 + 2 * (n))
#define RTE_MASKED (1u << 16)
#define RTE_LEVEL (1u << 15)
#define RTE_ACTIVE_LOW (1u << 13)

struct ioapic {
	volatile u32 *regs;
	u32 gsi_base;
	unsigned int nr_pins;
};

static struct ioapic ioapics[ACPI_MAX_IOAPICS];
static int nr_ioapics;
static DEFINE_SPINLOCK(ioapic_lock);	/* IOREGSEL/IOWIN is a two-step access */

static u32 io_read(struct ioapic *io, u32 reg)
{
	mmio_write32(io->regs + IOREGSEL / 4, reg);
	return mmio_read32(io->regs + IOWIN / 4);
}

static void io_write(struct ioapic *io, u32 reg, u32 v)
{
	mmio_write32(io->regs + IOREGSEL / 4, reg);
	mmio_write32(io->regs + IOWIN / 4, v);
}

void ioapic_init(void)
{
	for (int i = 0; i < acpi_info.nr_ioapics; i++) {
		const struct acpi_ioapic *a = &acpi_info.ioapics[i];
		struct ioapic *io = &ioapics[nr_ioapics];

		io->regs = ioremap(a->phys, 4096);
		if (!io->regs) {
			pr_err("ioapic: cannot map I/O APIC %u at 0x%x\n", a->id, a->phys);
			continue;
		}
		io->gsi_base = a->gsi_base;
		io->nr_pins = ((io_read(io, IOAPIC_VER) >> 16) & 0xff) + 1;
		for (unsigned int p = 0; p < io->nr_pins; p++) {
			io_write(io, IOAPIC_REDTBL(p), RTE_MASKED);
			io_write(io, IOAPIC_REDTBL(p) + 1, 0);
		}
		pr_info("ioapic: id %u at 0x%x, GSIs %u-%u, all masked\n", a->id,
			a->phys, io->gsi_base, io->gsi_base + io->nr_pins - 1);
		nr_ioapics++;
	}
}

static struct ioapic *find_gsi(u32 gsi, unsigned int *pin)
{
	for (int i = 0; i < nr_ioapics; i++) {
		if (gsi >= ioapics[i].gsi_base &&
		    gsi < ioapics[i].gsi_base + ioapics[i].nr_pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	}
	return NULL;
}

/* ISA irqs are edge/active-high on GSI == irq unless overridden. */
static u32 isa_to_gsi(unsigned int irq, u32 *rte_flags)
{
	*rte_flags = 0;
	for (int i = 0; i < acpi_info.nr_isos; i++) {
		const struct acpi_iso *o = &acpi_info.isos[i];

		if (o->bus != 0 || o->source != irq)
			continue;
		if ((o->flags & ACPI_INTI_POL_MASK) == ACPI_INTI_POL_LOW)
			*rte_flags |= RTE_ACTIVE_LOW;
		if ((o->flags & ACPI_INTI_TRIG_MASK) == ACPI_INTI_TRIG_LEVEL)
			*rte_flags |= RTE_LEVEL;
		return o->gsi;
	}
	return irq;
}

int ioapic_route_isa_irq(unsigned int irq, u8 vector, u32 apic_id)
{
	u32 flags, gsi = isa_to_gsi(irq, &flags);
	unsigned int pin;
	struct ioapic *io = find_gsi(gsi, &pin);
	unsigned long f;

	if (!io) {
		pr_err("ioapic: no I/O APIC serves ISA irq %u (GSI %u)\n", irq, gsi);
		return -ENODEV;
	}
	if (apic_id > 0xfe) {
		pr_err("ioapic: APIC id %u unreachable without interrupt remapping\n", apic_id);
		return -EINVAL;
	}
	spin_lock_irqsave(&ioapic_lock, f);
	io_write(io, IOAPIC_REDTBL(pin) + 1, apic_id << 24);
	io_write(io, IOAPIC_REDTBL(pin), vector | flags);
	spin_unlock_irqrestore(&ioapic_lock, f);
	return 0;
}

void ioapic_mask_isa_irq(unsigned int irq)
{
	u32 flags, gsi = isa_to_gsi(irq, &flags);
	unsigned int pin;
	struct ioapic *io = find_gsi(gsi, &pin);
	unsigned long f;

	if (!io)
		return;
	spin_lock_irqsave(&ioapic_lock, f);
	io_write(io, IOAPIC_REDTBL(pin), RTE_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, f);
}
