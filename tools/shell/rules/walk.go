package rules

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// stmts walks statements in source order.
func (c *checker) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		c.stmt(st)
	}
}

func (c *checker) stmt(st *syntax.Stmt) {
	if st == nil {
		return
	}
	if st.Coprocess || st.Disown {
		c.ask("coprocesses and disowned jobs are not checked")
	}
	if st.Cmd != nil {
		c.command(st.Cmd)
	}
	for _, r := range st.Redirs {
		c.redirect(r)
	}
}

// command walks every kind of command the parser produces.
func (c *checker) command(cmd syntax.Command) {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		c.callExpr(x)
	case *syntax.IfClause:
		for ; x != nil; x = x.Else {
			c.stmts(x.Cond)
			c.stmts(x.Then)
		}
	case *syntax.WhileClause:
		c.stmts(x.Cond)
		c.stmts(x.Do)
	case *syntax.ForClause:
		c.loop(x.Loop)
		c.stmts(x.Do)
	case *syntax.CaseClause:
		c.word(x.Word)
		for _, item := range x.Items {
			for _, p := range item.Patterns {
				c.word(p)
			}
			c.stmts(item.Stmts)
		}
	case *syntax.Block:
		c.stmts(x.Stmts)
	case *syntax.Subshell:
		c.stmts(x.Stmts)
	case *syntax.BinaryCmd:
		c.stmt(x.X)
		c.stmt(x.Y)
	case *syntax.FuncDecl:
		// The body is checked where it is defined, so a call to the
		// function runs only checked commands; the call itself is a simple
		// command that needs a rule by the function's name.
		c.stmt(x.Body)
	case *syntax.ArithmCmd:
		c.arith(x.X)
	case *syntax.TestClause:
		c.testExpr(x.X)
	case *syntax.DeclClause:
		c.declClause(x)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			c.arith(e)
		}
	case *syntax.TimeClause:
		c.stmt(x.Stmt)
	case *syntax.CoprocClause:
		c.ask("coproc runs a command in the background that is not checked")
		c.word(x.Name)
		c.stmt(x.Stmt)
	default:
		c.ask(fmt.Sprintf("unsupported shell construct %T", cmd))
	}
}

func (c *checker) loop(l syntax.Loop) {
	switch x := l.(type) {
	case *syntax.WordIter:
		if x.Name != nil {
			c.setsVar(x.Name.Value)
		}
		for _, w := range x.Items {
			c.word(w)
		}
	case *syntax.CStyleLoop:
		c.arith(x.Init)
		c.arith(x.Cond)
		c.arith(x.Post)
	default:
		c.ask(fmt.Sprintf("unsupported loop %T", l))
	}
}

// callExpr checks a simple command: its prefix assignments, the command
// itself and the expansions in its words.
func (c *checker) callExpr(x *syntax.CallExpr) {
	for _, a := range x.Assigns {
		c.assign(a)
	}
	if len(x.Args) == 0 {
		return
	}
	args := make([]arg, len(x.Args))
	for i, w := range x.Args {
		args[i] = evalWord(c.src, w)
	}
	c.call(args)
	for _, w := range x.Args {
		c.word(w)
	}
}

// assign checks a variable assignment, as a prefix or on its own.
func (c *checker) assign(a *syntax.Assign) {
	if a == nil {
		return
	}
	if a.Name != nil && !a.Naked {
		c.setsVar(a.Name.Value)
	}
	if a.Index != nil {
		c.arith(a.Index)
	}
	c.word(a.Value)
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Index != nil {
				c.arith(el.Index)
			}
			c.word(el.Value)
		}
	}
}

// setsVar asks when a variable that changes how commands are found or run
// is set.
func (c *checker) setsVar(name string) {
	if dangerousVar(name) {
		c.ask(fmt.Sprintf("sets %s, which changes what commands run", name))
	}
}
