/* SPDX-License-Identifier: ISC */
/*
 * A descriptor of ours given to a stopped thread of the tree: an
 * SCM_RIGHTS message on a socket pair made in it (no system call puts a
 * descriptor into another process but seccomp's user notifications,
 * which the tree's filters do not use).  The other end of its pair we
 * take with pidfd_getfd; the message is received by a recvmsg injected
 * in it; the pair is closed.  Its other threads must be stopped (the
 * caller of this froze them): nothing else of it sees the pair.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervise_int.h"

static long
call4(struct sp_inject *in, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3)
{
	uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
	struct sp_error err;
	long ret;

	if (sp_inject_syscall(in, nr, args, 6, &ret, &err) == -1)
		return -EIO;
	return ret;
}

/* Scratch memory in the thread, below what its caller uses. */
enum {
	AT_PAIR = 0, AT_MSG = 16, AT_IOV = AT_MSG + 64, AT_BYTE = AT_IOV + 16,
	AT_CMSG = AT_BYTE + 16, AT_END = AT_CMSG + 64,
};

long
sp_sup_hand_in(struct sp_inject *in, pid_t tid, int mine, uint64_t below)
{
	uint64_t at = (below - AT_END) & ~(uint64_t)15;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr mh;
	struct iovec iov;
	struct sp_error err;
	int pair[2] = { -1, -1 }, ours, got = -1;
	char byte = 0;
	long r;

	if ((r = call4(in, SYS_socketpair, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC,
	    0, at + AT_PAIR)) < 0)
		return r;
	if (sp_mem_read(tid, at + AT_PAIR, pair, sizeof(pair), &err) == -1) {
		r = -EFAULT;
		goto out;
	}
	/* our end of theirs, and the socket through it */
	if ((ours = sp_sup_their_fd(tid, pair[0])) < 0) {
		r = -EIO;
		goto out;
	}
	memset(&cm, 0, sizeof(cm));
	iov = (struct iovec){ &byte, 1 };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
	cm.h.cmsg_level = SOL_SOCKET;
	cm.h.cmsg_type = SCM_RIGHTS;
	cm.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.h), &mine, sizeof(int));
	r = sendmsg(ours, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 ? 0 : -EIO;
	close(ours);
	if (r < 0)
		goto out;
	/* the message, taken in the caller */
	{
		uint64_t msg[7] = { 0, 0, at + AT_IOV, 1, at + AT_CMSG,
		    sizeof(cm.buf), 0 };
		uint64_t v[2] = { at + AT_BYTE, 1 };
		uint8_t zero[sizeof(cm.buf)] = { 0 };
		if (sp_mem_write(tid, at + AT_MSG, msg, sizeof(msg), &err) ==
		    -1 || sp_mem_write(tid, at + AT_IOV, v, sizeof(v), &err) ==
		    -1 || sp_mem_write(tid, at + AT_CMSG, zero, sizeof(zero),
		    &err) == -1) {
			r = -EFAULT;
			goto out;
		}
	}
	if ((r = call4(in, SYS_recvmsg, (uint64_t)pair[1], at + AT_MSG,
	    MSG_CMSG_CLOEXEC | MSG_DONTWAIT, 0)) != 1) {
		r = r < 0 ? r : -EIO;
		goto out;
	}
	if (sp_mem_read(tid, at + AT_CMSG, cm.buf, sizeof(cm.buf), &err) ==
	    -1 || cm.h.cmsg_level != SOL_SOCKET ||
	    cm.h.cmsg_type != SCM_RIGHTS ||
	    cm.h.cmsg_len != CMSG_LEN(sizeof(int))) {
		r = -EIO;
		goto out;
	}
	memcpy(&got, CMSG_DATA(&cm.h), sizeof(int));
	r = got;
out:
	for (int i = 0; i < 2; i++)
		if (pair[i] >= 0)
			(void)call4(in, SYS_close, (uint64_t)pair[i], 0, 0, 0);
	return r;
}

