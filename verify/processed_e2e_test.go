package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// TestProcessedEndToEnd: at a point where Post is barely below eps (L1
// near 1: n r_alpha(c) far above eps, not yet the closed form), the
// solver closes wide tiles by the data-processing bound alone; the
// checker accepts its certificate, and without its own processed
// (SetNoProcessed) it splits more tiles into more boxes (measured: 180
// extra boxes and 14 tiles split with it, 344 and 20 without; with a
// budget of 200 extra boxes it rejects the file).
func TestProcessedEndToEnd(t *testing.T) {
	const processedBudget = 2000
	for _, p := range []benchPoint{{1000, 0.43, 1.003, 1}} {
		with, without := offOnCheck(t, p, "processed", verify.SetNoProcessed, &verify.Options{MaxExtra: processedBudget})
		if !(without.Split > with.Split && extraBoxes(without) > extraBoxes(with)) {
			t.Errorf("%+v: without processed %d tiles split, %d extra boxes; with it %d and %d: the point does not show processed",
				p, without.Split, extraBoxes(without), with.Split, extraBoxes(with))
		}
	}
}
