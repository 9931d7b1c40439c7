/* SPDX-License-Identifier: ISC */
/*
 * mc_load PORT THREADS SECONDS: a memcached load over its text protocol
 * on 127.0.0.1 (bench/servers_bench.sh).  Each thread has one connection
 * and asks, one request at a time, 9 gets for 1 set over 1000 keys of 100
 * bytes (all set first, so every get hits).  Prints "OPS_PER_S P99_MS ERRORS":
 * completed requests per second, the 99th percentile of their latency,
 * and the answers that were not what the protocol says.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEYS 1000
#define VLEN 100
#define BUCKETS 200000		/* latency histogram: 1 us each, to 200 ms */

static int port;
static double seconds;

struct worker {
	pthread_t th;
	int id;
	uint64_t ops, errors;
	uint32_t *hist;		/* BUCKETS + 1: the last one is "more" */
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
connect_to(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_port = htons(port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror("mc_load: connect");
		exit(2);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Sends REQ and reads until the answer ends with END; 0 if it is WANT's
 * length and ends so, -1 on a broken connection, 1 on a wrong answer. */
static int
ask(int fd, const char *req, size_t len, const char *end, size_t want)
{
	char buf[512];
	size_t got = 0, elen = strlen(end);

	if (write(fd, req, len) != (ssize_t)len)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (got >= elen && memcmp(buf + got - elen, end, elen) == 0)
			return got == want ? 0 : 1;
		if (got == sizeof(buf))
			return 1;
	}
}

static int
set_req(char *req, int key)
{
	int n = sprintf(req, "set k%04d 0 0 %d\r\n", key, VLEN);

	memset(req + n, 'v', VLEN);
	memcpy(req + n + VLEN, "\r\n", 2);
	return n + VLEN + 2;
}

static void *
run(void *arg)
{
	struct worker *w = arg;
	char req[256];
	/* "VALUE k0000 0 100\r\n" + value + "\r\nEND\r\n" */
	size_t get_len = 19 + VLEN + 7;
	unsigned seed = 12345u + (unsigned)w->id;
	int fd = connect_to();
	double end;

	end = now() + seconds;
	while (now() < end) {
		int k = (int)(rand_r(&seed) % KEYS), r, n;
		double t0 = now(), dt;

		if (rand_r(&seed) % 10 == 0) {
			n = set_req(req, k);
			r = ask(fd, req, (size_t)n, "STORED\r\n", 8);
		} else {
			n = sprintf(req, "get k%04d\r\n", k);
			r = ask(fd, req, (size_t)n, "END\r\n", get_len);
		}
		if (r < 0) {
			w->errors++;
			break;
		}
		dt = (now() - t0) * 1e6;
		w->hist[dt < BUCKETS ? (size_t)dt : BUCKETS]++;
		w->ops++;
		w->errors += (uint64_t)r;
	}
	close(fd);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct worker *ws;
	uint64_t ops = 0, errors = 0, seen = 0;
	uint32_t *hist;
	int threads;
	double t0;
	size_t b;

	if (argc != 4) {
		fprintf(stderr, "usage: mc_load PORT THREADS SECONDS\n");
		return 2;
	}
	port = atoi(argv[1]);
	threads = atoi(argv[2]);
	seconds = atof(argv[3]);
	ws = calloc((size_t)threads, sizeof(*ws));
	hist = calloc(BUCKETS + 1, sizeof(*hist));
	if (!ws || !hist || threads < 1)
		return 2;
	/* The keys first, then the load. */
	{
		char req[256];
		int fd = connect_to();

		for (int k = 0; k < KEYS; k++)
			if (ask(fd, req, (size_t)set_req(req, k), "STORED\r\n",
			    8) != 0)
				errors++;
		close(fd);
	}
	t0 = now();
	for (int i = 0; i < threads; i++) {
		ws[i].id = i;
		ws[i].hist = calloc(BUCKETS + 1, sizeof(uint32_t));
		if (!ws[i].hist)
			return 2;
		pthread_create(&ws[i].th, NULL, run, &ws[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(ws[i].th, NULL);
		ops += ws[i].ops;
		errors += ws[i].errors;
		for (b = 0; b <= BUCKETS; b++)
			hist[b] += ws[i].hist[b];
	}
	t0 = now() - t0;
	for (b = 0; b <= BUCKETS; b++) {
		seen += hist[b];
		if (seen * 100 >= ops * 99)
			break;
	}
	printf("%.0f %.3f %llu\n", ops / t0, (b + 1) / 1000.0,
	    (unsigned long long)errors);
	return 0;
}
