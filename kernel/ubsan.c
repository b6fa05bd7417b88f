/* kernel/ubsan.c: the kernel's own UBSan runtime.
 *
 * The test build (SANITIZE=1) compiles the kernel with -fsanitize=undefined;
 * GCC then calls these __ubsan_handle_* functions where it finds undefined
 * behaviour at run time.  Each prints "UBSAN: <kind> in <file>:<line>:<col>",
 * the details, and a backtrace, and counts the report in ubsan_reports; the
 * runner counts any "UBSAN:" line as a test failure.  A location reports
 * once (its column is overwritten, as Linux does), so a bug in a loop does
 * not drown the console.  The float handlers are left out: the kernel has
 * no floating point and the Makefile turns those checks off.
 *
 * This file itself must not be instrumented, or a report would recurse. */
#include "kernel/types.h"
#include "kernel/printk.h"
#include "kernel/ubsan.h"

#define __noubsan __attribute__((no_sanitize_undefined))

unsigned long ubsan_reports;

struct source_location {
	const char *file;
	u32 line;
	u32 column;
};

struct type_descriptor {
	u16 type_kind;		/* 0 integer, 1 float, 0xffff unknown */
	u16 type_info;		/* integer: log2(bit width) << 1 | signed */
	char type_name[];
};

struct type_mismatch_data_v1 {
	struct source_location loc;
	struct type_descriptor *type;
	u8 log_alignment;
	u8 type_check_kind;
};

struct overflow_data {
	struct source_location loc;
	struct type_descriptor *type;
};

struct shift_out_of_bounds_data {
	struct source_location loc;
	struct type_descriptor *lhs_type;
	struct type_descriptor *rhs_type;
};

struct out_of_bounds_data {
	struct source_location loc;
	struct type_descriptor *array_type;
	struct type_descriptor *index_type;
};

struct unreachable_data {
	struct source_location loc;
};

struct invalid_value_data {
	struct source_location loc;
	struct type_descriptor *type;
};

struct nonnull_arg_data {
	struct source_location loc;
	struct source_location attr_loc;
	int arg_index;
};

struct nonnull_return_data {
	struct source_location attr_loc;
};

struct pointer_overflow_data {
	struct source_location loc;
};

struct invalid_builtin_data {
	struct source_location loc;
	u8 kind;
};

/* type_check_kind, in the order the compiler numbers them. */
static const char *const type_check_kinds[] = {
	"load of", "store to", "reference binding to", "member access within",
	"member call on", "constructor call on", "downcast of", "downcast of",
	"upcast of", "cast to virtual base of", "_Nonnull binding to",
	"dynamic operation on",
};

/* Claims the report for this location; false if it was made before. */
static __noubsan bool ubsan_begin(struct source_location *loc, const char *kind)
{
	u32 col = __atomic_exchange_n(&loc->column, ~0u, __ATOMIC_RELAXED);
	if (col == ~0u)
		return false;
	__atomic_add_fetch(&ubsan_reports, 1, __ATOMIC_RELAXED);
	printk(KERN_ERR "UBSAN: %s in %s:%u:%u\n", kind,
	       loc->file ? loc->file : "?", loc->line, col);
	return true;
}

static __noubsan void ubsan_end(void)
{
	dump_stack();
}

static __noubsan bool type_is_int(const struct type_descriptor *t)
{
	return t->type_kind == 0;
}

static __noubsan bool type_is_signed(const struct type_descriptor *t)
{
	return t->type_info & 1;
}

static __noubsan unsigned int type_bits(const struct type_descriptor *t)
{
	return 1u << (t->type_info >> 1);
}

/* Values up to 64 bits come in the handle itself; wider ones by pointer. */
static __noubsan void format_value(char *buf, size_t size,
				   const struct type_descriptor *t, void *v)
{
	if (!type_is_int(t)) {
		snprintf(buf, size, "<%s value>", t->type_name);
		return;
	}
	unsigned int bits = type_bits(t);
	if (bits > 64) {
		snprintf(buf, size, "<%u-bit integer>", bits);
		return;
	}
	u64 raw = (u64)(uintptr_t)v;
	if (type_is_signed(t)) {
		/* Sign-extend from the type's width. */
		s64 s = bits == 64 ? (s64)raw : (s64)(raw << (64 - bits)) >> (64 - bits);
		snprintf(buf, size, "%lld", (long long)s);
	} else {
		if (bits < 64)
			raw &= (1ull << bits) - 1;
		snprintf(buf, size, "%llu", (unsigned long long)raw);
	}
}

