/* SPDX-License-Identifier: ISC */
/*
 * Authenticated cache files (writer side: `syspin run` and its supervisor;
 * never the runtime, which runs inside the pinned tree and links no
 * cryptography).  HMAC-SHA256: nettle's.
 *
 * The pinned tree runs as the cache's owner, so file ownership cannot keep
 * it from loosening a table that a later exec or a later `syspin run` would
 * believe.  A key it cannot read can: a per-user "user" key in the kernel's
 * persistent keyring of the uid.  KEYCTL_GET_PERSISTENT links that keyring
 * into the caller's process keyring, which fork and execve do not pass on,
 * and the key grants nothing to non-possessors, root included.  So the only
 * way to the key is KEYCTL_GET_PERSISTENT itself, which the filter of every
 * pinned process must refuse (with an errno, so that a `syspin run
 * --fill-cache` started inside the tree falls back below): that rule is
 * lib/bpf's, and this file is only as good as it.
 *
 * Without a keyring (a container's seccomp profile, no CONFIG_KEYS, quota)
 * the writer believes only what it wrote itself: a random key of the
 * process's own, never stored anywhere, authenticates its writes for the
 * rest of its life.  That is the "set of what I stored" without keeping
 * one: a file verifies exactly when this process wrote those bytes under
 * that name.  Every run then analyses every object again, once.
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "pins/cache.h"

#include "cache_format.h"

#define KEY_NAME SP_CACHE_KEY_NAME
#define KEY_LEN 32
#define KEY_ID_LABEL "syspin cache key id"
#define SECRET_LIVE 0x73797370696e6b79ull

/* <keyutils.h>'s, which <linux/keyctl.h> lacks. */
#define KEY_POS_ALL 0x3f000000u
#define KEY_POS_WRITE 0x04000000u

/*
 * Key material lives in a page of its own: out of core dumps, and zeroed
 * in a forked child (MADV_WIPEONFORK), which then sees live == 0 and
 * believes nothing: the child is about to exec the program to pin.
 */
struct secret {
	uint64_t live;
	uint8_t key[KEY_LEN];
	uint8_t id[8];
	/* The HMAC's state (its midstates are key equivalents): here, not
	 * on a stack, and zeroed after each use. */
	struct hmac_sha256_ctx ctx;
};

struct mac {
	struct sp_cache_mac base;	/* first: the reader's view */
	struct secret *s;		/* NULL: believe nothing */
	bool own;			/* s is ours to zero at close */
};

/* A zeroed page kept from the last close: mapping one costs ~20 us. */
static _Atomic(struct secret *) spare;

static int check(const struct sp_cache_mac *, const char *, const void *,
    size_t, struct sp_error *);
static void seal(const struct sp_cache_mac *, const char *, const void *,
    size_t, struct sp_cache_trailer *);
static void destroy(struct sp_cache_mac *);

/* When not even memory can be had: nothing is believed. */
static struct mac deny = {
	{ check, seal, destroy, SP_CACHE_AUTH_PROCESS }, NULL, false
};

static long
kctl(int op, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0);
}

static struct secret *
secret_new(void)
{
	struct secret *s;

	if ((s = atomic_exchange(&spare, NULL)) != NULL)
		return s;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	/* Best effort: older kernels lack them, and the key stays good. */
	(void)madvise(s, sizeof(*s), MADV_DONTDUMP);
	(void)madvise(s, sizeof(*s), MADV_WIPEONFORK);
	return s;
}

static void
secret_free(struct secret *s)
{
	struct secret *none = NULL;

	explicit_bzero(s, sizeof(*s));
	if (!atomic_compare_exchange_strong(&spare, &none, s))
		munmap(s, sizeof(*s));
}

/* Zeroes the stack below the caller, where nettle's compression
 * function kept its working words. */
__attribute__((noinline)) static void
scrub_stack(void)
{
	volatile uint8_t below[4096];

	explicit_bzero((void *)below, sizeof(below));
}

/* HMAC-SHA256 under s's key of the n parts. */
static int
hmac(const struct secret *cs, const void *const *part, const size_t *len,
    size_t n, uint8_t out[SP_CACHE_MAC_LEN])
{
	struct secret *s = (struct secret *)cs;	/* its page is writable */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	size_t i;

	pthread_mutex_lock(&lock);
	hmac_sha256_set_key(&s->ctx, KEY_LEN, s->key);
	for (i = 0; i < n; i++)
		hmac_sha256_update(&s->ctx, len[i], part[i]);
	hmac_sha256_digest(&s->ctx, SP_CACHE_MAC_LEN, out);
	explicit_bzero(&s->ctx, sizeof(s->ctx));	/* the key schedule */
	pthread_mutex_unlock(&lock);
	scrub_stack();
	return 0;
}

/* The MAC of body buf under name with trailer t (up to its mac). */
static int
file_mac(const struct mac *m, const char *name, const void *buf, size_t len,
    const struct sp_cache_trailer *t, uint8_t out[SP_CACHE_MAC_LEN])
{
	const void *part[] = { SP_CACHE_MAC_DOMAIN, name, buf, t };
	size_t plen[] = { sizeof(SP_CACHE_MAC_DOMAIN), strlen(name) + 1, len,
	    offsetof(struct sp_cache_trailer, mac) };

	return hmac(m->s, part, plen, 4, out);
}

