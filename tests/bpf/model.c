/* SPDX-License-Identifier: ISC */
/*
 * The policy of lib/bpf/bpf.h written out plainly, independently
 * of the generator: the reference the generated programs are compared
 * with.
 */
#include <linux/audit.h>
#include <errno.h>
#include <stdbool.h>

#include "model.h"

enum kind { NONE, MMAP, MPROTECT, MREMAP, SHMAT, PERSONALITY, EXEC,
	OPAQUE, MMAP32, MPROTECT32, IOCTL, SECCOMP, KEYCTL, ARCH_PRCTL,
	PTRACE, NOPTRACE, CLONE, CLONE3, URING, BPF, PERF, CLOCKSET, CLOCKID,
	REQKEY, CONNECT, UNIXSOCK, DENIED, PRLIMIT, FCNTL, SIGNAL1, SIGNAL2,
	SETPGID };

/* From arch/x86/entry/syscalls/syscall_{64,32}.tbl. */
static enum kind
kind_of(int abi, uint32_t nr)
{
	if (abi == SP_ABI_X32) {
		if ((nr & SP_BPF_X32_BIT) == 0)
			return NONE;
		switch (nr & ~SP_BPF_X32_BIT) {
		case 9: return MMAP32;
		case 10: case 329: return MPROTECT32;
		case 25: return OPAQUE;
		case 30: return SHMAT;
		case 135: return PERSONALITY;
		case 520: case 545: return EXEC;
		default: return NONE;
		}
	}
	if (abi == SP_ABI_I386) {
		switch (nr) {
		case 192: return MMAP32;	/* mmap2 */
		case 125: case 380: return MPROTECT32;
		case 397: return SHMAT;
		case 136: return PERSONALITY;
		case 11: case 358: return EXEC;
		case 90: case 117: case 163: return OPAQUE;
		default: return NONE;
		}
	}
	switch (nr) {
	case 9: return MMAP;
	case 10: case 329: return MPROTECT;
	case 16: return IOCTL;
	case 25: return MREMAP;
	case 30: return SHMAT;
	case 56: return CLONE;
	case 59: case 322: return EXEC;
	case 101: return PTRACE;
	case 135: return PERSONALITY;
	case 158: return ARCH_PRCTL;
	case 250: return KEYCTL;
	case 310: case 311: return NOPTRACE;
	/* pidfd_getfd, vhangup, userfaultfd, process_madvise */
	case 438: case 153: case 323: case 440: return DENIED;
	/* mount, umount2, pivot_root, the new mount API: no mount at all */
	case 165: case 166: case 155: case 428: case 429: case 430:
	case 431: case 432: case 433: case 442: case 467: return DENIED;
	case 42: case 50: return CONNECT;
	case 41: return UNIXSOCK;
	case 317: return SECCOMP;
	case 435: return CLONE3;
	case 425: case 426: case 427: return URING;
	case 321: return BPF;
	case 249: return REQKEY;
	case 298: return PERF;
	case 159: case 164: return CLOCKSET;
	case 227: case 305: return CLOCKID;
	case 302: return PRLIMIT;
	case 109: return SETPGID;
	case 72: return FCNTL;
	case 62: case 200: case 129: case 424: return SIGNAL1;
	case 234: case 297: return SIGNAL2;
	default: return NONE;
	}
}

/* signal(7): the signals whose default action is "Core". */
static bool
dumps_core(uint32_t sig)
{
	switch (sig) {
	case 3: case 4: case 5: case 6: case 7: case 8: case 11: case 24:
	case 25: case 31:
		return true;
	default:
		return false;
	}
}

struct answers {
	uint32_t viol, refuse, deny, place, narrowed, check;
	bool judge;		/* someone answers check (in->check set) */
};

/* Narrowing (bpf.h, 2a.): 0 not narrowed, 1 narrowed whole, 2 narrowed
 * unless arg0 is the form pinning needs. */
static int
narrowing(const struct sp_bpf_input *in, uint32_t nr,
    const struct seccomp_data *d)
{
	bool listed = false;
	size_t i;

	if (nr >= SP_BPF_X32_BIT)
		return 0;
	for (i = 0; i < in->narrow.n; i++)
		if (in->narrow.nrs[i] == nr)
			listed = true;
	if (listed == in->narrow.allow)
		return 0;
	switch (nr) {
	case 15: case 60: case 231: case 462:	/* end or take away */
		return 0;
	case 157:				/* PR_SET_NO_NEW_PRIVS */
		return (uint32_t)d->args[0] == 38 ? 0 : 2;
	case 317:				/* SET_MODE_FILTER */
		return (uint32_t)d->args[0] == 1 ? 0 : 2;
	default:
		return 1;
	}
}

