// options.c: the helper's options, as helper.Options.Args writes them.
//
// Part of agent-sandbox.c, which #includes it: the helper is one
// translation unit.

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
	int probe_fd;
	unsigned long tmp_rights;
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

// fd_arg reads v, the value of option a, as a descriptor (refusing it as
// helper.Parse does).
static int fd_arg(const char *a, const char *v) {
	long n;
	if (!parse_int(v, &n) || n < 0)
		bad(a);
	return (int)n;
}

static void parse(char **args, struct options *o) {
	memset(o, 0, sizeof *o);
	o->ruleset_fd = o->cgroup_fd = o->tmp_fd = o->probe_fd = -1;
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
			o->cgroup_fd = fd_arg(a, v);
		} else if ((v = prefixed(a, "--tmp-fd="))) {
			o->tmp_fd = fd_arg(a, v);
		} else if ((v = prefixed(a, "--probe-fd="))) {
			o->probe_fd = fd_arg(a, v);
		} else if ((v = prefixed(a, "--tmp-rights="))) {
			if (!parse_int(v, &n) || n <= 0)
				bad(a);
			o->tmp_rights = (unsigned long)n;
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

