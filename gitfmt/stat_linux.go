package gitfmt

import (
	"io/fs"
	"syscall"
)

// StatOf is the stat git keeps of the file of fi (from os.Lstat or
// File.Stat); false where this system's stat cannot be read as git reads
// it.
func StatOf(fi fs.FileInfo) (Stat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Stat{}, false
	}
	return Stat{
		CtimeSec: uint32(st.Ctim.Sec), CtimeNsec: uint32(st.Ctim.Nsec),
		MtimeSec: uint32(st.Mtim.Sec), MtimeNsec: uint32(st.Mtim.Nsec),
		Dev: uint32(st.Dev), Ino: uint32(st.Ino), UID: st.Uid, GID: st.Gid, Size: uint32(st.Size),
	}, true
}