static bool
within(uint64_t a, uint64_t len, uint64_t start, uint64_t end)
{
	return len < (1ull << 32) && a >= start && a < end;
}

static bool
in_band(const struct sp_bpf_input *in, uint64_t a, uint64_t len)
{
	if (in->band.end - in->band.start <= SP_BAND_MARGIN)
		return false;
	return within(a, len, in->band.start, in->band.end - SP_BAND_MARGIN);
}

static bool
may_exec_at(const struct sp_bpf_input *in, bool loader, uint64_t a,
    uint64_t len)
{
	return in_band(in, a, len) ||
	    (loader && within(a, len, in->slots.start, in->slots.end));
}

static bool
in_image(const struct sp_bpf_input *in, uint64_t ip)
{
	size_t i;

	for (i = 0; i < in->nranges; i++)
		if (ip >= in->ranges[i].start && ip < in->ranges[i].end)
			return true;
	return false;
}

static bool
in_image_ip(const struct sp_bpf_input *in, uint64_t ip)
{
	for (size_t i = 0; i < in->nranges; i++)
		if (in->ranges[i].end > in->ranges[i].start &&
		    ip >= in->ranges[i].start && (ip < in->ranges[i].end ||
		    ip - in->ranges[i].end < 2))
			return true;
	return false;
}

/* A terminal's ioctl that only asks, or that any file takes. */
static bool
tty_free(uint32_t cmd)
{
	static const uint32_t q[] = { 0x5401, 0x5405, 0x5409, 0x540f,
		0x5411, 0x5413, 0x5415, 0x5419, 0x541b, 0x541e, 0x5421,
		0x5422, 0x5424, 0x5425, 0x5429, 0x5432, 0x5441, 0x5450,
		0x5451, 0x5452, 0x5456, 0x5459, 0x545a, 0x545c, 0x545d,
		0x5460, 0x802c542a, 0x8020542e, 0x80045430, 0x80045432,
		0x80045438, 0x80045439, 0x80045440, 0x80285442 };

	for (size_t i = 0; i < sizeof(q) / sizeof(*q); i++)
		if (q[i] == cmd)
			return true;
	return false;
}

/* The rules of every call (2.), or ALLOW. */
static bool
console_query(uint32_t cmd)
{
	static const uint32_t q[] = { 0x4b33, 0x4b3b, 0x4b44, 0x4b31, 0x4b64,
	    0x4b62, 0x4b46, 0x4b48, 0x4b4a, 0x4bfa, 0x4b60, 0x4b6b, 0x4b70,
	    0x4b40, 0x4b69, 0x4b66, 0x4b4c, 0x5600, 0x5601, 0x5603, 0x560d };

	for (size_t i = 0; i < sizeof(q) / sizeof(*q); i++)
		if (q[i] == cmd)
			return true;
	return false;
}

