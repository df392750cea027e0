package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"
)

// placeBreakpoints marks prompt-cache breakpoints (cache_control
// ephemeral, 5 minutes), at most the API's four:
//
//  1. the last tool definition that is not deferred: the tools are the
//     head of the prefix (deferred ones are not in the prompt);
//  2. the system prompt;
//  3. the last block of the newest message, which writes the whole
//     conversation to the cache for the next request;
//  4. the last block of the user message before it, which was the newest
//     message of the previous request: its breakpoint wrote exactly that
//     prefix, so this request reads it even when more than the API's 20
//     look-back blocks (many parallel tool results) came since.
//
// The cache is read only where the prefix is byte-identical, so a request
// whose tools changed (a pick_tools call in swap mode) reads nothing before
// its tools; deferred tools and the tool_reference blocks that load them
// (pick mode) leave the prefix as it was.
func placeBreakpoints(p *sdk.MessageNewParams) {
	cc := sdk.NewCacheControlEphemeralParam()
	for i := len(p.Tools) - 1; i >= 0; i-- {
		if t := p.Tools[i].OfTool; t != nil && !t.DeferLoading.Value {
			t.CacheControl = cc
			break
		}
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = cc
	}
	marked := 0
	for i := len(p.Messages) - 1; i >= 0 && marked < 2; i-- {
		m := &p.Messages[i]
		if marked == 1 && m.Role != sdk.MessageParamRoleUser {
			continue
		}
		if markLast(m.Content, cc) {
			marked++
		}
	}
}

// markLast sets cache_control on the last block of blocks that can carry
// one (thinking blocks cannot); false when none can.
func markLast(blocks []sdk.ContentBlockParamUnion, cc sdk.CacheControlEphemeralParam) bool {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if b.OfThinking != nil || b.OfRedactedThinking != nil {
			continue
		}
		if p := b.GetCacheControl(); p != nil {
			*p = cc
			return true
		}
	}
	return false
}
