package budget

import "testing"

// An amount is written with enough digits to never read as nothing: a
// tiny cap or spend keeps two significant digits.
func TestUSDKeepsTwoSignificantDigitsOfATinyAmount(t *testing.T) {
	for v, want := range map[float64]string{
		2.5: "$2.50", 0.0123: "$0.0123", 0.001: "$0.0010", 0.00005: "$0.000050", 0.000001: "$0.0000010", 0: "$0.0000",
	} {
		if got := USD(v); got != want {
			t.Errorf("USD(%g) = %q, want %q", v, got, want)
		}
	}
}
