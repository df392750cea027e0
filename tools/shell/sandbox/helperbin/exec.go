package helperbin

import (
	"os"
	"strconv"
)

// Exec is how to start helper, File's memfd, in a child that is given
// files as exec.Cmd's ExtraFiles: the program's path, /proc/self/fd/K,
// and the ExtraFiles to give it, files then helper at K = 3+len(files).
// The helper then holds its own program open at K; no command it starts
// inherits it (the helper closes every descriptor above 2 on exec).
func Exec(helper *os.File, files []*os.File) (string, []*os.File) {
	return "/proc/self/fd/" + strconv.Itoa(3+len(files)), append(files[:len(files):len(files)], helper)
}
