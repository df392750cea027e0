package version

import (
	"bytes"
	"io"
	"os"
	"strings"
)

// This file reads the main module's version from the build information the
// Go linker writes into an ELF executable, without runtime/debug: Go
// initialises packages in import-path order once their imports are ready
// (cmd/link/internal/ld/inittask.go), so importing runtime/debug, whose path
// sorts after every github.com package, would run this package's init only
// after chroma's. The layout follows debug/buildinfo (Go 1.18 and later): a
// section ".go.buildinfo" holding a 32-byte header that starts with the
// magic "\xff Go buildinf:" and has flag bit 2 set, then two strings, each a
// uvarint length and its bytes: the Go version, then the module information,
// framed by 16-byte sentinels, whose line "mod\tPATH\tVERSION[\tSUM]" names
// the main module's version.

const (
	buildInfoMagic  = "\xff Go buildinf:"
	buildInfoHeader = 32
	flagsVersionInl = 0x2
	maxBuildInfo    = 1 << 20 // bytes of the section read at most
)

// exeModuleVersion returns the main module's version recorded in the ELF
// executable r ("(devel)" for a plain go build without VCS information),
// and false when r is not a 64-bit little-endian ELF file with Go 1.18+
// build information; it never panics on a malformed file.
func exeModuleVersion(r io.ReaderAt) (string, bool) {
	var eh [64]byte
	if _, err := r.ReadAt(eh[:], 0); err != nil {
		return "", false
	}
	if string(eh[:4]) != "\x7fELF" || eh[4] != 2 || eh[5] != 1 { // ELFCLASS64, ELFDATA2LSB
		return "", false
	}
	shoff, shentsize, shnum, shstrndx := le64(eh[0x28:]), int(le16(eh[0x3a:])), int(le16(eh[0x3c:])), int(le16(eh[0x3e:]))
	if shentsize < 64 || shnum == 0 || shnum > 1<<12 || shstrndx >= shnum {
		return "", false
	}
	sh := make([]byte, shentsize*shnum)
	if _, err := r.ReadAt(sh, int64(shoff)); err != nil || shoff > 1<<40 {
		return "", false
	}
	section := func(i int) (name uint32, off, size uint64) {
		h := sh[i*shentsize:]
		return le32(h), le64(h[0x18:]), le64(h[0x20:])
	}
	_, stroff, strsize := section(shstrndx)
	if strsize > maxBuildInfo {
		return "", false
	}
	names := make([]byte, strsize)
	if _, err := r.ReadAt(names, int64(stroff)); err != nil {
		return "", false
	}
	for i := range shnum {
		name, off, size := section(i)
		if int(name) >= len(names) || !bytes.HasPrefix(names[name:], []byte(".go.buildinfo\x00")) {
			continue
		}
		data := make([]byte, min(size, maxBuildInfo))
		if n, err := r.ReadAt(data, int64(off)); err != nil && n < len(data) {
			return "", false
		}
		return buildInfoVersion(data)
	}
	return "", false
}

// buildInfoVersion decodes the contents of a .go.buildinfo section.
func buildInfoVersion(data []byte) (string, bool) {
	if len(data) < buildInfoHeader || string(data[:len(buildInfoMagic)]) != buildInfoMagic ||
		data[15]&flagsVersionInl == 0 {
		return "", false
	}
	rest := data[buildInfoHeader:]
	if _, rest = uvarintString(rest); rest == nil {
		return "", false
	}
	mod, rest := uvarintString(rest)
	if rest == nil {
		return "", false
	}
	if len(mod) < 33 || mod[len(mod)-17] != '\n' {
		return "", false
	}
	for line := range strings.SplitSeq(mod[16:len(mod)-16], "\n") {
		if f := strings.Split(line, "\t"); len(f) >= 3 && f[0] == "mod" {
			return f[2], true
		}
	}
	return "", false
}

// uvarintString reads a uvarint length and that many bytes from b; rest is
// nil when b is too short.
func uvarintString(b []byte) (s string, rest []byte) {
	var n uint64
	for i := 0; i < len(b) && i < 10; i++ {
		n |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			b = b[i+1:]
			if n > uint64(len(b)) {
				return "", nil
			}
			return string(b[:n]), b[n:]
		}
	}
	return "", nil
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

// earlyVersion is String's answer computed without runtime/debug, for the
// init path: false when the executable cannot be read as above.
func earlyVersion() (string, bool) {
	if stamped != "" {
		return stamped, true
	}
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return "", false
	}
	defer f.Close()
	v, ok := exeModuleVersion(f)
	if !ok {
		return "", false
	}
	if v == "" || v == "(devel)" {
		return "dev", true
	}
	return v, true
}
