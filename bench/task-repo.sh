# Sourced by the bench scripts that run the five-step task (task.sh,
# pgo.sh). task_repo DIR: makes the task's repository in DIR, a git
# repository of two Go files with one commit; the task changes calc.go's
# "return a + b", and `git -C DIR checkout -q -- calc.go` resets it.
task_repo() {
	mkdir -p "$1"
	printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' >"$1/calc.go"
	printf 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("Add")\n\t}\n}\n' >"$1/calc_test.go"
	printf 'module example.com/calc\n\ngo 1.22\n' >"$1/go.mod"
	git -C "$1" init -q && git -C "$1" add . &&
		git -C "$1" -c user.email=bench@example.com -c user.name=bench commit -qm calc
}
