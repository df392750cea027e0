// setup.c: the set-up of the namespaces (ids, mounts, loopback, the
// session's tmpfs) and the confinement of the program's process.
//
// Part of agent-sandbox.c, which #includes it: the helper is one
// translation unit.

// ---------------------------------------------------------------------
// Set-up.

static void write_proc(const char *path, const char *text) {
	int fd = (int)sys4(__NR_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
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
	if (sys4(__NR_newfstatat, AT_FDCWD, path, &st, 0) < 0)
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
	if (o->probe_fd >= 0) {
		// As far as a probe gets: the namespaces work. What follows is
		// this command's own, and fails as any command's set-up does.
		sys_write_all(o->probe_fd, "ok\n", 3);
		sys1(__NR_close, o->probe_fd);
		fail_fd = 2;
	}
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
// With kept, the mount's descriptor is left open there (else closed).
// With rights, it first grants them beneath the tmpfs in the Landlock
// ruleset at ruleset_fd (the agent's, which keeps the rule for the
// session's later commands): the tmpfs's inodes need a rule of their own.
static const char *make_tmp(long size, int sock, char *why, int *kept, int ruleset_fd, unsigned long rights) {
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
		if (e >= 0 && rights) {
			struct {
				unsigned long allowed_access;
				int parent_fd;
			} __attribute__((packed)) rule = {rights, (int)m};
			what = "landlock_add_rule for the tmpfs";
			e = sys4(NR_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
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
		if (e >= 0 && kept)
			*kept = (int)m;
		else if (m >= 0)
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

// tmp_failed writes on fd, when err is set, the line helper.TmpFailed
// starts: "tmpfs: ERR" (one write: a record of a probe socket).
static void tmp_failed(int fd, const char *err) {
	if (!err)
		return;
	char line[512] = "tmpfs: ";
	size_t n = 7;
	for (; *err && n < sizeof line - 1; err++)
		line[n++] = *err;
	line[n++] = '\n';
	sys_write_all(fd, line, n);
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

