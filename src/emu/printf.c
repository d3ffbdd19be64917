/*
 * printf.c - device printf in the emulator: the CALL family
 * (src/ptx/forms_call.def), call.uni of vprintf and the st.param of its
 * arguments.
 *
 * The call's arguments are the generic addresses of a NUL-terminated
 * format and of the argument buffer (codegen/printf.c lays it out): each
 * conversion reads its promoted argument (4-byte int, 8-byte long long or
 * double) at the next offset aligned to its size, as the device does.
 * The formatted text goes to stdout, one call at a time in the order the
 * emulator runs the threads (the GPU orders lines by its own schedule);
 * the return value is the number of bytes written.  The conversions are
 * pf_scan's (base/printf_fmt.c), the same ones the compiler accepted.
 */
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"

#define FMT_MAX 4096   /* bytes of a format, its NUL included */
#define OUT_MAX 16384  /* bytes of one call's text */

static uint64_t
read_u64(Run *r, Cta *c, Thread *t, const Insn *in, int sp, uint64_t a,
	 unsigned n)
{
	return emu_load_le(emu_mem(r, c, t, in, sp, a, n, false), n);
}

/* The format string, read byte by byte (it may end at any address). */
static void
read_format(Run *r, Cta *c, Thread *t, const Insn *in, uint64_t a,
	    char *out)
{
	for (size_t i = 0; i < FMT_MAX; i++) {
		out[i] = (char)*emu_mem(r, c, t, in, PSP_GENERIC, a + i, 1, false);
		if (!out[i])
			return;
	}
	emu_fail(r, PT_E_EMU_PRINTF, t, in,
		 "printf format longer than %d bytes", FMT_MAX - 1);
}

/* One conversion of sp with the argument at args+*off. */
static int
format_one(Run *r, Cta *c, Thread *t, const Insn *in, const PfSpec *sp,
	   uint64_t args, uint64_t *off, char *dst, size_t room)
{
	unsigned n = sp->arg == PF_INT || sp->arg == PF_UINT ? 4 : 8;
	*off = (*off + n - 1) / n * n;
	if (!args)
		emu_fail(r, PT_E_EMU_PRINTF, t, in,
			 "printf conversion with no argument buffer");
	uint64_t v = read_u64(r, c, t, in, PSP_GENERIC, args + *off, n);
	*off += n;
	char f[40];
	snprintf(f, sizeof f, "%s%s%c", sp->head, n == 8 && sp->arg != PF_DOUBLE
							 ? "ll" : "", sp->conv);
	switch (sp->arg) {
	case PF_INT: return snprintf(dst, room, f, (int)(int32_t)v);
	case PF_UINT: return snprintf(dst, room, f, (unsigned)v);
	case PF_INT64: return snprintf(dst, room, f, (long long)v);
	case PF_UINT64: return snprintf(dst, room, f, (unsigned long long)v);
	default: {
		double d;
		memcpy(&d, &v, 8);
		return snprintf(dst, room, f, d);
	}
	}
}

/* call.uni (ret), vprintf, (fmt, args): formats like the device's
 * printf and writes the text to stdout; each list names call-block
 * .params, the thread's local addresses (the loader's). */
static void
exec_vprintf(Run *r, Cta *c, Thread *t, const Insn *in)
{
	uint64_t ret_at = (uint64_t)vec_elem(r, &in->o[0], 0)->imm;
	uint64_t fa = read_u64(r, c, t, in, PSP_LOCAL,
			       (uint64_t)vec_elem(r, &in->o[2], 0)->imm, 8);
	uint64_t args = read_u64(r, c, t, in, PSP_LOCAL,
				 (uint64_t)vec_elem(r, &in->o[2], 1)->imm, 8);
	const size_t room = OUT_MAX;
	char fmt[FMT_MAX], out[OUT_MAX];
	read_format(r, c, t, in, fa, fmt);
	size_t len = 0;
	uint64_t off = 0;
	for (size_t i = 0; fmt[i] && len + 1 < room;) {
		if (fmt[i] != '%') {
			out[len++] = fmt[i++];
			continue;
		}
		PfSpec sp;
		const char *why;
		size_t n = pf_scan(fmt + i, &sp, &why);
		if (!n)
			emu_fail(r, PT_E_EMU_PRINTF, t, in, "printf format: %s",
				 why);
		i += n;
		if (sp.arg == PF_NONE) {
			out[len++] = '%';
			continue;
		}
		int w = format_one(r, c, t, in, &sp, args, &off, out + len,
				   room - len);
		if (w > 0)
			len += (size_t)w < room - len ? (size_t)w : room - len - 1;
	}
	fwrite(out, 1, len, stdout);
	fflush(stdout);
	uint8_t *ret = emu_mem(r, c, t, in, PSP_LOCAL, ret_at, 4, true);
	for (int b = 0; b < 4; b++)
		ret[b] = (uint8_t)(len >> (8 * b));
}

/* The CALL family's thread executor: the call, or a call argument's
 * st.param, a store to the thread's local memory (the loader maps the
 * block's .params there). */
void
exec_call(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->op == PTXMN_CALL)
		exec_vprintf(r, c, t, in);
	else
		exec_mem(r, c, t, in);
}
