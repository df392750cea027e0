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

typedef unsigned long size_t;

// The parts, in order (each uses what the ones before it define).
#include "runtime.c"
#include "options.c"
#include "setup.c"
#include "supervise.c"

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
	if (o.probe_fd >= 0)
		fail_fd = o.probe_fd;
	if (o.map_ids)
		map_ids(o.uid, o.gid);
	if (o.make_tmp > 0 && !o.probe && o.probe_fd >= 0) {
		// The session's tmpfs, made by its first command, which mounts it
		// too (as confine mounts --tmp-fd).
		char why[256];
		tmp_failed(o.probe_fd, make_tmp(o.make_tmp, o.probe_fd, why, &o.tmp_fd, o.ruleset_fd, o.ruleset_fd >= 0 ? o.tmp_rights : 0));
	}
	if (o.probe) {
		if (o.make_tmp > 0) {
			// The probe goes on without it: the tmpfs is a bound of the
			// session, not part of the confinement the probe tries.
			char why[256];
			tmp_failed(1, make_tmp(o.make_tmp, 3, why, 0, -1, 0));
		}
		if (o.cgroup_fd >= 0 && !o.cgroup_thread)
			join_cgroup(o.cgroup_fd);
		confine(&o);
		exit_now(0);
	}
	exit_now(supervise(&o, envp));
}
