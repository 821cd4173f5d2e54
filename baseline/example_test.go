package baseline_test

import (
	"context"
	"fmt"
	"log"

	"github.com/bernamp/bernamp/baseline"
)

// The d = 1, k = 1 point of math.md: the certified value is
// 0.73892175057578483328 (mpmath, 60 digits).
func ExampleSolve() {
	r, err := baseline.Solve(context.Background(), 1, 1, 0.1, 5, 1, &baseline.Settings{Starts: 4})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("value %.10f, feasible %v, reached %v\n", r.Value, r.Feasible, r.Reached(0.73892175057578483328))
	// Output:
	// value 0.7389217506, feasible true, reached true
}