static bool
live(const struct mac *m)
{
	return m->s != NULL && m->s->live == SECRET_LIVE;
}

/* check()'s "not believed". */
static int
refuse(struct sp_error *why, const char *msg)
{
	sp_error_set(why, "%s", msg);
	return 0;
}

static int
check(const struct sp_cache_mac *base, const char *name, const void *buf,
    size_t len, struct sp_error *why)
{
	const struct mac *m = (const struct mac *)base;
	struct sp_cache_trailer t;
	uint8_t want[SP_CACHE_MAC_LEN];

	if (!live(m))
		return refuse(why, "no cache key in this process");
	if (len < sizeof(t))
		return refuse(why, "no MAC");
	memcpy(&t, (const uint8_t *)buf + len - sizeof(t), sizeof(t));
	if (memcmp(t.magic, SP_CACHE_TRAILER_MAGIC, sizeof(t.magic)) != 0 ||
	    t.alg == SP_CACHE_MAC_NONE)
		return refuse(why, "no MAC");
	if (t.alg != SP_CACHE_MAC_HMAC_SHA256)
		return refuse(why, "unknown MAC");
	if (memcmp(t.key_id, m->s->id, sizeof(t.key_id)) != 0)
		return refuse(why, base->auth == SP_CACHE_AUTH_PROCESS ?
		    "MAC of another process (no keyring)" :
		    "MAC of another key");
	if (file_mac(m, name, buf, len - sizeof(t), &t, want) == -1)
		return refuse(why, "cannot compute a MAC");
	if (!memeql_sec(want, t.mac, sizeof(want)))
		return refuse(why, "wrong MAC: changed since it was written");
	return 1;
}

static void
seal(const struct sp_cache_mac *base, const char *name, const void *buf,
    size_t len, struct sp_cache_trailer *t)
{
	const struct mac *m = (const struct mac *)base;

	if (!live(m))
		return;		/* "none": no one will believe it */
	t->alg = SP_CACHE_MAC_HMAC_SHA256;
	memcpy(t->key_id, m->s->id, sizeof(t->key_id));
	if (file_mac(m, name, buf, len, t, t->mac) == -1) {
		t->alg = SP_CACHE_MAC_NONE;
		memset(t->key_id, 0, sizeof(t->key_id));
	}
}

static void
destroy(struct sp_cache_mac *base)
{
	struct mac *m = (struct mac *)base;

	if (m == &deny)
		return;
	if (m->own && m->s != NULL)
		secret_free(m->s);
	free(m);
}

/* A public name for the key (a MAC of a label): "which key made this". */
static int
secret_seal(struct secret *s)
{
	const void *part[] = { KEY_ID_LABEL };
	size_t plen[] = { sizeof(KEY_ID_LABEL) };
	uint8_t out[SP_CACHE_MAC_LEN];

	if (hmac(s, part, plen, 1, out) == -1)
		return -1;
	memcpy(s->id, out, sizeof(s->id));
	s->live = SECRET_LIVE;
	return 0;
}

/*
 * Makes the key: random, then possessor-only and not even writable, so
 * that a second syspin racing us cannot replace it (add_key on an existing
 * name updates it) but gets EACCES and reads ours.
 */
static long
key_create(long ring, const char *name, struct sp_error *err)
{
	uint8_t rnd[KEY_LEN];
	long id;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return sp_error_sys(err, errno, "getrandom");
	id = syscall(SYS_add_key, "user", name, rnd, sizeof(rnd), ring);
	explicit_bzero(rnd, sizeof(rnd));
	if (id == -1 && errno == EACCES)
		id = kctl(KEYCTL_SEARCH, ring, (unsigned long)"user",
		    (unsigned long)name);
	else if (id != -1 && kctl(KEYCTL_SETPERM, id, KEY_POS_ALL &
	    ~KEY_POS_WRITE, 0) == -1)
		id = -1;
	if (id == -1)
		return sp_error_sys(err, errno, "making key %s", name);
	return id;
}

/* The serial of the key user_key() read, -1 before: what
 * sp_cache_key_readable() looks for. */
static long user_key_id = -1;

/*
 * Whether this process can read the key some way other than
 * KEYCTL_GET_PERSISTENT: through a keyring it possesses (its session
 * keyring, when the persistent keyring is linked there, as Kerberos'
 * KEYRING:persistent caches do), or any other it can search.  The tree's
 * first process asks, after it took a session keyring of its own
 * (lib/supervise/confine.c): it must find nothing.
 */
static bool
read_from(long ring)
{
	uint8_t buf[KEY_LEN];
	bool got = false;
	long id;

	/* A key of that name that is not the key (its serial is another:
	 * one the tree planted in the user keyring, say) is not: refusing
	 * for it would let any tree stop every later run of its user. */
	if ((id = kctl(KEYCTL_SEARCH, (unsigned long)ring,
	    (unsigned long)"user", (unsigned long)KEY_NAME)) != -1 &&
	    (user_key_id == -1 || id == user_key_id))
		got = kctl(KEYCTL_READ, id, (unsigned long)buf,
		    sizeof(buf)) > 0;
	explicit_bzero(buf, sizeof(buf));
	return got;
}