static uint32_t
global_rule(enum kind k, const struct seccomp_data *d, unsigned flags,
    const struct answers *ans)
{
	uint32_t a0 = (uint32_t)d->args[0], a1 = (uint32_t)d->args[1];

	switch (k) {
	case IOCTL:
		/* TIOCSTI, TIOCLINUX, USERFAULTFD_IOC_NEW */
		if (a1 == 0x5412 || a1 == 0x541c || a1 == 0xaa00)
			return ans->deny;
		/* the console's 'K' and 'V' ioctls but their queries */
		if ((a1 & 0xffffff00) == 0x4b00 || (a1 & 0xffffff00) == 0x5600)
			return console_query(a1) ? SECCOMP_RET_ALLOW :
			    ans->deny;
		/* no one to judge: what outlives the run or takes the
		 * terminal (TIOCSLCKTRMIOS, TIOCCONS, TIOCEXCL, TIOCVHANGUP,
		 * TIOCSETD, TIOCSCTTY by force) */
		if (!ans->judge)
			return a1 == 0x5457 || a1 == 0x541d || a1 == 0x540c ||
			    a1 == 0x5437 || a1 == 0x5423 || (a1 == 0x540e &&
			    (uint32_t)d->args[2] != 0) ? ans->deny :
			    SECCOMP_RET_ALLOW;
		/* a terminal's ioctl that changes it: the supervisor's */
		return (a1 & 0xff00) == 0x5400 && !tty_free(a1) ? ans->check :
		    SECCOMP_RET_ALLOW;
	case SETPGID:			/* pgid 0: a group of its own */
		return ans->judge && a1 != 0 ? ans->check : SECCOMP_RET_ALLOW;
	case SECCOMP:
		return a0 == 1 && (a1 & 8) ? ans->deny : SECCOMP_RET_ALLOW;
	case KEYCTL:	/* GET_PERSISTENT, SESSION_TO_PARENT */
		return a0 == 22 || a0 == 18 ? ans->deny : SECCOMP_RET_ALLOW;
	case ARCH_PRCTL:
		return a0 >= 0x2001 && a0 <= 0x2003 ? ans->deny :
		    SECCOMP_RET_ALLOW;
	case PTRACE:
		return flags & SP_BPF_NO_PTRACE && a0 != 0 ? ans->deny :
		    SECCOMP_RET_ALLOW;
	case NOPTRACE:
		return flags & SP_BPF_NO_PTRACE ? ans->deny :
		    SECCOMP_RET_ALLOW;
	case CLONE:
		return flags & SP_BPF_GUARD && (a0 & 0x00800000) ?
		    ans->deny : SECCOMP_RET_ALLOW;
	case CLONE3:
		return flags & SP_BPF_GUARD ? SECCOMP_RET_ERRNO | ENOSYS :
		    SECCOMP_RET_ALLOW;
	case DENIED:
		return ans->deny;
	case URING:			/* io_uring_setup, _enter, _register */
		return flags & SP_BPF_NO_URING ? SECCOMP_RET_ERRNO | ENOSYS :
		    SECCOMP_RET_ALLOW;
	case CONNECT:
		return flags & SP_BPF_CONNECT ? ans->check : SECCOMP_RET_ALLOW;
	case UNIXSOCK:			/* AF_UNIX, SOCK_STREAM/SEQPACKET */
		return flags & SP_BPF_NO_UNIX && a0 == 1 && ((a1 & 0xf) == 1 ||
		    (a1 & 0xf) == 5) ? ans->deny : SECCOMP_RET_ALLOW;
	case REQKEY:			/* an upcall runs a program */
		return d->args[2] != 0 ? ans->deny : SECCOMP_RET_ALLOW;
	case BPF:			/* BPF_PROG_LOAD */
		return a0 == 5 ? ans->deny : SECCOMP_RET_ALLOW;
	case PERF:			/* pid: -1 every task, 0 itself */
		if ((flags & SP_BPF_NO_PERF) || ((uint32_t)d->args[4] & 4) ||
		    a1 == UINT32_MAX)
			return ans->deny;
		return a1 == 0 ? SECCOMP_RET_ALLOW : ans->check;
	case CLOCKSET:
		return flags & SP_BPF_NO_CLOCK ? ans->deny : SECCOMP_RET_ALLOW;
	case CLOCKID:			/* CLOCK_REALTIME, CLOCK_TAI */
		return flags & SP_BPF_NO_CLOCK && (a0 == 0 || a0 == 11) ?
		    ans->deny : SECCOMP_RET_ALLOW;
	case PRLIMIT:			/* pid 0: itself */
		return a0 == 0 ? SECCOMP_RET_ALLOW : ans->check;
	case FCNTL:			/* F_SETSIG of a core signal */
		return a1 == 10 && dumps_core((uint32_t)d->args[2]) ?
		    ans->deny : SECCOMP_RET_ALLOW;
	case SIGNAL1:
		return flags & SP_BPF_GUARD && dumps_core(a1) ? ans->check :
		    SECCOMP_RET_ALLOW;
	case SIGNAL2:
		return flags & SP_BPF_GUARD &&
		    dumps_core((uint32_t)d->args[2]) ? ans->check :
		    SECCOMP_RET_ALLOW;
	default:
		return SECCOMP_RET_ALLOW;
	}
}

