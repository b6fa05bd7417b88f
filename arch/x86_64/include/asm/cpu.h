/* asm/cpu.h: the x86 instructions generic code reaches through small
 * inline wrappers (port I/O, MSRs, control registers, CPUID, TSC, irq flags).
 * Only arch/x86_64 and these headers know x86. */
#pragma once

#include "kernel/types.h"

#define X86_EFLAGS_IF 0x200

#define MSR_EFER 0xc0000080
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define EFER_NXE (1u << 11)

static inline void outb(u16 port, u8 v) { __asm__ __volatile__("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ __volatile__("outw %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ __volatile__("outl %0, %1" ::"a"(v), "Nd"(port)); }
static inline u8 inb(u16 port) { u8 v; __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline u16 inw(u16 port) { u16 v; __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline u32 inl(u16 port) { u32 v; __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" ::"c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline void cpuid_count(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid_count(leaf, 0, a, b, c, d);
}

static inline u64 read_cr0(void) { u64 v; __asm__ __volatile__("mov %%cr0, %0" : "=r"(v)); return v; }
static inline u64 read_cr2(void) { u64 v; __asm__ __volatile__("mov %%cr2, %0" : "=r"(v)); return v; }
static inline u64 read_cr3(void) { u64 v; __asm__ __volatile__("mov %%cr3, %0" : "=r"(v)); return v; }
static inline u64 read_cr4(void) { u64 v; __asm__ __volatile__("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr0(u64 v) { __asm__ __volatile__("mov %0, %%cr0" ::"r"(v) : "memory"); }
static inline void write_cr3(u64 v) { __asm__ __volatile__("mov %0, %%cr3" ::"r"(v) : "memory"); }
static inline void write_cr4(u64 v) { __asm__ __volatile__("mov %0, %%cr4" ::"r"(v) : "memory"); }

/* Plain TSC read: may be reordered with surrounding loads. */
static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/* TSC read for measurement: lfence keeps earlier instructions from
 * finishing after the read (SDM: LFENCE serialises RDTSC against prior
 * instructions). */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;
	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((u64)hi << 32) | lo;
}

static inline unsigned long arch_local_save_flags(void)
{
	unsigned long f;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(f)::"memory");
	return f;
}

static inline void arch_local_irq_disable(void) { __asm__ __volatile__("cli" ::: "memory"); }
static inline void arch_local_irq_enable(void) { __asm__ __volatile__("sti" ::: "memory"); }

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long f = arch_local_save_flags();
	arch_local_irq_disable();
	return f;
}

static inline void arch_local_irq_restore(unsigned long f)
{
	if (f & X86_EFLAGS_IF)
		arch_local_irq_enable();
}

static inline bool arch_irqs_disabled_flags(unsigned long f) { return !(f & X86_EFLAGS_IF); }

/* sti;hlt: the one-instruction interrupt shadow of sti means no interrupt
 * can slip in between, so a wake-up interrupt cannot be lost before hlt. */
static inline void arch_safe_halt(void) { __asm__ __volatile__("sti; hlt" ::: "memory"); }

/* The idle loop's halt (arch/x86_64/process.c): called with irqs off,
 * returns with them on, after an interrupt.  Before halting it makes sure
 * the CPU's tick will wake it, and that C1E will not stop it. */
void arch_cpu_idle(void);
static inline void arch_halt(void) { __asm__ __volatile__("hlt" ::: "memory"); }
static inline void arch_cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }

static inline unsigned long arch_frame_pointer(void)
{
	return (unsigned long)__builtin_frame_address(0);
}
