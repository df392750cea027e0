// agent-sandbox: the sandbox helper that the agent embeds (package
// helperbin) and starts, for every sandboxed command, as
//
//	agent-sandbox __agent-sandbox [OPTIONS] -- PROGRAM ARGS...
//
// It does what package helper (tools/shell/sandbox/helper, the Go helper
// that the agent's own binary becomes where this one cannot run) does, to
// the same options and with the same messages: it confines itself (ids
// mapped in its user namespace, read-only bind mounts, loopback up, the
// session's tmpfs), becomes a child subreaper, starts PROGRAM confined
// (capabilities dropped, no_new_privs, seccomp, the Landlock ruleset passed
// as a descriptor, the process bound), and when PROGRAM ends, times out or
// is cancelled, kills every process PROGRAM left behind. helper.Options
// documents each option.
//
// Why C, and without a C library: a Go program's start-up (its runtime's
// set-up, a few threads, the cgroup lookup, page faults) was about 2.5 ms
// of every sandboxed command on the 2-core machines the project measures
// on, more than half of what the sandbox added to one (BENCHMARKS.md,
// issue 43). This program is a few system calls around an execve: a
// static, freestanding binary of some 20 KB with its own system-call
// stubs (amd64 and arm64), so that what it builds to depends on the
// compiler alone (helperbin's TestEmbeddedHelpersAreBuiltFromThisSource).
//
// The supervisor is never confined: PROGRAM is confined in a child of its
// own (forked at once, so that joining the process-bound cgroup overlaps
// the mounts' set-up), which starts PROGRAM only when the supervisor has
// set everything up; Landlock's domain is the child's, so PROGRAM can
// neither ptrace nor signal its supervisor, which is not dumpable either.
//
// Where it differs from the Go helper, on purpose: PROGRAM keeps SIGKILL as
// its parent-death signal, so it dies with its supervisor even when the
// supervisor is killed outright; without --cgroup-thread the confined child
// alone joins the cgroup (the supervisor does not count against its
// pids.max).
//
// Build: helperbin/build.go (go generate ./tools/shell/sandbox/helperbin).

#include <asm/unistd.h>
#include <linux/types.h>

typedef unsigned long size_t;
typedef long ssize_t;

// ---------------------------------------------------------------------
// System calls.

#if defined(__x86_64__)
static long sys6(long n, long a, long b, long c, long d, long e, long f) {
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start\n"
	"	hlt\n");
#define AUDIT_ARCH 0xc000003eu
#elif defined(__aarch64__)
static long sys6(long n, long a, long b, long c, long d, long e, long f) {
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	and sp, x0, #-16\n"
	"	bl start\n"
	"	brk #0\n");
#define AUDIT_ARCH 0xc00000b7u
#else
#error "agent-sandbox is built for amd64 and arm64"
#endif

#define sys0(n) sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) sys6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

// The numbers below are the same on every architecture (the unified
// numbering from Linux 5.1), or constants of the kernel's ABI.
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432
#define NR_close_range 436
#define NR_landlock_restrict_self 446

#define AT_FDCWD -100
#define AT_EMPTY_PATH 0x1000
#define O_RDONLY 0
#define O_WRONLY 1
#define O_DIRECTORY 0200000
#define O_CLOEXEC 02000000
#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define ECHILD 10
#define EAGAIN 11
#define EACCES 13
#define EINVAL 22
#define MS_RDONLY 1
#define MS_NOSUID 2
#define MS_NODEV 4
#define MS_NOEXEC 8
#define MS_REMOUNT 32
#define MS_NOATIME 1024
#define MS_NODIRATIME 2048
#define MS_BIND 4096
#define MS_REC 16384
#define MS_PRIVATE (1 << 18)
#define MS_RELATIME (1 << 21)
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define SIGHUP 1
#define SIGINT 2
#define SIGKILL 9
#define SIGPIPE 13
#define SIGTERM 15
#define SIGCHLD 17
#define WNOHANG 1
#define PR_SET_PDEATHSIG 1
#define PR_SET_DUMPABLE 4
#define PR_SET_NAME 15
#define PR_SET_SECCOMP 22
#define PR_CAPBSET_DROP 24
#define PR_SET_SECUREBITS 28
#define PR_SET_CHILD_SUBREAPER 36
#define PR_SET_NO_NEW_PRIVS 38
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#define SECCOMP_MODE_FILTER 2
#define AF_UNIX 1
#define AF_INET 2
#define SOCK_DGRAM 2
#define SOCK_CLOEXEC 02000000
#define SOL_SOCKET 1
#define SCM_RIGHTS 1
#define SIOCGIFFLAGS 0x8913
#define SIOCSIFFLAGS 0x8914
#define IFF_UP 0x1
#define IFF_RUNNING 0x40
#define RLIMIT_NPROC 6
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#define FSOPEN_CLOEXEC 1
#define FSMOUNT_CLOEXEC 1
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#define OPEN_TREE_CLONE 1
#define MOVE_MOUNT_F_EMPTY_PATH 4
#define ST_NOSUID 0x2
#define ST_NODEV 0x4
#define ST_NOEXEC 0x8
#define ST_NOATIME 0x400
#define ST_NODIRATIME 0x800
#define ST_RELATIME 0x1000
#define ST_NOSYMFOLLOW 0x2000
#define MS_NOSYMFOLLOW 256

#if defined(__x86_64__)
#define NR_open_at __NR_openat
#define NR_fstatat __NR_newfstatat
#else
#define NR_open_at __NR_openat
#define NR_fstatat __NR_newfstatat
#endif

// The kernel's struct stat differs by architecture; only st_mode is read,
// at the offset each architecture puts it.
struct kstat {
	unsigned char raw[256];
};
static unsigned kstat_mode(const struct kstat *st) {
#if defined(__x86_64__)
	return *(const unsigned *)(st->raw + 24);
#else
	return *(const unsigned *)(st->raw + 16);
#endif
}

struct kstatfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};

struct ktimespec {
	long tv_sec, tv_nsec;
};

