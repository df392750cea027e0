// runtime.c: the system calls and what a C library would give, failing
// included.
//
// Part of agent-sandbox.c, which #includes it: the helper is one
// translation unit.

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
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446
#define LANDLOCK_RULE_PATH_BENEATH 1

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
// What a C library would give. GCC requires memset, memcpy, memmove and
// memcmp of a freestanding program: it may compile struct copies and
// initialisations into calls to them.

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
	int fd = (int)sys4(__NR_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
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
	int fd = (int)sys4(__NR_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
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

// fail_fd is where fail writes: stderr, or --probe-fd until the set-up got
// as far as a probe's (helper.Options.ProbeFD).
static int fail_fd = 2;

// fail reports a set-up failure on stderr, which the agent shows the
// model (or on fail_fd), as "agent sandbox: WHAT: ERROR", and exits with
// EXIT_SETUP.
static __attribute__((noreturn)) void fail(const char *what, const char *arg, long e) {
	char buf[4096], num[32];
	size_t n = 0;
	const char *parts[] = {"agent sandbox: ", what, arg, e ? ": " : "", e ? errtext(e, num) : "", "\n"};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		for (const char *p = parts[i]; p && *p && n < sizeof buf - 2; p++)
			buf[n++] = *p;
	if (n == sizeof buf - 2)
		buf[n++] = '\n';
	sys_write_all(fail_fd, buf, n);
	exit_now(EXIT_SETUP);
}

