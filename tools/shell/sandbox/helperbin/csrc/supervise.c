// supervise.c: starting and supervising the program, and ending as it
// ended.
//
// Part of agent-sandbox.c, which #includes it: the helper is one
// translation unit.

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
	int fd = (int)sys4(__NR_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
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
	// The supervisor reports the probe's part (helper.Options.ProbeFD);
	// what fails here fails as any command's set-up does.
	if (o->probe_fd >= 0)
		sys1(__NR_close, o->probe_fd);
	fail_fd = 2;
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