static uint32_t
mmap_rule(const struct sp_bpf_input *in, const struct seccomp_data *d,
    bool loader, const struct answers *ans)
{
	uint32_t prot = (uint32_t)d->args[2], fl = (uint32_t)d->args[3];
	bool fixed = fl & (0x10 | 0x100000);

	if (fl & 0x100)				/* MAP_GROWSDOWN */
		return ans->refuse;
	if (prot & 4) {
		bool strict = in->flags & SP_BPF_STRICT;
		if ((!(in->flags & SP_BPF_ALLOW_JIT) || strict) &&
		    ((prot & 2) || (fl & 0x20)))
			return ans->refuse;
		if (!fixed)
			return ans->place;
		if (strict)	/* only ld.so's, into the slots */
			return loader && within(d->args[0], d->args[1],
			    in->slots.start, in->slots.end) ?
			    SECCOMP_RET_ALLOW : ans->refuse;
		if (!may_exec_at(in, loader, d->args[0], d->args[1]))
			return ans->refuse;
		/* a file's code fixed into the band: checked at a stop */
		if ((in->flags & SP_BPF_PLACE_FILES) && !(fl & 0x20) &&
		    in_band(in, d->args[0], d->args[1]))
			return ans->place;
		return SECCOMP_RET_ALLOW;
	}
	/* a loader's private file mapping or PROT_NONE reservation; a
	 * shared file mapping at its site is data (musl) */
	if (loader && !fixed && ((!(fl & 0x20) && !(fl & 0x01)) ||
	    ((fl & 0x20) && (prot & 7) == 0)))
		return ans->place;
	if ((in->flags & SP_BPF_ALLOW_JIT) && !fixed && (fl & 0x20))
		return ans->place;	/* a JIT's code space, into the band */
	return SECCOMP_RET_ALLOW;
}

/* The end of the segment (image ranges, band, and what lies between)
 * holding a: the first of their edges above a, 0 for none (2^64). */
static uint64_t
segment_end(const struct sp_bpf_input *in, uint64_t a)
{
	uint64_t e = 0, c[2];
	size_t i, k;

	for (i = 0; i <= in->nranges; i++) {
		if (i < in->nranges) {
			c[0] = in->ranges[i].start;
			c[1] = in->ranges[i].end;
		} else if (in->band.end > in->band.start) {
			c[0] = in->band.start;
			c[1] = in->band.end;
		} else		/* no band: no edge */
			break;
		for (k = 0; k < 2; k++)
			if (c[k] > a && (e == 0 || c[k] < e))
				e = c[k];
	}
	return e;
}

static uint32_t
mremap_rule(const struct sp_bpf_input *in, const struct seccomp_data *d,
    const struct answers *ans)
{
	uint64_t old = d->args[0], len = d->args[1], end;
	uint32_t fl = (uint32_t)d->args[3];

	/* the old range whole: it may not leave its start's segment */
	if (old >= (1ull << 56) || len >= (1ull << 56))
		return ans->refuse;
	end = old + len;
	if (in_image(in, old) || (segment_end(in, old) != 0 &&
	    end > segment_end(in, old)))
		return ans->refuse;
	if (old < in->band.start || old >= in->band.end)
		return SECCOMP_RET_ALLOW;
	if (!(fl & 1))		/* in place: it must stay in the band */
		return in_band(in, old, d->args[2]) ? SECCOMP_RET_ALLOW :
		    ans->refuse;
	if ((fl & 2) && in_band(in, d->args[4], d->args[2]))
		return SECCOMP_RET_ALLOW;
	return ans->refuse;
}

/* The image's own rules (5.) and those of every call, for its sites. */
static uint32_t
own_rule(int abi, const struct sp_bpf_input *in, const struct seccomp_data *d,
    bool loader, const struct answers *ans)
{
	bool strict = in->flags & SP_BPF_STRICT;
	uint32_t a0 = (uint32_t)d->args[0], a2 = (uint32_t)d->args[2];
	enum kind k = kind_of(abi, (uint32_t)d->nr);

	switch (k) {
	case MMAP:
		return mmap_rule(in, d, loader, ans);
	case MPROTECT:
		if (!(a2 & 4))
			return SECCOMP_RET_ALLOW;
		if (strict || !(in->flags & SP_BPF_ALLOW_JIT))
			return ans->refuse;
		return may_exec_at(in, loader, d->args[0], d->args[1]) ?
		    SECCOMP_RET_ALLOW : ans->refuse;
	case MREMAP:
		return mremap_rule(in, d, ans);
	case MMAP32:
	case MPROTECT32:
		return a2 & 4 ? ans->refuse : SECCOMP_RET_ALLOW;
	case SHMAT:
		return a2 & 0x8000 ? ans->refuse : SECCOMP_RET_ALLOW;
	case PERSONALITY:
		return a0 != 0xffffffff && (a0 & 0x0500000) ? ans->refuse :
		    SECCOMP_RET_ALLOW;
	case EXEC:
		return in->flags & (SP_BPF_STRICT | SP_BPF_NO_EXEC) ?
		    ans->refuse : in->flags & SP_BPF_CHECK_EXEC ? ans->check :
		    SECCOMP_RET_ALLOW;
	case OPAQUE:
		return ans->refuse;
	default:
		return global_rule(k, d, in->flags, ans);
	}
}