static __noubsan void handle_overflow(struct overflow_data *d, void *lhs,
				      void *rhs, char op)
{
	char a[32], b[32];
	const char *kind = type_is_signed(d->type) ? "signed-integer-overflow"
						   : "unsigned-integer-overflow";
	if (!ubsan_begin(&d->loc, kind))
		return;
	format_value(a, sizeof(a), d->type, lhs);
	format_value(b, sizeof(b), d->type, rhs);
	printk(KERN_ERR "%s %c %s cannot be represented in type %s\n", a, op, b,
	       d->type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_add_overflow(struct overflow_data *d, void *lhs, void *rhs)
{
	handle_overflow(d, lhs, rhs, '+');
}

void __noubsan __ubsan_handle_sub_overflow(struct overflow_data *d, void *lhs, void *rhs)
{
	handle_overflow(d, lhs, rhs, '-');
}

void __noubsan __ubsan_handle_mul_overflow(struct overflow_data *d, void *lhs, void *rhs)
{
	handle_overflow(d, lhs, rhs, '*');
}

void __noubsan __ubsan_handle_negate_overflow(struct overflow_data *d, void *old)
{
	char a[32];
	if (!ubsan_begin(&d->loc, "negation-overflow"))
		return;
	format_value(a, sizeof(a), d->type, old);
	printk(KERN_ERR "negation of %s cannot be represented in type %s\n", a,
	       d->type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_divrem_overflow(struct overflow_data *d, void *lhs, void *rhs)
{
	char a[32], b[32];
	if (!ubsan_begin(&d->loc, "division-overflow"))
		return;
	format_value(a, sizeof(a), d->type, lhs);
	format_value(b, sizeof(b), d->type, rhs);
	if (type_is_int(d->type) && !rhs)
		printk(KERN_ERR "division of %s by zero\n", a);
	else
		printk(KERN_ERR "division of %s by %s cannot be represented in type %s\n",
		       a, b, d->type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_shift_out_of_bounds(struct shift_out_of_bounds_data *d,
						  void *lhs, void *rhs)
{
	char a[32], b[32];
	if (!ubsan_begin(&d->loc, "shift-out-of-bounds"))
		return;
	format_value(a, sizeof(a), d->lhs_type, lhs);
	format_value(b, sizeof(b), d->rhs_type, rhs);
	printk(KERN_ERR "shift of %s (%s) by %s (%s)\n", a, d->lhs_type->type_name,
	       b, d->rhs_type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_out_of_bounds(struct out_of_bounds_data *d, void *index)
{
	char i[32];
	if (!ubsan_begin(&d->loc, "array-index-out-of-bounds"))
		return;
	format_value(i, sizeof(i), d->index_type, index);
	printk(KERN_ERR "index %s is out of range for type %s\n", i,
	       d->array_type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_type_mismatch_v1(struct type_mismatch_data_v1 *d, void *ptr)
{
	unsigned long p = (unsigned long)ptr;
	unsigned long align = 1ul << d->log_alignment;
	const char *what = d->type_check_kind < ARRAY_SIZE(type_check_kinds)
				   ? type_check_kinds[d->type_check_kind] : "access to";

	if (!p) {
		if (!ubsan_begin(&d->loc, "null-pointer-dereference"))
			return;
		printk(KERN_ERR "%s null pointer of type %s\n", what, d->type->type_name);
	} else if (d->log_alignment && (p & (align - 1))) {
		if (!ubsan_begin(&d->loc, "misaligned-access"))
			return;
		printk(KERN_ERR "%s misaligned address 0x%lx for type %s, which requires %lu-byte alignment\n",
		       what, p, d->type->type_name, align);
	} else {
		if (!ubsan_begin(&d->loc, "object-size-mismatch"))
			return;
		printk(KERN_ERR "%s address 0x%lx with insufficient space for an object of type %s\n",
		       what, p, d->type->type_name);
	}
	ubsan_end();
}

void __noubsan __ubsan_handle_builtin_unreachable(struct unreachable_data *d)
{
	/* Execution went where the compiler assumed it never goes: what
	 * follows is not code at all, so stop here. */
	ubsan_begin(&d->loc, "unreachable");
	panic("UBSAN: execution reached __builtin_unreachable() at %s:%u",
	      d->loc.file ? d->loc.file : "?", d->loc.line);
}

void __noubsan __ubsan_handle_vla_bound_not_positive(struct overflow_data *d, void *bound)
{
	char b[32];
	if (!ubsan_begin(&d->loc, "vla-bound-not-positive"))
		return;
	format_value(b, sizeof(b), d->type, bound);
	printk(KERN_ERR "variable length array bound evaluates to non-positive value %s\n", b);
	ubsan_end();
}

void __noubsan __ubsan_handle_load_invalid_value(struct invalid_value_data *d, void *val)
{
	char v[32];
	if (!ubsan_begin(&d->loc, "invalid-load"))
		return;
	format_value(v, sizeof(v), d->type, val);
	printk(KERN_ERR "load of value %s is not a valid value for type %s\n", v,
	       d->type->type_name);
	ubsan_end();
}

void __noubsan __ubsan_handle_nonnull_arg(struct nonnull_arg_data *d)
{
	if (!ubsan_begin(&d->loc, "nonnull-attribute"))
		return;
	printk(KERN_ERR "null pointer passed as argument %d, which is declared to never be null\n",
	       d->arg_index);
	ubsan_end();
}

void __noubsan __ubsan_handle_nonnull_return_v1(struct nonnull_return_data *d,
						struct source_location *loc)
{
	if (!ubsan_begin(loc, "returns-nonnull-attribute"))
		return;
	printk(KERN_ERR "null pointer returned from function declared to never return null (%s:%u)\n",
	       d->attr_loc.file ? d->attr_loc.file : "?", d->attr_loc.line);
	ubsan_end();
}

void __noubsan __ubsan_handle_pointer_overflow(struct pointer_overflow_data *d,
					       void *base, void *result)
{
	if (!ubsan_begin(&d->loc, "pointer-overflow"))
		return;
	printk(KERN_ERR "pointer arithmetic on 0x%lx overflowed to 0x%lx\n",
	       (unsigned long)base, (unsigned long)result);
	ubsan_end();
}

void __noubsan __ubsan_handle_invalid_builtin(struct invalid_builtin_data *d)
{
	if (!ubsan_begin(&d->loc, "invalid-builtin-use"))
		return;
	printk(KERN_ERR "passing zero to %s, which is not a valid argument\n",
	       d->kind == 0 ? "ctz()" : "clz()");
	ubsan_end();
}
