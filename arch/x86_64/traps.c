/* arch/x86_64/traps.c: CPU exceptions.  Every exception the kernel does
 * not expect is fatal: it prints what happened (vector, error code, CR2 for
 * page faults, all registers, a symbolized backtrace) and panics.  The
 * exception tests expect (probe_fault) are turned into a return value. */
#include "asm/irq.h"
#include "asm/cpu.h"
#include "asm/desc.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/stacktrace.h"
#include "kernel/vmstack.h"

static const char *const exception_names[32] = {
	"divide error (#DE)", "debug (#DB)", "NMI", "breakpoint (#BP)",
	"overflow (#OF)", "bound range (#BR)", "invalid opcode (#UD)",
	"device not available (#NM)", "double fault (#DF)",
	"coprocessor segment overrun", "invalid TSS (#TS)",
	"segment not present (#NP)", "stack fault (#SS)",
	"general protection (#GP)", "page fault (#PF)", "reserved 15",
	"x87 floating point (#MF)", "alignment check (#AC)",
	"machine check (#MC)", "SIMD floating point (#XM)",
	"virtualization (#VE)", "control protection (#CP)", "reserved 22",
	"reserved 23", "reserved 24", "reserved 25", "reserved 26",
	"reserved 27", "hypervisor injection (#HV)", "VMM communication (#VC)",
	"security (#SX)", "reserved 31",
};

DEFINE_PER_CPU(unsigned long, probe_rsp);

/* probe_fault(fn, arg): see asm/irq.h.  On a fault, do_exception resumes
 * at probe_fault_out on the stack saved here, with the vector in %rax. */
__asm__(
	".pushsection .text\n"
	".globl probe_fault\n"
	".type probe_fault, @function\n"
	"probe_fault:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	push %r13\n"
	"	push %r14\n"
	"	push %r15\n"
	"	sub $8, %rsp\n"
	"	mov %rsp, %gs:probe_rsp(%rip)\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	call *%rax\n"
	"	xor %eax, %eax\n"
	"probe_fault_out:\n"
	"	movq $0, %gs:probe_rsp(%rip)\n"
	"	add $8, %rsp\n"
	"	pop %r15\n"
	"	pop %r14\n"
	"	pop %r13\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	pop %rbp\n"
	"	ret\n"
	".size probe_fault, .-probe_fault\n"
	".popsection\n");
extern char probe_fault_out[];

void show_regs(const struct pt_regs *r)
{
	char sym[96];

	sprint_symbol(sym, sizeof(sym), r->rip);
	printk(KERN_EMERG "RIP: %04lx:%016lx %s\n", r->cs, r->rip, sym);
	printk(KERN_EMERG "RSP: %04lx:%016lx RFLAGS: %08lx\n", r->ss, r->rsp, r->rflags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n", r->rax, r->rbx, r->rcx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n", r->rdx, r->rsi, r->rdi);
	printk(KERN_EMERG "RBP: %016lx R08: %016lx R09: %016lx\n", r->rbp, r->r8, r->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11, r->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	printk(KERN_EMERG "CR0: %016lx CR2: %016lx CR3: %016lx CR4: %016lx\n",
	       read_cr0(), read_cr2(), read_cr3(), read_cr4());
}

void do_exception(struct pt_regs *regs)
{
	unsigned int vec = regs->vector;
	unsigned long cr2 = vec == 14 ? read_cr2() : 0;
	unsigned long probe = this_cpu_read(probe_rsp);

	if (probe && vec != 2 && vec != 8 && vec != 18) {
		regs->rip = (unsigned long)probe_fault_out;
		regs->rsp = probe;
		regs->rax = vec;
		return;
	}

	printk_bust_locks();
	printk(KERN_EMERG "Oops: %s, error code 0x%lx, on CPU %d\n",
	       exception_names[vec & 31], regs->error_code, raw_smp_processor_id());
	if (vec == 14) {
		const char *what = regs->error_code & 1 ? "protection violation" : "not-present page";
		const char *how = regs->error_code & 16 ? "instruction fetch" :
				  regs->error_code & 2 ? "write" : "read";
		printk(KERN_EMERG "BUG: %s: %s at address %016lx\n",
		       is_stack_guard(cr2) ? "kernel stack overflow (guard page hit)" : what,
		       how, cr2);
	}
	/* An overflow mostly ends here: the CPU could not push the #PF
	 * frame onto the guard page either.  CR2 still names that page. */
	if (vec == 8 && is_stack_guard(read_cr2()))
		printk(KERN_EMERG "BUG: kernel stack overflow (guard page hit) at address %016lx\n",
		       read_cr2());
	if (vec == 8 || vec == 14) {
		int cpu;
		const char *ist = ist_stack_guard_name(vec == 14 ? cr2 : read_cr2(), &cpu);

		if (ist)
			printk(KERN_EMERG "BUG: the %s IST stack of CPU %d overflowed\n", ist, cpu);
	}
	show_regs(regs);
	show_stack_sp(regs->rbp, regs->rip, regs->rsp);
	panic("Fatal exception: %s", exception_names[vec & 31]);
}
