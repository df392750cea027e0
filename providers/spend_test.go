package providers

import (
	"math"
	"testing"
)

func TestSpendPricesEachModelAtItsOwnPrice(t *testing.T) {
	prices := map[string]Price{"big": {Input: 10, Output: 20}, "small": {Input: 1, Output: 2}}
	s := NewSpend(func(m string) (Price, bool) { p, ok := prices[m]; return p, ok })
	s.Add("big", Usage{InputTokens: 1000, OutputTokens: 100})
	s.Add("small", Usage{InputTokens: 1000, OutputTokens: 100})
	s.Add("small", Usage{InputTokens: 1000})
	s.Add("unknown", Usage{InputTokens: 5000})
	s.Add("big", Usage{}) // nothing
	cost, priced := s.Cost()
	want := (1000*10+100*20)/1e6 + (2000*1+100*2)/1e6
	if !priced || math.Abs(cost-want) > 1e-12 {
		t.Errorf("cost %v (priced %v), want %v", cost, priced, want)
	}
	m := s.Models()
	if len(m) != 3 || m["small"].Usage.InputTokens != 2000 || m["unknown"].Priced || m["unknown"].Cost != 0 || !m["big"].Priced {
		t.Errorf("models %+v", m)
	}
	if u := s.Usage(); u.InputTokens != 8000 || u.OutputTokens != 200 {
		t.Errorf("usage %+v", u)
	}
	if _, priced := NewSpend(nil).Cost(); priced {
		t.Error("an empty spend is priced")
	}
}
