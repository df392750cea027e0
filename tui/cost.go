package tui

import (
	"cmp"
	"fmt"

	"github.com/agent-dev/agent/providers"
)

// costMeter adds up the tokens and the cost of the session shown: what the
// store held when it was opened, and each step since. Each step is priced
// at the model it ran on. When any step's model has no price the cost is
// unknown and nothing is shown, never a wrong figure.
type costMeter struct {
	price func(model string) (providers.Price, bool) // nil: no prices at all

	usage       providers.Usage // the session's tokens
	turnUsage   providers.Usage // the running or last turn's tokens
	session     float64
	turn        float64
	known       bool // the session's cost is known
	turnUnknown bool // a step of the turn had no price
	// models are the tokens of each model since the session was shown,
	// for /cost when more than one answered (a fallback, /model).
	models map[string]providers.Usage
	order  []string
}

// reset starts the meter on a session that already holds usage, recorded
// with model.
func (c *costMeter) reset(model string, usage providers.Usage) {
	c.usage, c.turnUsage, c.session, c.turn, c.turnUnknown = usage, providers.Usage{}, 0, 0, false
	c.models, c.order = nil, nil
	c.known = c.price != nil
	if usage != (providers.Usage{}) {
		c.known = c.priceStep(model, usage, &c.session)
	}
}

// startTurn starts counting a new turn.
func (c *costMeter) startTurn() {
	c.turnUsage, c.turn, c.turnUnknown = providers.Usage{}, 0, false
}

// add counts one step's usage on model.
func (c *costMeter) add(model string, u providers.Usage) {
	c.usage, c.turnUsage = c.usage.Add(u), c.turnUsage.Add(u)
	if c.models == nil {
		c.models = map[string]providers.Usage{}
	}
	if _, ok := c.models[model]; !ok {
		c.order = append(c.order, model)
	}
	c.models[model] = c.models[model].Add(u)
	if !c.priceStep(model, u, &c.session) {
		c.known = false
	}
	var turn float64
	if c.priceStep(model, u, &turn) {
		c.turn += turn
	} else {
		c.turnUnknown = true
	}
}

func (c *costMeter) priceStep(model string, u providers.Usage, sum *float64) bool {
	if c.price == nil {
		return false
	}
	p, ok := c.price(model)
	if ok {
		*sum += p.Cost(u)
	}
	return ok
}

// label is the status line's cost segment, "" when unknown.
func (c *costMeter) label() string {
	if !c.known || c.usage == (providers.Usage{}) {
		return ""
	}
	return formatUSD(c.session)
}

// report is what /cost prints.
func (c *costMeter) report() string {
	u := c.usage
	s := fmt.Sprintf("This session: %s input tokens", formatTokens(u.InputTokens))
	if u.CachedInputTokens > 0 || u.CacheWriteTokens > 0 {
		hit := 0.0
		if u.InputTokens > 0 {
			hit = 100 * float64(u.CachedInputTokens) / float64(u.InputTokens)
		}
		s += fmt.Sprintf(" (%s read from the cache, %.0f%%; %s written to it)", formatTokens(u.CachedInputTokens), hit, formatTokens(u.CacheWriteTokens))
	}
	s += fmt.Sprintf(", %s output tokens", formatTokens(u.OutputTokens))
	switch {
	case !c.known:
		s += ". Cost unknown: the model has no price (set [profiles.NAME.price] in the config)."
	default:
		s += ". Cost " + formatUSD(c.session)
		if c.turnUsage != (providers.Usage{}) && !c.turnUnknown {
			s += ", of which the last turn " + formatUSD(c.turn)
		}
		s += "."
	}
	if len(c.order) > 1 {
		s += "\nBy model since the session was opened:"
		for _, model := range c.order {
			u := c.models[model]
			s += fmt.Sprintf("\n  %s: %s input, %s output tokens", model, formatTokens(u.InputTokens), formatTokens(u.OutputTokens))
			var usd float64
			if c.priceStep(model, u, &usd) {
				s += ", " + formatUSD(usd)
			} else {
				s += ", no price"
			}
		}
	}
	return s
}

// formatUSD shows dollars with four decimals below a dollar, two above.
func formatUSD(usd float64) string {
	if usd < 1 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// resetCost starts the cost of sess, shown in the status line.
func (m *Model) resetCost(sess *Session) {
	model := sess.Model
	if model == "" {
		model = m.cfg.Model
	}
	m.cost.reset(model, sess.Conv.Usage())
	m.bar.cost = m.cost.label()
}

// addCost counts one step's usage on model ("": the current model).
func (m *Model) addCost(model string, u providers.Usage) {
	m.cost.add(cmp.Or(model, m.cfg.Model), u)
	m.bar.cost = m.cost.label()
}
