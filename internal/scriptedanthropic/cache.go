package scriptedanthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// cache simulates the API's prompt cache. The prompt is the sequence of
// tools (deferred ones left out), system blocks and message content blocks
// (a tool_result's tool_reference blocks expanded into the definitions they
// reference, see deferred.go), in that order; a
// breakpoint (cache_control) on a block writes the prefix that ends with
// it. A request reads the longest prefix written before that ends at a
// breakpoint of its own or at one of the 20 blocks before a breakpoint.
// Tokens are estimated at 4 bytes of the block's JSON (without
// cache_control) each. The API's minimum cacheable length and the
// 5-minute lifetime are not simulated.
type cache struct {
	mu      sync.Mutex
	written map[string]bool
}

// lookback is how many blocks before a breakpoint the API checks for a
// cache hit.
const lookback = 20

// usage returns the input, cache-read and cache-write tokens of body, and
// records its breakpoints' prefixes as written.
func (c *cache) usage(body []byte) (input, read, write int) {
	var raw struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return 0, 0, 0
	}
	tools, deferred := promptTools(raw.Tools)
	var blocks []map[string]any
	blocks = append(blocks, tools...)
	blocks = append(blocks, raw.System...)
	for _, m := range raw.Messages {
		for _, b := range m.Content {
			b = clone(expand(b, deferred))
			b["_role"] = m.Role
			blocks = append(blocks, b)
		}
	}
	h := sha256.New()
	prefix := make([]string, len(blocks)) // hash of blocks[:i+1]
	tokens := make([]int, len(blocks))    // tokens of blocks[:i+1]
	var breaks []int
	total := 0
	for i, b := range blocks {
		if _, ok := b["cache_control"]; ok {
			breaks = append(breaks, i)
			b = clone(b)
			delete(b, "cache_control")
		}
		j, _ := json.Marshal(b)
		h.Write(j)
		prefix[i] = hex.EncodeToString(h.Sum(nil))
		total += (len(j) + 3) / 4
		tokens[i] = total
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written == nil {
		c.written = map[string]bool{}
	}
	hit := -1
	for _, bp := range breaks {
		for k := bp; k >= 0 && k >= bp-lookback; k-- {
			if c.written[prefix[k]] && k > hit {
				hit = k
				break
			}
		}
	}
	if hit >= 0 {
		read = tokens[hit]
	}
	if n := len(breaks); n > 0 && tokens[breaks[n-1]] > read {
		write = tokens[breaks[n-1]] - read
	}
	for _, bp := range breaks {
		c.written[prefix[bp]] = true
	}
	return total - read - write, read, write
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