struct ksiginfo {
	int si_signo, si_errno, si_code;
	int pad[29];
};

// ---------------------------------------------------------------------
// What a C library would give.

void *memset(void *d, int c, size_t n) {
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n) {
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

void *memmove(void *d, const void *s, size_t n) {
	unsigned char *p = d;
	const unsigned char *q = s;
	if (p < q) {
		while (n--)
			*p++ = *q++;
	} else {
		while (n--)
			p[n] = q[n];
	}
	return d;
}

int memcmp(const void *a, const void *b, size_t n) {
	const unsigned char *p = a, *q = b;
	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

static size_t slen(const char *s) {
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static int seq(const char *a, const char *b) {
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

// prefixed returns what follows prefix in s, or 0 when s does not start
// with it.
static const char *prefixed(const char *s, const char *prefix) {
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return s;
}

// under reports whether path is dir or lies under it.
static int under(const char *path, const char *dir) {
	if (seq(dir, "/"))
		return 1;
	const char *rest = prefixed(path, dir);
	return rest && (*rest == 0 || *rest == '/');
}

// parse_num reads a decimal number of s, all of it; -1 when s is not one.
static long parse_num(const char *s) {
	long n = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > (1L << 58))
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n;
}

// parse_int reads s as Go's strconv.Atoi does on a 64-bit system (an
// optional sign, then decimal digits, all of it, in range) into *v; 0 when
// s is not one.
static int parse_int(const char *s, long *v) {
	int neg = 0;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return 0;
	unsigned long n = 0, limit = neg ? 9223372036854775808UL : 9223372036854775807UL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		unsigned long d = (unsigned long)(*s - '0');
		if (n > (limit - d) / 10)
			return 0;
		n = n * 10 + d;
	}
	*v = neg ? (long)(0 - n) : (long)n;
	return 1;
}

// fmt_num writes n in decimal to b (at least 21 bytes) and returns b.
static char *fmt_num(char *b, long n) {
	char t[24];
	int i = 0, j = 0;
	if (n < 0) {
		b[j++] = '-';
		n = -n;
	}
	do
		t[i++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (i > 0)
		b[j++] = t[--i];
	b[j] = 0;
	return b;
}

// A small arena for what the helper reads (mount tables, lists of
// children): mmap'd as it grows, never freed (the helper lives for one
// command).
static char *arena;
static size_t arena_left;

static void *alloc(size_t n) {
	n = (n + 15) & ~(size_t)15;
	if (n > arena_left) {
		size_t size = n > (1 << 20) ? n : (1 << 20);
		long p = sys6(__NR_mmap, 0, (long)size, 3 /* PROT_READ|PROT_WRITE */, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, -1, 0);
		if (p < 0 && p > -4096)
			return 0;
		arena = (char *)p;
		arena_left = size;
	}
	void *r = arena;
	arena += n;
	arena_left -= n;
	return r;
}

static long sys_write_all(int fd, const char *s, size_t n) {
	while (n > 0) {
		long w = sys3(__NR_write, fd, s, n);
		if (w == -EINTR)
			continue;
		if (w < 0)
			return w;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static void puts_fd(int fd, const char *s) { sys_write_all(fd, s, slen(s)); }

// read_upto reads fd into buf until its end or cap bytes: how many, or
// the error.
static long read_upto(int fd, char *buf, size_t cap) {
	size_t n = 0;
	while (n < cap) {
		long r = sys3(__NR_read, fd, buf + n, cap - n);
		if (r == -EINTR)
			continue;
		if (r < 0)
			return r;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (long)n;
}

// read_file reads all of path (up to what fits in memory) into the arena,
// NUL-terminated; 0 with *err set when it cannot.
static char *read_file(const char *path, long *err) {
	int fd = (int)sys4(NR_open_at, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		*err = fd;
		return 0;
	}
	size_t cap = 64 << 10, n = 0;
	char *b = alloc(cap + 1);
	for (;;) {
		if (!b) {
			sys1(__NR_close, fd);
			*err = -12;
			return 0;
		}
		long r = read_upto(fd, b + n, cap - n);
		if (r < 0) {
			sys1(__NR_close, fd);
			*err = r;
			return 0;
		}
		n += (size_t)r;
		if (n < cap) // its end
			break;
		char *bigger = alloc(cap * 2 + 1);
		if (bigger)
			memcpy(bigger, b, n);
		b = bigger;
		cap *= 2;
	}
	sys1(__NR_close, fd);
	b[n] = 0;
	*err = 0;
	return b;
}

// scratch holds what read_scratch read last: the files the supervisor
// reads again and again while it kills (children lists, stat lines) are
// read into it instead of the arena. 1 MB, of which only what is read is
// ever touched.
static char scratch[1 << 20];

// read_scratch reads path into scratch, NUL-terminated (cut at 1 MB, and
// then at its last whole field); 0 with *err set when it cannot.
static char *read_scratch(const char *path, long *err) {
	int fd = (int)sys4(NR_open_at, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		*err = fd;
		return 0;
	}
	long r = read_upto(fd, scratch, sizeof scratch - 1);
	sys1(__NR_close, fd);
	if (r < 0) {
		*err = r;
		return 0;
	}
	size_t n = (size_t)r;
	if (n == sizeof scratch - 1) // cut: drop the last, partial, field
		while (n > 0 && scratch[n - 1] != ' ' && scratch[n - 1] != '\n')
			n--;
	scratch[n] = 0;
	*err = 0;
	return scratch;
}

// errtext is Go's text for the error number, so that a failure reads as
// the Go helper's would.
static const char *errtext(long e, char *buf) {
	switch (-e) {
	case 1: return "operation not permitted";
	case 2: return "no such file or directory";
	case 3: return "no such process";
	case 4: return "interrupted system call";
	case 5: return "input/output error";
	case 6: return "no such device or address";
	case 7: return "argument list too long";
	case 8: return "exec format error";
	case 9: return "bad file descriptor";
	case 10: return "no child processes";
	case 11: return "resource temporarily unavailable";
	case 12: return "cannot allocate memory";
	case 13: return "permission denied";
	case 14: return "bad address";
	case 16: return "device or resource busy";
	case 17: return "file exists";
	case 18: return "invalid cross-device link";
	case 19: return "no such device";
	case 20: return "not a directory";
	case 21: return "is a directory";
	case 22: return "invalid argument";
	case 23: return "too many open files in system";
	case 24: return "too many open files";
	case 25: return "inappropriate ioctl for device";
	case 26: return "text file busy";
	case 28: return "no space left on device";
	case 30: return "read-only file system";
	case 36: return "file name too long";
	case 38: return "function not implemented";
	case 39: return "directory not empty";
	case 40: return "too many levels of symbolic links";
	case 75: return "value too large for defined data type";
	case 88: return "socket operation on non-socket";
	case 95: return "operation not supported";
	case 97: return "address family not supported by protocol";
	case 122: return "disk quota exceeded";
	}
	const char *p = "errno ";
	size_t i = 0;
	while (*p)
		buf[i++] = *p++;
	fmt_num(buf + i, -e);
	return buf;
}

// ---------------------------------------------------------------------
// Failing.

#define EXIT_SETUP 125

static __attribute__((noreturn)) void exit_now(int code) {
	for (;;)
		sys1(__NR_exit_group, code);
}

// fail reports a set-up failure on stderr, which the agent shows the
// model, as "agent sandbox: WHAT: ERROR", and exits with EXIT_SETUP.
static __attribute__((noreturn)) void fail(const char *what, const char *arg, long e) {
	char buf[4096], num[32];
	size_t n = 0;
	const char *parts[] = {"agent sandbox: ", what, arg, e ? ": " : "", e ? errtext(e, num) : "", "\n"};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		for (const char *p = parts[i]; p && *p && n < sizeof buf - 2; p++)
			buf[n++] = *p;
	if (n == sizeof buf - 2)
		buf[n++] = '\n';
	sys_write_all(2, buf, n);
	exit_now(EXIT_SETUP);
}

// ---------------------------------------------------------------------
// Options: helper.Options, as helper.Options.Args writes them.

struct options {
	int ruleset_fd;
	long grace_ms;
	const char **writable, **pinned, **readonly, **hidden;
	int n_writable, n_pinned, n_readonly, n_hidden;
	int cap_writable, cap_pinned, cap_readonly, cap_hidden;
	int ro_rest, private_mounts, loopback, no_unix_sockets, probe, supervise_only;
	long max_procs;
	int cgroup_fd, cgroup_thread;
	int tmp_fd;
	const char *tmp_at;
	long make_tmp;
	int map_ids;
	long uid, gid;
	char **program;
};

// add appends p to a list of paths, which grows as it needs to.
static void add(const char ***list, int *n, int *cap, const char *p) {
	if (*n == *cap) {
		int bigger = *cap ? *cap * 2 : 64;
		const char **l = alloc(sizeof(char *) * (size_t)bigger);
		if (!l)
			fail("too many paths", "", -12);
		if (*n)
			memcpy(l, *list, sizeof(char *) * (size_t)*n);
		*list = l;
		*cap = bigger;
	}
	(*list)[(*n)++] = p;
}

// quote writes s as Go's strconv.Quote does for the bytes a command line
// holds: between double quotes, with \" and \\, the C escapes of the control
// characters and \xNN for the other bytes below 0x20 and 0x7f (bytes from
// 0x80 up are copied: Go escapes them only when they are not valid UTF-8).
static const char *quote(const char *s) {
	char *q = alloc(slen(s) * 4 + 3), *d = q;
	if (!q)
		return s;
	*d++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = 0;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		}
		if (esc) {
			while (*esc)
				*d++ = *esc++;
		} else if (c < 0x20 || c == 0x7f) {
			*d++ = '\\', *d++ = 'x', *d++ = "0123456789abcdef"[c >> 4], *d++ = "0123456789abcdef"[c & 15];
		} else {
			*d++ = (char)c;
		}
	}
	*d++ = '"';
	*d = 0;
	return q;
}

static void bad(const char *arg) { fail("bad ", arg, 0); }

static void parse(char **args, struct options *o) {
	memset(o, 0, sizeof *o);
	o->ruleset_fd = o->cgroup_fd = o->tmp_fd = -1;
	o->grace_ms = 1000;
	const char *v;
	long n;
	for (int i = 0; args[i]; i++) {
		const char *a = args[i];
		if (seq(a, "--")) {
			o->program = args + i + 1;
			if (!o->program[0] && !o->probe)
				fail("no program to run", "", 0);
			return;
		} else if ((v = prefixed(a, "--ruleset-fd="))) {
			if (!parse_int(v, &n))
				bad(a);
			o->ruleset_fd = n < 0 ? -1 : (int)n;
		} else if ((v = prefixed(a, "--grace-ms="))) {
			if (!parse_int(v, &o->grace_ms) || o->grace_ms < 0)
				bad(a);
		} else if ((v = prefixed(a, "--rw="))) {
			add(&o->writable, &o->n_writable, &o->cap_writable, v);
		} else if (seq(a, "--ro-rest")) {
			o->ro_rest = 1;
		} else if ((v = prefixed(a, "--pin="))) {
			add(&o->pinned, &o->n_pinned, &o->cap_pinned, v);
		} else if ((v = prefixed(a, "--ro="))) {
			add(&o->readonly, &o->n_readonly, &o->cap_readonly, v);
		} else if ((v = prefixed(a, "--hide="))) {
			add(&o->hidden, &o->n_hidden, &o->cap_hidden, v);
		} else if (seq(a, "--private-mounts")) {
			o->private_mounts = 1;
		} else if (seq(a, "--loopback")) {
			o->loopback = 1;
		} else if (seq(a, "--no-unix-sockets")) {
			o->no_unix_sockets = 1;
		} else if (seq(a, "--probe")) {
			o->probe = 1;
		} else if (seq(a, "--supervise-only")) {
			o->supervise_only = 1;
		} else if (seq(a, "--cgroup-thread")) {
			o->cgroup_thread = 1;
		} else if ((v = prefixed(a, "--max-procs="))) {
			if (!parse_int(v, &o->max_procs) || o->max_procs < 0)
				bad(a);
		} else if ((v = prefixed(a, "--cgroup-fd="))) {
			if (!parse_int(v, &n) || n < 0)
				bad(a);
			o->cgroup_fd = (int)n;
		} else if ((v = prefixed(a, "--tmp-fd="))) {
			if (!parse_int(v, &n) || n < 0)
				bad(a);
			o->tmp_fd = (int)n;
		} else if ((v = prefixed(a, "--tmp-at="))) {
			o->tmp_at = v;
		} else if ((v = prefixed(a, "--map-ids="))) {
			char *ids = alloc(slen(v) + 1), *colon = 0;
			if (!ids)
				bad(a);
			memcpy(ids, v, slen(v) + 1);
			for (char *p = ids; *p; p++)
				if (*p == ':' && !colon)
					colon = p;
			if (!colon)
				bad(a);
			*colon = 0;
			if (!parse_int(ids, &o->uid) || !parse_int(colon + 1, &o->gid) || o->uid < 0 || o->gid < 0)
				bad(a);
			o->map_ids = 1;
		} else if ((v = prefixed(a, "--make-tmp="))) {
			if (!parse_int(v, &o->make_tmp) || o->make_tmp <= 0)
				bad(a);
		} else {
			fail("unknown option ", quote(a), 0);
		}
	}
	fail("missing -- before the program", "", 0);
}

// ---------------------------------------------------------------------
// Set-up.

static void write_proc(const char *path, const char *text) {
	int fd = (int)sys4(NR_open_at, AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0)
		fail("mapping the user namespace's ids: ", path, fd);
	long e = sys_write_all(fd, text, slen(text));
	sys1(__NR_close, fd);
	if (e < 0)
		fail("mapping the user namespace's ids: ", path, e);
}

// id_map writes "ID ID 1\n" to line (at least 48 bytes).
static const char *id_map(char *line, long id) {
	char num[24];
	size_t n = 0;
	for (int i = 0; i < 2; i++) {
		for (const char *p = fmt_num(num, id); *p; p++)
			line[n++] = *p;
		line[n++] = ' ';
	}
	line[n++] = '1';
	line[n++] = '\n';
	line[n] = 0;
	return line;
}

static void map_ids(long uid, long gid) {
	char line[64];
	write_proc("/proc/self/setgroups", "deny");
	write_proc("/proc/self/gid_map", id_map(line, gid));
	write_proc("/proc/self/uid_map", id_map(line, uid));
}

static long mount_(const char *src, const char *dst, const char *type, unsigned long flags, const char *data) {
	return sys5(__NR_mount, src, dst, type, flags, data);
}

// remount_ro makes the mount at path read-only, keeping its other flags
// (a remount replaces them all); 0 or the error, with *step saying which
// call failed.
static long remount_ro(const char *path, const char **step) {
	struct kstatfs st;
	long e = sys2(__NR_statfs, path, &st);
	if (e < 0) {
		*step = "statfs";
		return e;
	}
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
	static const unsigned long pairs[][2] = {{ST_NOSUID, MS_NOSUID}, {ST_NODEV, MS_NODEV}, {ST_NOEXEC, MS_NOEXEC},
						 {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME},
						 {ST_NOSYMFOLLOW, MS_NOSYMFOLLOW}};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
		if ((unsigned long)st.f_flags & pairs[i][0])
			flags |= pairs[i][1];
	*step = "mount";
	return mount_("none", path, 0, flags, 0);
}

// remount_failed fails with Go's message for remount_ro's error.
static __attribute__((noreturn)) void remount_failed(const char *path, const char *step, long e) {
	if (seq(step, "statfs"))
		fail("statfs ", path, e);
	char what[4200];
	size_t n = 0;
	for (const char *p = "making "; *p; p++)
		what[n++] = *p;
	for (const char *p = path; *p && n < 4096; p++)
		what[n++] = *p;
	for (const char *p = " read-only"; *p; p++)
		what[n++] = *p;
	what[n] = 0;
	fail(what, "", e);
}

static void must_remount_ro(const char *path) {
	const char *step;
	long e = remount_ro(path, &step);
	if (e < 0)
		remount_failed(path, step, e);
}

static void bind(const char *p) {
	long e = mount_(p, p, 0, MS_BIND | MS_REC, 0);
	if (e < 0)
		fail("bind-mounting ", p, e);
}

// unescape_mount decodes a mount point of /proc/self/mountinfo (\040 for a
// space...) in place.
static void unescape_mount(char *s) {
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
			continue;
		}
		*d++ = *s;
	}
	*d = 0;
}

// read_only_rest remounts read-only every mount but the writable ones (and
// what lies under them) and those under /dev, /proc and /sys.
static void read_only_rest(const struct options *o) {
	long err;
	char *raw = read_file("/proc/self/mountinfo", &err);
	if (!raw)
		fail("listing mounts: open /proc/self/mountinfo", "", err);
	const char **done = 0;
	int n_done = 0, cap_done = 0;
	for (char *line = raw; *line;) {
		char *end = line;
		while (*end && *end != '\n')
			end++;
		char next = *end;
		*end = 0;
		// The fifth field is the mount point.
		char *f = line, *mp = 0;
		for (int field = 0; field < 5 && *f; field++) {
			while (*f == ' ' || *f == '\t')
				f++;
			char *start = f;
			while (*f && *f != ' ' && *f != '\t')
				f++;
			if (field == 4 && f > start) {
				mp = start;
				if (*f)
					*f = 0;
			}
		}
		line = next ? end + 1 : end;
		if (!mp)
			continue;
		unescape_mount(mp);
		int seen = 0;
		for (int i = 0; i < n_done && !seen; i++)
			seen = seq(done[i], mp);
		if (seen || under(mp, "/dev") || under(mp, "/proc") || under(mp, "/sys"))
			continue;
		if (n_done == cap_done) {
			int cap = cap_done ? cap_done * 2 : 256;
			const char **bigger = alloc(sizeof(char *) * (size_t)cap);
			if (!bigger)
				fail("listing mounts", "", -12);
			if (n_done)
				memcpy(bigger, done, sizeof(char *) * (size_t)n_done);
			done = bigger;
			cap_done = cap;
		}
		done[n_done++] = mp;
		int skip = 0;
		for (int i = 0; i < o->n_writable && !skip; i++)
			skip = under(mp, o->writable[i]);
		if (skip)
			continue;
		const char *step;
		long e = remount_ro(mp, &step);
		if (e == -ENOENT || e == -EACCES)
			continue; // hidden under another mount, or not ours to see
		if (e < 0)
			remount_failed(mp, step, e);
	}
}

// hide makes path unreadable: an empty read-only tmpfs of mode 000 over a
// directory, /dev/null read-only over a file; nothing when it is not
// there.
static void hide(const char *path) {
	struct kstat st;
	if (sys4(NR_fstatat, AT_FDCWD, path, &st, 0) < 0)
		return;
	long e;
	if ((kstat_mode(&st) & S_IFMT) == S_IFDIR) {
		e = mount_("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k,nr_inodes=2");
		if (e < 0)
			fail("hiding ", path, e);
		return;
	}
	if ((e = mount_("/dev/null", path, 0, MS_BIND, 0)) < 0)
		fail("hiding ", path, e);
	must_remount_ro(path);
}

// attach_tmp mounts a clone of the session's tmpfs (fd, a detached mount)
// on dir.
static void attach_tmp(int fd, const char *dir) {
	long tree = sys3(NR_open_tree, fd, "", OPEN_TREE_CLONE | AT_EMPTY_PATH | O_CLOEXEC);
	if (tree < 0)
		fail("cloning the session's temporary directory", "", tree);
	long e = sys5(NR_move_mount, tree, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH);
	if (e < 0)
		fail("mounting the session's temporary directory on ", dir, e);
	sys1(__NR_close, tree);
	sys1(__NR_close, fd);
}

struct kifreq {
	char name[16];
	unsigned short flags;
	char pad[22];
};

static void loopback_up(void) {
	long fd = sys3(__NR_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("loopback", "", fd);
	struct kifreq req;
	memset(&req, 0, sizeof req);
	req.name[0] = 'l', req.name[1] = 'o';
	long e = sys3(__NR_ioctl, fd, SIOCGIFFLAGS, &req);
	if (e < 0)
		fail("loopback flags", "", e);
	if (!(req.flags & IFF_UP)) { // else up already: the session's shared namespace
		req.flags |= IFF_UP | IFF_RUNNING;
		if ((e = sys3(__NR_ioctl, fd, SIOCSIFFLAGS, &req)) < 0)
			fail("loopback up", "", e);
	}
	sys1(__NR_close, fd);
}

// confine sets up the mounts and the network of the helper's namespaces
// (helper.Options: Writable, ReadOnlyRest, Pinned, ReadOnly, Hidden, the
// session's tmpfs, Loopback).
static void confine(const struct options *o) {
	char cwd[4096];
	long have_cwd = sys2(__NR_getcwd, cwd, sizeof cwd);
	long e;
	if (o->private_mounts && (e = mount_("none", "/", 0, MS_REC | MS_PRIVATE, 0)) < 0)
		fail("making mounts private", "", e);
	for (int i = 0; i < o->n_writable; i++)
		bind(o->writable[i]);
	if (o->ro_rest)
		read_only_rest(o);
	for (int i = 0; i < o->n_pinned; i++)
		bind(o->pinned[i]);
	for (int i = 0; i < o->n_readonly; i++) {
		bind(o->readonly[i]);
		must_remount_ro(o->readonly[i]);
	}
	for (int i = 0; i < o->n_hidden; i++)
		hide(o->hidden[i]);
	if (o->tmp_fd >= 0 && o->tmp_at && *o->tmp_at)
		attach_tmp(o->tmp_fd, o->tmp_at);
	// Bound over the working directory, the mounts are entered by its
	// path again.
	if (o->private_mounts && have_cwd > 0 && (e = sys1(__NR_chdir, cwd)) < 0)
		fail("re-entering ", cwd, e);
	if (o->loopback)
		loopback_up();
}

// make_tmp creates the session's tmpfs of size bytes as a detached mount
// and sends it over the unix socket at sock; an error's text on failure.
static const char *make_tmp(long size, int sock, char *why) {
	long fs = sys2(NR_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	char num[24], buf[64];
	const char *what = "fsopen tmpfs";
	char size_opt[48] = "tmpfs option size=";
	long e = fs;
	if (fs >= 0) {
		fmt_num(num, size);
		for (size_t i = 0; num[i]; i++)
			size_opt[18 + i] = num[i], size_opt[19 + i] = 0;
		what = size_opt;
		e = sys5(NR_fsconfig, fs, FSCONFIG_SET_STRING, "size", num, 0);
		if (e >= 0) {
			what = "tmpfs option mode=0700";
			e = sys5(NR_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0700", 0);
		}
		if (e >= 0) {
			what = "creating the tmpfs";
			e = sys5(NR_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0);
		}
		long m = -1;
		if (e >= 0) {
			what = "fsmount";
			e = m = sys3(NR_fsmount, fs, FSMOUNT_CLOEXEC, 0);
		}
		if (e >= 0) {
			struct {
				unsigned long len;
				int level, type;
				int fd;
				int pad;
			} cmsg = {sizeof(unsigned long) + 2 * sizeof(int) + sizeof(int), SOL_SOCKET, SCM_RIGHTS, (int)m, 0};
			char byte = 0;
			struct {
				void *base;
				size_t len;
			} iov = {&byte, 1};
			struct {
				void *name;
				int namelen;
				void *iov;
				size_t iovlen;
				void *control;
				size_t controllen;
				int flags;
			} msg = {0, 0, &iov, 1, &cmsg, sizeof cmsg, 0};
			what = "sending the tmpfs";
			e = sys3(__NR_sendmsg, sock, &msg, 0);
		}
		if (m >= 0)
			sys1(__NR_close, m);
		sys1(__NR_close, fs);
	}
	if (e >= 0)
		return 0;
	size_t n = 0;
	for (const char *p = what; *p; p++)
		why[n++] = *p;
	why[n++] = ':', why[n++] = ' ';
	for (const char *p = errtext(e, buf); *p; p++)
		why[n++] = *p;
	why[n] = 0;
	return why;
}

// ---------------------------------------------------------------------
// Confining the program's process.

struct sock_filter {
	unsigned short code;
	unsigned char jt, jf;
	unsigned int k;
};

#define RET_ALLOW 0x7fff0000u
#define RET_ERRNO 0x00050000u
#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_JGE_K 0x35
#define BPF_RET_K 0x06

// deny_unix_sockets denies socket(AF_UNIX, ...) (socketpair stays
// allowed), io_uring (whose operations seccomp cannot see) and the x32
// system calls.
static long deny_unix_sockets(void) {
	struct sock_filter filter[] = {
		{BPF_LD_W_ABS, 0, 0, 4}, // arch
		{BPF_JEQ_K, 1, 0, AUDIT_ARCH},
		{BPF_RET_K, 0, 0, RET_ERRNO | EPERM},
		{BPF_LD_W_ABS, 0, 0, 0}, // nr
		{BPF_JGE_K, 0, 1, 0x40000000}, // x32
		{BPF_RET_K, 0, 0, RET_ERRNO | EPERM},
		{BPF_JEQ_K, 0, 1, 425}, // io_uring_setup
		{BPF_RET_K, 0, 0, RET_ERRNO | EPERM},
		{BPF_JEQ_K, 0, 3, __NR_socket},
		{BPF_LD_W_ABS, 0, 0, 16}, // args[0], low half (little-endian)
		{BPF_JEQ_K, 0, 1, AF_UNIX},
		{BPF_RET_K, 0, 0, RET_ERRNO | EACCES},
		{BPF_RET_K, 0, 0, RET_ALLOW},
	};
	struct {
		unsigned short len;
		struct sock_filter *filter;
	} prog = {sizeof filter / sizeof *filter, filter};
	return sys3(__NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

// drop_capabilities leaves the program none: securebits that keep root
// from regaining them on execve (locked), the bounding set emptied, the
// ambient set cleared, and the effective, permitted and inheritable sets
// emptied.
static void drop_capabilities(void) {
	const long no_root = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7;
	long e = sys2(__NR_prctl, PR_SET_SECUREBITS, no_root);
	if (e < 0 && e != -EPERM)
		fail("securebits", "", e);
	long last = 40, err;
	char *text = read_file("/proc/sys/kernel/cap_last_cap", &err);
	if (text) {
		char *p = text;
		while (*p >= '0' && *p <= '9')
			p++;
		*p = 0;
		long n = parse_num(text);
		if (n >= 0)
			last = n;
	}
	for (long c = 0; c <= last; c++) {
		e = sys2(__NR_prctl, PR_CAPBSET_DROP, c);
		if (e < 0 && e != -EPERM && e != -EINVAL) {
			char num[24];
			fail("dropping capability ", fmt_num(num, c), e);
		}
	}
	sys5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct {
		unsigned version;
		int pid;
	} hdr = {0x20080522, 0};
	unsigned data[6] = {0};
	if ((e = sys2(__NR_capset, &hdr, data)) < 0)
		fail("capset", "", e);
}

static void join_cgroup(int fd) {
	long e = sys_write_all(fd, "0\n", 2);
	sys1(__NR_close, fd);
	if (e < 0)
		fail("joining the process-bound cgroup: write cgroup.procs", "", e);
}

// ---------------------------------------------------------------------
// Supervising.

static int self_pid;

static int append_ints(const char *s, long *kids, int n, int max) {
	long v = 0;
	int in = 0;
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			v = v * 10 + (*s - '0'), in = 1;
			continue;
		}
		if (in && n < max)
			kids[n++] = v;
		v = 0, in = 0;
		if (!*s)
			return n;
	}
}

struct dirent64 {
	unsigned long d_ino;
	long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

// join writes the strings of parts (ended by a null) one after the other
// into dst, cut to cap bytes with its NUL, and returns dst.
static char *join(char *dst, size_t cap, const char *const *parts) {
	size_t n = 0;
	for (; *parts; parts++)
		for (const char *p = *parts; *p && n < cap - 1; p++)
			dst[n++] = *p;
	dst[n] = 0;
	return dst;
}

// each_pid calls fn with every entry of dir whose name is a number (a
// process or a task) and ctx, until fn returns non-zero; it returns that
// (0: all were seen, or dir could not be read).
static int each_pid(const char *dir, int (*fn)(long id, void *ctx), void *ctx) {
	int fd = (int)sys4(NR_open_at, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	char buf[8192];
	int stop = 0;
	while (!stop) {
		long got = sys3(__NR_getdents64, fd, buf, sizeof buf);
		if (got <= 0)
			break;
		for (long off = 0; off < got && !stop;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			long id = parse_num(d->d_name);
			if (id > 0)
				stop = fn(id, ctx);
		}
	}
	sys1(__NR_close, fd);
	return stop;
}

// found is where children_of and scan_children gather a process's
// children.
struct found {
	long pid; // whose
	long *kids;
	int n, max;
};

// child_by_stat adds process p to f when its /proc/P/stat names f->pid as
// its parent.
static int child_by_stat(long p, void *ctx) {
	struct found *f = ctx;
	char path[64], num[24];
	long err;
	char *stat = read_scratch(join(path, sizeof path, (const char *[]){"/proc/", fmt_num(num, p), "/stat", 0}), &err);
	if (!stat)
		return 0;
	char *close = 0;
	for (char *s = stat; *s; s++)
		if (*s == ')')
			close = s;
	// ") S PPID ..."
	if (!close || close[1] != ' ' || !close[2] || close[3] != ' ')
		return 0;
	long ppid = 0;
	for (char *s = close + 4; *s >= '0' && *s <= '9'; s++)
		ppid = ppid * 10 + (*s - '0');
	if (ppid == f->pid && f->n < f->max)
		f->kids[f->n++] = p;
	return 0;
}

// children_of_task adds the children of task t of f->pid, from its
// children file; 1 (stop) when the kernel has none (no
// CONFIG_PROC_CHILDREN).
static int children_of_task(long t, void *ctx) {
	struct found *f = ctx;
	char path[96], pid[24], task[24];
	long err;
	char *text = read_scratch(join(path, sizeof path, (const char *[]){"/proc/", fmt_num(pid, f->pid), "/task/", fmt_num(task, t), "/children", 0}), &err);
	if (!text && err == -ENOENT)
		return 1;
	if (text)
		f->n = append_ints(text, f->kids, f->n, f->max);
	return 0;
}

// children_of puts the children of pid in kids (at most max) and returns
// their number: from its tasks' children files, or a scan of every
// process's stat where the kernel has no such files.
static int children_of(long pid, long *kids, int max) {
	char path[64], num[24];
	struct found f = {pid, kids, 0, max};
	if (each_pid(join(path, sizeof path, (const char *[]){"/proc/", fmt_num(num, pid), "/task", 0}), children_of_task, &f)) {
		f.n = 0;
		each_pid("/proc", child_by_stat, &f);
	}
	return f.n;
}

#define MAX_KIDS 65536

// What signal_all and kill_all list processes in (1 MB, touched only as
// far as used).
static long todo[MAX_KIDS], seen[MAX_KIDS];

// signal_all sends sig to the program and every descendant, children
// first.
static void signal_all(long program, int sig) {
	sys2(__NR_kill, program, sig);
	int n = children_of(self_pid, todo, MAX_KIDS), n_seen = 0;
	while (n > 0) {
		long pid = todo[--n];
		int was = 0;
		for (int i = 0; i < n_seen && !was; i++)
			was = seen[i] == pid;
		if (was || n_seen == MAX_KIDS)
			continue;
		seen[n_seen++] = pid;
		sys2(__NR_kill, pid, sig);
		n += children_of(pid, todo + n, MAX_KIDS - n);
	}
}

// kill_all kills what the program left behind: every process that is
// still this one's child (an orphan comes here, since this process is a
// child subreaper), until none is left.
static void kill_all(void) {
	int ws;
	for (;;) {
		long got = sys4(__NR_wait4, -1, &ws, WNOHANG, 0);
		if (got == -ECHILD)
			return;
		if (got != -EINTR)
			break;
	}
	long *kids = todo;
	for (;;) {
		int n = children_of(self_pid, kids, MAX_KIDS);
		for (int i = 0; i < n; i++)
			sys2(__NR_kill, kids[i], SIGKILL);
		long got = sys4(__NR_wait4, -1, &ws, n > 0 ? 0 : WNOHANG, 0); // something killed: its exit will come
		if (got == -EINTR)
			continue;
		if (got < 0) // ECHILD: none left
			return;
		if (got == 0 && n == 0) {
			struct ktimespec ms = {0, 1000000};
			sys4(__NR_clock_nanosleep, 1 /* CLOCK_MONOTONIC */, 0, &ms, 0);
		}
	}
}

static unsigned long sigbit(int sig) { return 1UL << (sig - 1); }

struct ksigaction {
	unsigned long handler, flags, restorer, mask;
};

// set_default gives sig its default action (SIG_DFL).
static void set_default(int sig) {
	struct ksigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	sys4(__NR_rt_sigaction, sig, &dfl, 0, 8);
}

// die_as ends this process as sig would have (its default action, which
// the agent reads), or with 128+sig when it does not end it. Only sig is
// unblocked: another pending one (a SIGPIPE from the pipe to a program
// that died before it started) must not end it first.
static int die_as(int sig) {
	set_default(sig);
	unsigned long mask = sigbit(sig);
	sys4(__NR_rt_sigprocmask, SIG_UNBLOCK, &mask, 0, 8);
	sys3(__NR_tgkill, self_pid, self_pid, sig);
	struct ktimespec t = {0, 10000000};
	sys4(__NR_clock_nanosleep, 1, 0, &t, 0);
	return 128 + sig;
}

static int status_of(int ws) {
	int sig = ws & 0x7f;
	if (sig == 0)
		return (ws >> 8) & 0xff;
	if (sig == 0x7f) // stopped: not reported without WUNTRACED
		return 0;
	return die_as(sig);
}

static long now_ms(void) {
	struct ktimespec t;
	sys2(__NR_clock_gettime, 1, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// run_program forks the process that becomes the program: it joins the
// cgroup and confines itself while this one sets up the mounts
// (setup_done, its pipe's write end, tells it to go on), then starts the
// program in a session of its own with only the standard descriptors and
// the signal mask emptied.
static long fork_program(const struct options *o, char **envp, int go_read, int go_write) {
	long pid = sys5(__NR_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid != 0)
		return pid;
	sys1(__NR_close, go_write);
	// Dies with the supervisor, even before the program starts.
	sys2(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL);
	if (sys0(__NR_getppid) != self_pid)
		exit_now(EXIT_SETUP);
	if (o->cgroup_fd >= 0 && (!o->cgroup_thread || !o->supervise_only))
		join_cgroup(o->cgroup_fd);
	char go;
	for (;;) {
		long r = sys3(__NR_read, go_read, &go, 1);
		if (r == -EINTR)
			continue;
		if (r != 1) // the supervisor failed, or died
			exit_now(EXIT_SETUP);
		break;
	}
	char cwd[4096];
	long e;
	// The mounts' directory, not the one bound over.
	if (o->private_mounts && sys2(__NR_getcwd, cwd, sizeof cwd) > 0 && (e = sys1(__NR_chdir, cwd)) < 0)
		fail("re-entering ", cwd, e);
	if (!o->supervise_only) {
		drop_capabilities();
		if ((e = sys2(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1)) < 0)
			fail("setting no_new_privs", "", e);
		if (o->no_unix_sockets && (e = deny_unix_sockets()) < 0)
			fail("seccomp", "", e);
		if (o->ruleset_fd >= 0) {
			if ((e = sys2(NR_landlock_restrict_self, o->ruleset_fd, 0)) < 0)
				fail("landlock_restrict_self", "", e);
			sys1(__NR_close, o->ruleset_fd);
		}
		if (o->max_procs > 0) {
			struct {
				unsigned long cur, max;
			} lim = {(unsigned long)o->max_procs, (unsigned long)o->max_procs};
			if ((e = sys4(__NR_prlimit64, 0, RLIMIT_NPROC, &lim, 0)) < 0)
				fail("setting the process bound", "", e);
		}
	}
	// Descriptors the agent let us inherit stay out of the program.
	if ((e = sys3(NR_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC)) < 0)
		fail("close_range", "", e);
	sys0(__NR_setsid);
	// Every signal's default action and none blocked, as the Go helper's
	// program has them: not what the agent's parent left ignored.
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != 19 /* SIGSTOP */)
			set_default(sig);
	unsigned long none = 0;
	sys4(__NR_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);
	e = sys3(__NR_execve, o->program[0], o->program, envp);
	fail("starting ", o->program[0], e);
}

static int supervise(const struct options *o, char **envp) {
	long e;
	if ((e = sys2(__NR_prctl, PR_SET_CHILD_SUBREAPER, 1)) < 0)
		fail("becoming a child subreaper", "", e);
	// Not dumpable: nothing without CAP_SYS_PTRACE in our user namespace
	// (and the program has no capabilities) may ptrace this process or
	// open its memory.
	if ((e = sys2(__NR_prctl, PR_SET_DUMPABLE, 0)) < 0)
		fail("making the helper undumpable", "", e);
	// Signals that stop the program: the agent's SIGTERM to the process
	// group, and SIGTERM as this process's parent-death signal. Blocked
	// and waited for, with SIGCHLD.
	unsigned long stops = sigbit(SIGTERM) | sigbit(SIGINT) | sigbit(SIGHUP);
	unsigned long set = stops | sigbit(SIGCHLD);
	// SIGPIPE too: a program that failed to start closed the pipe that
	// tells it to go on, and writing to it must not end this process.
	unsigned long blocked = set | sigbit(SIGPIPE);
	sys4(__NR_rt_sigprocmask, SIG_BLOCK, &blocked, 0, 8);
	int go[2];
	if ((e = sys2(__NR_pipe2, go, O_CLOEXEC)) < 0)
		fail("a pipe", "", e);
	long pid = fork_program(o, envp, go[0], go[1]);
	if (pid < 0)
		fail("starting ", o->program[0], pid);
	sys1(__NR_close, go[0]);
	confine(o);
	// Told to stop while setting up: nothing was started; end as the
	// signal would have ended us.
	unsigned long pending = 0;
	sys2(__NR_rt_sigpending, &pending, 8);
	for (int sig = 1; sig < 32; sig++)
		if (pending & stops & sigbit(sig)) {
			sys2(__NR_kill, pid, SIGKILL);
			return die_as(sig);
		}
	sys_write_all(go[1], "g", 1);
	sys1(__NR_close, go[1]);

	long deadline = -1;
	int ws = 0;
	for (;;) {
		struct ksiginfo info;
		struct ktimespec wait, *timeout = 0;
		if (deadline >= 0) {
			long left = deadline - now_ms();
			if (left < 0)
				left = 0;
			wait.tv_sec = left / 1000, wait.tv_nsec = (left % 1000) * 1000000;
			timeout = &wait;
		}
		long sig = sys4(__NR_rt_sigtimedwait, &set, &info, timeout, 8);
		if (sig == -EAGAIN) { // the grace period is over
			signal_all(pid, SIGKILL);
			deadline = -1;
			continue;
		}
		if (sig == SIGCHLD) {
			int done = 0;
			for (;;) {
				int st;
				long got = sys4(__NR_wait4, -1, &st, WNOHANG, 0);
				if (got == -EINTR)
					continue;
				if (got <= 0)
					break;
				if (got == pid)
					ws = st, done = 1;
			}
			if (done)
				break;
			continue;
		}
		if (sig > 0 && deadline < 0 && (stops & sigbit((int)sig))) {
			signal_all(pid, (int)sig);
			deadline = now_ms() + o->grace_ms;
		}
	}
	kill_all();
	return status_of(ws);
}

// start is where _start comes, with the initial stack: argc, the
// arguments, a null, the environment, a null.
__attribute__((used, noreturn)) void start(long *sp) {
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	if (argc < 2 || !seq(argv[1], "__agent-sandbox")) {
		puts_fd(2, "agent-sandbox: the agent's sandbox helper; the agent starts it, with __agent-sandbox first\n");
		exit_now(2);
	}
	// Named for ps and top: started from its memfd, the helper would be
	// called by the descriptor's number.
	char name[16] = "agent-sandbox";
	sys2(__NR_prctl, PR_SET_NAME, name);
	self_pid = (int)sys0(__NR_getpid);
	// Children exit with SIGCHLD, which supervise waits for: not reaped
	// by the kernel unseen, as they are where it is ignored.
	set_default(SIGCHLD);
	struct options o;
	parse(argv + 2, &o);
	if (o.map_ids)
		map_ids(o.uid, o.gid);
	if (o.probe) {
		if (o.make_tmp > 0) {
			// The probe goes on without it: the tmpfs is a bound of the
			// session, not part of the confinement the probe tries.
			char why[256];
			const char *err = make_tmp(o.make_tmp, 3, why);
			if (err) {
				puts_fd(1, "tmpfs: ");
				puts_fd(1, err);
				puts_fd(1, "\n");
			}
		}
		if (o.cgroup_fd >= 0 && !o.cgroup_thread)
			join_cgroup(o.cgroup_fd);
		confine(&o);
		exit_now(0);
	}
	exit_now(supervise(&o, envp));
}
