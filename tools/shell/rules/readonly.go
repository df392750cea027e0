package rules

// readOnlyCommands are the commands (with their leading words) that only
// read: they print files, search, list and describe the repository. The
// checker still inspects each use (sed's w and -i, sort -o, find -delete
// and -exec, git's --output and --ext-diff, awk's system and print >), so a
// rule here never lets such an option or a redirection to a file through.
var readOnlyCommands = []string{
	"ls", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "tree", "pwd", "cd", "echo", "printf",
	"true", "false", "test", "[", "which", "type", "whereis", "realpath", "readlink", "dirname", "basename",
	"grep", "egrep", "fgrep", "rg", "ag", "find", "fd", "fdfind", "xargs",
	"sort", "uniq", "cut", "tr", "nl", "column", "fold", "fmt", "rev", "tac", "paste", "join", "comm",
	"diff", "cmp", "od", "hexdump", "xxd", "strings", "md5sum", "sha1sum", "sha256sum", "jq", "sed", "awk",
	"date", "uname", "whoami", "id", "hostname", "nproc", "env", "printenv",
	"git status", "git log", "git diff", "git show", "git blame", "git grep", "git ls-files", "git ls-tree",
	"git rev-parse", "git describe", "git shortlog", "git cat-file", "git branch --show-current", "git branch --list",
	"go list", "go doc", "go version",
}

// ReadOnly returns the rules that allow only commands that read: listing,
// printing and searching files, and git's commands that show the
// repository (status, log, diff, show, blame, grep...). Check with it
// allows a command line only when every simple command in it, pipelines
// and substitutions included, is such a command, and nothing in it writes:
// an output redirection to a file, find -delete or -fprint, sort -o,
// git diff --output, sed -i and the like give Ask, as does anything the
// checker cannot resolve (a dynamic command name, eval, bash -c with a
// string that is not static). The result holds no deny rules. Plan mode
// runs the commands it allows, in a read-only sandbox.
func ReadOnly() *Set {
	s, err := Compile(readOnlyCommands, nil)
	if err != nil {
		// The list above is fixed; a rule that does not compile is a bug
		// that the package's tests catch. Allow nothing rather than panic.
		return &Set{}
	}
	return s
}