bool
sp_cache_key_readable(void)
{
	static const long rings[] = { KEY_SPEC_SESSION_KEYRING,
		KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING,
		KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_THREAD_KEYRING };
	static const long linkable[] = { KEY_SPEC_USER_KEYRING,
		KEY_SPEC_USER_SESSION_KEYRING };
	bool got = false;
	long id;

	for (size_t i = 0; i < sizeof(rings) / sizeof(*rings) && !got; i++)
		got = read_from(rings[i]);
	/* The user keyring and the user session keyring are not possessed,
	 * but any process may link them into its session, which it does
	 * possess: what they link (a persistent keyring) is then its own. */
	for (size_t i = 0; i < sizeof(linkable) / sizeof(*linkable) && !got;
	    i++) {
		if ((id = kctl(KEYCTL_GET_KEYRING_ID, (unsigned long)linkable[i],
		    0, 0)) == -1 || kctl(KEYCTL_LINK, (unsigned long)id,
		    KEY_SPEC_SESSION_KEYRING, 0) == -1)
			continue;
		got = read_from(KEY_SPEC_SESSION_KEYRING);
		(void)kctl(KEYCTL_UNLINK, (unsigned long)id,
		    KEY_SPEC_SESSION_KEYRING, 0);
	}
	return got;
}

/* The user's key called name, into s; -1 with err set when none. */
static int
user_key(const char *name, struct secret *s, struct sp_error *err)
{
	long ring, id, n;

	ring = kctl(KEYCTL_GET_PERSISTENT, (unsigned long)-1,
	    KEY_SPEC_PROCESS_KEYRING, 0);
	if (ring == -1)
		return sp_error_sys(err, errno, "persistent keyring");
	id = kctl(KEYCTL_SEARCH, ring, (unsigned long)"user",
	    (unsigned long)name);
	if (id == -1 && errno == ENOKEY)
		id = key_create(ring, name, err);
	else if (id == -1)
		return sp_error_sys(err, errno, "key %s", name);
	if (id == -1)
		return -1;
	/* Read back even what we made: a racing maker may have won. */
	if (strcmp(name, KEY_NAME) == 0)
		user_key_id = id;
	n = kctl(KEYCTL_READ, id, (unsigned long)s->key, sizeof(s->key));
	if (n == -1)
		return sp_error_sys(err, errno, "key %s", name);
	if (n != KEY_LEN)
		return sp_error_set(err, "key %s: %ld bytes, not %d", name, n,
		    KEY_LEN);
	return 0;
}

/* The process's own key: made once, shared by its caches, never freed. */
static struct secret *process_secret;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

static void
process_make(void)
{
	struct secret *s;

	if ((s = secret_new()) == NULL)
		return;
	if (getrandom(s->key, sizeof(s->key), 0) == (ssize_t)sizeof(s->key) &&
	    secret_seal(s) == 0)
		process_secret = s;
	else
		secret_free(s);
}

static int
use_user(struct mac *m, const char *name, struct sp_error *err)
{
	if ((m->s = secret_new()) == NULL)
		return sp_error_sys(err, errno, "mmap");
	m->own = true;
	if (user_key(name, m->s, err) == 0) {
		if (secret_seal(m->s) == 0)
			return 0;
		sp_error_set(err, "HMAC-SHA256 failed");
	}
	secret_free(m->s);
	m->s = NULL;
	m->own = false;
	return -1;
}

/* After a fork the page reads zeros: not live, and never made again. */
static void
use_process(struct mac *m)
{
	m->base.auth = SP_CACHE_AUTH_PROCESS;
	pthread_once(&process_once, process_make);
	if (process_secret != NULL && process_secret->live == SECRET_LIVE)
		m->s = process_secret;
}

static struct mac *
mac_new(void)
{
	struct mac *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->base = deny.base;
	m->base.auth = SP_CACHE_AUTH_USER;
	return m;
}

int
sp_cache_use_mac_named(struct sp_cache *c, const char *name, unsigned flags,
    struct sp_error *err)
{
	struct mac *m;
	int r;

	if (c->mac != NULL)
		c->mac->destroy(c->mac);
	if ((m = mac_new()) == NULL) {
		c->mac = &deny.base;
		return sp_error_set(err, "cannot set up HMAC-SHA256");
	}
	if (flags & SP_CACHE_MAC_NO_KEYRING)
		r = sp_error_set(err, "kernel keyring not used (test)");
	else
		r = use_user(m, name, err);
	if (r == -1)
		use_process(m);
	c->mac = &m->base;
	return r;
}

int
sp_cache_use_mac(struct sp_cache *c, struct sp_error *err)
{
	return sp_cache_use_mac_named(c, KEY_NAME, 0, err);
}

enum sp_cache_auth
sp_cache_auth(const struct sp_cache *c)
{
	return c->mac == NULL ? SP_CACHE_AUTH_NONE : c->mac->auth;
}
