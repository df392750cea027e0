package highlight

// resetCache forgets every lexer built so far, so that a test or benchmark sees a first use again. It must not run
// while Lines does.
func resetCache() { cache = [len(lexerFiles)]compiled{} }
