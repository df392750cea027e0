package rules

import (
	"strings"
	"testing"
)

// Programs that look like viewers but run commands or write files through
// their options or scripts: a rule for the viewer never allows such a line
// silently. What runs commands is Unresolved (asked in every mode when deny
// rules exist: `sed e` must not run a denied rm in auto); what writes files
// is asked about as a redirection is.
func TestProgramsThatRunOrWrite(t *testing.T) {
	viewers := []string{"git commit", "date", "sed", "awk", "gawk", "tar", "sort", "git diff", "git log", "git show", "git grep", "git status",
		"git -C", "rg", "fd", "man", "tee", "cp", "mv", "dd", "uniq", "xxd", "rsync", "zip", "curl", "wget", "split", "ed", "vim", "socat", "nc"}
	set, err := Compile(viewers, []string{"rm"})
	if err != nil {
		t.Fatal(err)
	}
	const (
		allowed = iota
		writes
		runs
	)
	cases := []struct {
		cmd    string
		want   int
		reason string
	}{
		// sed: the e command, the e flag, w, W and s///w, -i, -f, --sandbox.
		{"sed -n 's/a/b/p' f", allowed, ""},
		{"sed -e 's/a/b/g' -e '/x/d' f", allowed, ""},
		{"sed 's|a/b|c;d|g; y/abc/xyz/; /re/!d' f", allowed, ""},
		{"sed '1e rm -rf x' f", runs, "e runs commands"},
		{"sed e f", runs, "e runs commands"},
		{"sed 's/.*/rm -rf x/e' f", runs, "s///e"},
		{"sed -e '/x/{s/a/b/;e' -e '}' f", runs, "e runs"},
		{"sed --expression='s/x/rm y/e' f", runs, "s///e"},
		{"sed --expr 's/x/rm y/e' f", runs, "s///e"},
		{"sed -f script.sed f", runs, "-f"},
		{"sed --file=script.sed f", runs, "--file"},
		{`sed "$SCRIPT" f`, runs, "not a static word"},
		{"sed -i 's/a/b/' f", writes, "-i"},
		{"sed -i.bak 's/a/b/' f", writes, "-i"},
		{"sed --in-place 's/a/b/' f", writes, "--in-place"},
		{"sed --in 's/a/b/' f", writes, "--in-place"},
		{"sed 'w out' f", writes, "w out"},
		{"sed 's/a/b/w out' f", writes, "s///w"},
		{"sed '1W out' f", writes, "W out"},
		{"sed 's/a/b/w /dev/stdout' f", allowed, ""},
		{"sed --sandbox 's/a/b/' f", allowed, ""},
		// awk: system(), pipes, files, program files.
		{"awk '{print $1}' f", allowed, ""},
		{`awk 'BEGIN{system("rm x")}'`, runs, "runs commands"},
		{`gawk '{print | "sh"}' f`, runs, "runs commands"},
		{`awk '{print > "out"}' f`, writes, "writes files"},
		{"awk -f prog.awk f", runs, "-f"},
		{"awk '$3 > 100 {print $1}' f", allowed, ""},
		{"awk '/a|b/ {print}' f", allowed, ""},
		{`awk '{ "date" | getline d; print d }'`, runs, "runs commands"},
		{`awk '{printf "%s", $0 > "/tmp/x"}' f`, writes, "writes files"},
		{`gawk '@load "x"; {print}' f`, runs, "runs commands"},
		// tar: programs it runs, and everything but listing writes.
		{"tar -tf a.tar", allowed, ""},
		{"tar tzf a.tgz", allowed, ""},
		{"tar --list -f a.tar", allowed, ""},
		{"tar -xf a.tar", writes, "tar writes"},
		{"tar xzf a.tgz", writes, "tar writes"},
		{"tar -cf a.tar .", writes, "tar writes"},
		{"tar -tf a.tar --checkpoint=1 --checkpoint-action=exec='rm x'", runs, "--checkpoint-action"},
		{"tar -tf a.tar --to-command='rm x'", runs, "--to-command"},
		{"tar -tf a.tar --to-com='rm x'", runs, "--to-command"},
		{"tar -I 'rm x' -tf a.tar", runs, "-I"},
		{"tar -tf a.tar --use-compress-program='rm x'", runs, "--use-compress-program"},
		{"tar -tf a.tar --info-script=x.sh", runs, "--info-script"},
		{"tar -tf a.tar -F x.sh", runs, "-F"},
		{"tar tIf 'rm x' a.tar", runs, "-I"},
		{"tar -tf a.tar --rsh-command=/bin/x", runs, "--rsh-command"},
		// sort, uniq, xxd, tee, cp, mv, dd.
		{"sort -n f", allowed, ""},
		{"sort -k2 -t, f", allowed, ""},
		{"sort -o out f", writes, "-o"},
		{"sort -no out f", writes, "-o"},
		{"sort --output=out f", writes, "--output"},
		{"sort --compress-program=rm f", runs, "--compress-program"},
		{"sort --compress-prog=rm f", runs, "--compress-program"},
		{"uniq f", allowed, ""},
		{"uniq in out", writes, "out"},
		{"xxd f", allowed, ""},
		{"xxd -r in out", writes, "out"},
		{"tee /dev/null", allowed, ""},
		{"tee out", writes, "tee writes to out"},
		{"tee -a out", writes, "tee writes"},
		{"cp a b", writes, "cp writes"},
		{"mv a b", writes, "mv writes"},
		{"dd if=a of=b", writes, "of=b"},
		{"dd if=a of=/dev/null", allowed, ""},
		// git: its own -c and --config-env, and subcommands' options.
		{"git status", allowed, ""},
		{"git -C sub status", allowed, ""},
		{"git diff --stat", allowed, ""},
		{"git log --oneline -5", allowed, ""},
		{"git -c core.pager='rm x' diff", runs, "-c"},
		{"git -c alias.st='!rm x' status", runs, "-c"},
		{"git --config-env=core.pager=X diff", runs, "--config-env"},
		{"git --exec-path=. status", runs, "--exec-path"},
		{"git diff --output=../x", writes, "--output"},
		{"git diff --output ../x", writes, "--output"},
		{"git log --output=x", writes, "--output"},
		{"git diff --ext-diff", runs, "--ext-diff"},
		{"git show --textconv HEAD", runs, "--textconv"},
		{"git grep -O'rm x' foo", runs, "-O"},
		{"git grep --open-files-in-pager='rm x' foo", runs, "open-files-in-pager"},
		{"git diff $X", writes, "not a static word"},
		{"git status $X", allowed, ""},
		{`git commit -m "$(date)"`, allowed, ""},
		// rg --pre, fd -x, man -P, rsync -e, zip --unzip-command.
		{"rg foo", allowed, ""},
		{"rg --pre ./x foo", runs, "--pre"},
		{"fd -e go", allowed, ""},
		{"fd -x rm", runs, "-x"},
		{"fd --exec rm", runs, "--exec"},
		{"man ls", allowed, ""},
		{"man -P 'rm x' ls", runs, "-P"},
		{"man --pager='rm x' ls", runs, "--pager"},
		{"rsync -e 'rm x' a b", runs, "-e"},
		{"zip -T --unzip-command='rm x' a.zip f", runs, "--unzip-command"},
		// curl, wget, split; editors, socat, nc.
		{"curl -s http://127.0.0.1:8080/x", allowed, ""},
		{"curl -o out http://127.0.0.1/x", writes, "-o"},
		{"curl -K cfg http://127.0.0.1/x", runs, "-K"},
		{"wget -O out http://127.0.0.1/x", writes, "-O"},
		{"wget -e 'x=y' http://127.0.0.1/x", runs, "-e"},
		{"split -l 10 f part-", writes, "split writes"},
		{"ed -s f", runs, "ed runs commands"},
		{"vim -es -c '!rm x' f", runs, "vim runs commands"},
		{"socat - EXEC:'rm x'", runs, "runs commands"},
		{"socat - TCP:127.0.0.1:80", allowed, ""},
		{"nc -e /bin/sh 127.0.0.1 80", runs, "-e"},
		{"nc -z 127.0.0.1 80", allowed, ""},
		// Through wrappers, the same.
		{"xargs sed -n 1e", runs, "e runs commands"},
		{"timeout 5 sort -o out f", writes, "-o"},
	}
	for _, c := range cases {
		got := set.Check(c.cmd)
		switch c.want {
		case allowed:
			if got.Verdict != Allow {
				t.Errorf("Check(%q) = %v (%s), want allowed", c.cmd, got.Verdict, got.Reason)
			}
			continue
		case writes:
			if got.Verdict != Ask || got.Unresolved {
				t.Errorf("Check(%q) = %v, Unresolved %v (%s): want asked about as a write", c.cmd, got.Verdict, got.Unresolved, got.Reason)
			}
		case runs:
			if got.Verdict != Ask || !got.Unresolved {
				t.Errorf("Check(%q) = %v, Unresolved %v (%s): want asked about in every mode", c.cmd, got.Verdict, got.Unresolved, got.Reason)
			}
		}
		if !strings.Contains(got.Reason, c.reason) {
			t.Errorf("Check(%q): reason %q lacks %q", c.cmd, got.Reason, c.reason)
		}
	}
}
