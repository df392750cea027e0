package rules

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word walks the expansions in a word for the commands they run.
func (c *checker) word(w *syntax.Word) {
	c.wordIn(w, false)
}

// wordIn walks a word; inDq is set inside double quotes and here-documents.
func (c *checker) wordIn(w *syntax.Word, inDq bool) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		c.wordPart(p, inDq)
	}
}

func (c *checker) wordPart(p syntax.WordPart, inDq bool) {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			c.wordPart(q, true)
		}
	case *syntax.ParamExp:
		c.paramExp(x, inDq)
	case *syntax.CmdSubst:
		c.stmts(x.Stmts)
	case *syntax.ArithmExp:
		c.arith(x.X)
	case *syntax.ProcSubst:
		c.stmts(x.Stmts)
	case *syntax.BraceExp:
		for _, w := range x.Elems {
			c.word(w)
		}
	default:
		c.ask(fmt.Sprintf("unsupported word part %T", p))
	}
}

// harmlessAtOps are the ${x@op} transformations that do not expand the value
// again; @P (prompt expansion) runs command substitutions.
var harmlessAtOps = map[string]bool{"Q": true, "E": true, "A": true, "K": true, "k": true, "a": true, "U": true, "u": true, "L": true}

func (c *checker) paramExp(x *syntax.ParamExp, inDq bool) {
	if x.NestedParam != nil {
		c.wordPart(x.NestedParam, inDq)
	}
	if x.Excl && x.Names == 0 && x.Index == nil {
		c.ask("indirect expansion ${!...} can run code hidden in a variable")
	}
	if x.Index != nil {
		if !isListIndex(x.Index) {
			c.arith(x.Index)
		}
	}
	if x.Slice != nil {
		c.arith(x.Slice.Offset)
		c.arith(x.Slice.Length)
	}
	if x.Repl != nil {
		c.paramWord(x.Repl.Orig, inDq)
		c.paramWord(x.Repl.With, inDq)
	}
	if x.Exp != nil {
		switch x.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if x.Param != nil {
				c.setsVar(x.Param.Value)
			}
		case syntax.OtherParamOps:
			if op := evalWord(c.src, x.Exp.Word); !op.exact || !harmlessAtOps[op.val] {
				c.ask(fmt.Sprintf("the ${...@%s} expansion can run code", op.text))
			}
		}
		c.paramWord(x.Exp.Word, inDq)
	}
}

// paramWord walks a word inside ${...}. Inside double quotes or a
// here-document, bash keeps single quotes there as literal characters and
// expands what they enclose, while the parser reads them as quotes.
func (c *checker) paramWord(w *syntax.Word, inDq bool) {
	if w == nil {
		return
	}
	if inDq {
		for _, p := range w.Parts {
			if sq, ok := p.(*syntax.SglQuoted); ok && strings.ContainsAny(sq.Value, "$`\\\"}") {
				c.ask(fmt.Sprintf("bash expands %s inside a double-quoted ${...}", sourceText(c.src, sq)))
			}
		}
	}
	c.wordIn(w, inDq)
}

// isListIndex reports whether an index is the @ or * of ${a[@]}, ${a[*]}.
func isListIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && (l.Value == "@" || l.Value == "*")
}

// arith walks an arithmetic expression. Bash evaluates variables in
// arithmetic recursively, and array subscripts in their values run command
// substitutions, so only number constants are allowed.
func (c *checker) arith(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case nil:
	case *syntax.Word:
		if x == nil {
			return
		}
		c.word(x)
		if a := evalWord(c.src, x); !a.exact || !isNumber(a.val) {
			c.ask(fmt.Sprintf("arithmetic on %s can run code hidden in a variable", a.text))
		}
	case *syntax.BinaryArithm:
		c.arith(x.X)
		c.arith(x.Y)
	case *syntax.UnaryArithm:
		c.arith(x.X)
	case *syntax.ParenArithm:
		c.arith(x.X)
	case *syntax.FlagsArithm:
		c.arith(x.X)
	default:
		c.ask(fmt.Sprintf("unsupported arithmetic %T", x))
	}
}

// testExpr walks a [[ ]] expression.
func (c *checker) testExpr(x syntax.TestExpr) {
	switch x := x.(type) {
	case nil:
	case *syntax.Word:
		c.word(x)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// Operands of arithmetic comparisons are evaluated as arithmetic.
			c.testOperandArith(x.X)
			c.testOperandArith(x.Y)
		default:
			c.testExpr(x.X)
			c.testExpr(x.Y)
		}
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			w, ok := x.X.(*syntax.Word)
			if a := evalWord(c.src, w); !ok || !a.exact || !isIdent(a.val) {
				c.ask("[[ -v ]] on a name that is not a plain variable can run code")
			}
		}
		c.testExpr(x.X)
	case *syntax.ParenTest:
		c.testExpr(x.X)
	default:
		c.ask(fmt.Sprintf("unsupported test %T", x))
	}
}

func (c *checker) testOperandArith(x syntax.TestExpr) {
	if w, ok := x.(*syntax.Word); ok {
		c.arith(w)
		return
	}
	c.ask("arithmetic comparison on an expression")
	c.testExpr(x)
}
