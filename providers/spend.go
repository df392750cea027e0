package providers

// Pricer gives the price of a model's tokens; ok is false for a model
// whose price is unknown (its tokens are counted but cost nothing).
type Pricer func(model string) (p Price, ok bool)

// Spend is the tokens each model used over a run, each priced at its own
// model's price: a session's and its subagents', which may run on other
// models. It is the one place the front-ends total a cost (-p's cost_usd
// and session_cost_usd, the Claude Agent SDK protocol's total_cost_usd and
// modelUsage). The zero value counts nothing; use NewSpend. It is not safe
// for concurrent use.
type Spend struct {
	price  Pricer
	models map[string]*ModelSpend
}

// ModelSpend is what one model used, and its cost in US dollars (0 when its
// price is unknown).
type ModelSpend struct {
	Usage Usage
	Cost  float64
	// Priced is whether the model's price is known.
	Priced bool
}

// NewSpend returns an empty Spend priced by price (nil prices nothing).
func NewSpend(price Pricer) *Spend {
	return &Spend{price: price, models: map[string]*ModelSpend{}}
}

// Add counts u, used by model. Empty usage is ignored.
func (s *Spend) Add(model string, u Usage) {
	if u == (Usage{}) {
		return
	}
	m := s.models[model]
	if m == nil {
		m = &ModelSpend{}
		if s.price != nil {
			_, m.Priced = s.price(model)
		}
		s.models[model] = m
	}
	m.Usage = m.Usage.Add(u)
	if m.Priced {
		p, _ := s.price(model)
		m.Cost += p.Cost(u)
	}
}

// Cost is the total in US dollars; priced is false when no model that
// used tokens has a known price (then the cost is unknown, not 0).
func (s *Spend) Cost() (usd float64, priced bool) {
	for _, m := range s.models {
		usd += m.Cost
		priced = priced || m.Priced
	}
	return usd, priced
}

// Usage is every model's tokens together.
func (s *Spend) Usage() Usage {
	var u Usage
	for _, m := range s.models {
		u = u.Add(m.Usage)
	}
	return u
}

// Models returns each model's spend, by model name.
func (s *Spend) Models() map[string]ModelSpend {
	out := make(map[string]ModelSpend, len(s.models))
	for name, m := range s.models {
		out[name] = *m
	}
	return out
}