/* The first matching pin's flags, or -1 when not pinned. */
static int
pinned(const struct sp_bpf_input *in, int abi, const struct seccomp_data *d)
{
	int flags = -1;
	size_t i;

	for (i = 0; i < in->npins; i++) {
		const struct sp_bpf_pin *p = &in->pins[i];
		uint32_t nr = p->abi == SP_ABI_X32 ? p->nr | SP_BPF_X32_BIT :
		    p->nr;
		if (p->abi == abi && nr == (uint32_t)d->nr &&
		    p->ip == d->instruction_pointer)
			flags = (flags < 0 ? 0 : flags) | p->flags;
	}
	return flags;
}

static bool
any_site(const struct sp_bpf_input *in, uint64_t ip)
{
	size_t i;

	for (i = 0; i < in->nany_ips; i++)
		if (in->any_ips[i] == ip)
			return true;
	return false;
}

uint32_t
model_verdict(const struct sp_bpf_input *in, const struct seccomp_data *d)
{
	struct answers ans = { in->action, in->refuse, in->deny, in->place,
	    in->narrowed, in->check, in->check != 0 };
	uint64_t ip = d->instruction_pointer;
	int abi, pf, nw = 0;

	if (ans.viol == 0)
		ans.viol = in->flags & SP_BPF_AUDIT ? SECCOMP_RET_LOG :
		    SECCOMP_RET_KILL_PROCESS;
	if (ans.refuse == 0)
		ans.refuse = SECCOMP_RET_ERRNO | EACCES;
	if (ans.deny == 0)
		ans.deny = SECCOMP_RET_ERRNO | EPERM;
	if (ans.place == 0)
		ans.place = SECCOMP_RET_ERRNO | EACCES;
	if (ans.narrowed == 0)
		ans.narrowed = SECCOMP_RET_ERRNO | EPERM;
	if (ans.check == 0)
		ans.check = ans.deny;
	if (d->arch == AUDIT_ARCH_X86_64)
		abi = (uint32_t)d->nr & SP_BPF_X32_BIT ? SP_ABI_X32 : SP_ABI_X86_64;
	else if (d->arch == AUDIT_ARCH_I386)
		abi = SP_ABI_I386;
	else
		return ans.viol;
	/* the supervisor's kill, whatever else is true of the call */
	if ((uint32_t)d->nr == SP_GUARD_KILL_NR && in->flags & SP_BPF_GUARD)
		return SECCOMP_RET_KILL_PROCESS;
	/* outside the image and the band: a later image's call, its own
	 * filter's business (i386 has no such thing: pinned or killed).
	 * ip is the address after the call's trap instruction (two bytes),
	 * or a vsyscall entry itself: a range's calls are in
	 * [start, end + 2). */
	if (d->arch == AUDIT_ARCH_X86_64 && !in_image_ip(in, ip) &&
	    (in->band.end <= in->band.start || ip < in->band.start ||
	    (ip >= in->band.end && ip - in->band.end >= 2)))
		return in->flags & (SP_BPF_STRICT | SP_BPF_OUTSIDE) ?
		    ans.viol : SECCOMP_RET_ALLOW;
	/* narrowed: before its sites; prctl and seccomp after them */
	if (abi == SP_ABI_X86_64)
		nw = narrowing(in, (uint32_t)d->nr, d);
	if (nw == 1)
		return ans.narrowed;
	if ((pf = pinned(in, abi, d)) >= 0)
		return nw ? ans.narrowed :
		    own_rule(abi, in, d, pf & SP_BPF_PIN_LOADER, &ans);
	if (abi != SP_ABI_X86_64)
		return ans.viol;
	if (any_site(in, ip))
		return nw ? ans.narrowed : own_rule(abi, in, d, false, &ans);
	return ans.viol;
}
