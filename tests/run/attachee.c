/* SPDX-License-Identifier: ISC */
/*
 * A small server to attach to (syspin run -p): two threads blocked (one
 * in nanosleep, one in a futex) while the main one serves a fifo, a byte
 * a request:
 *   p  answers "ping N" (it runs, and runs on)
 *   a  a chain's way to a call: mkdir made from getppid's own `syscall`
 *      instruction in libc (pinned for getppid only), on argv[2]
 *   f  the same in a child it forks, and says how the child ended
 *   m  opens its tracer's /proc/PID/mem (the supervisor's) and says so
 *   q  ends, status 0
 * usage: attachee FIFO DIR [filter|uring] ("filter": an allow-all seccomp
 * filter of its own first; "uring": an io_uring of its own, kept)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *
sleeper(void *a)
{
	struct timespec t = { 0, 200000000 };

	(void)a;
	for (;;)
		nanosleep(&t, NULL);
	return NULL;
}

static void *
waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	for (;;)
		pthread_cond_wait(&cv, &m);
	return NULL;
}

static long
chain_mkdir(const char *path)
{
	unsigned char *f = dlsym(RTLD_DEFAULT, "getppid");
	long r;

	while (!(f[0] == 0x0f && f[1] == 0x05))
		f++;
	__asm__ volatile("call *%1" : "=a"(r) : "r"(f), "a"(83L), "D"(path),
	    "S"(0755L) : "rcx", "r11", "memory");
	return r;
}

static int
allow_all(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 1, f };

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p);
}

int
main(int argc, char **argv)
{
	unsigned long n = 0;
	pthread_t t1, t2;
	int fd, st;
	pid_t c;
	char b;

	if (argc < 3 || (argc > 3 && strcmp(argv[3], "filter") == 0 &&
	    allow_all() == -1))
		return 2;
	if (argc > 3 && strcmp(argv[3], "uring") == 0) {
		char params[120] = { 0 };	/* struct io_uring_params */
		if (syscall(SYS_io_uring_setup, 4, params) < 0)
			return 77;
	}
	pthread_create(&t1, NULL, sleeper, NULL);
	pthread_create(&t2, NULL, waiter, NULL);
	if ((fd = open(argv[1], O_RDWR)) == -1)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("ready %d\n", (int)getpid());
	while (read(fd, &b, 1) == 1) {
		if (b == 'p')
			printf("ping %lu\n", ++n);
		else if (b == 'a')
			printf("mkdir %ld\n", chain_mkdir(argv[2]));
		else if (b == 'f') {
			if ((c = fork()) == 0)
				_exit(chain_mkdir(argv[2]) == 0 ? 0 : 1);
			waitpid(c, &st, 0);
			printf("child %s %d\n", WIFSIGNALED(st) ? "signal" :
			    "status", WIFSIGNALED(st) ? WTERMSIG(st) :
			    WEXITSTATUS(st));
		} else if (b == 'm') {
			char path[64], line[128];
			long tracer = 0;
			FILE *f = fopen("/proc/self/status", "r");
			while (f != NULL && fgets(line, sizeof(line), f) != NULL)
				if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
					break;
			if (f != NULL)
				fclose(f);
			snprintf(path, sizeof(path), "/proc/%ld/mem", tracer);
			int mfd = open(path, O_RDWR);
			printf("tracer mem %s\n", mfd >= 0 ? "opened" : "refused");
			if (mfd >= 0)
				close(mfd);
		} else if (b == 'q')
			return 0;
	}
	return 3;
}
