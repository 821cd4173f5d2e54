package puredp_test

import (
	"fmt"

	"github.com/bernamp/bernamp/puredp"
)

// A 1-DP mechanism releasing theta in [0.1, 0.9]^2, followed by one coin
// per coordinate, is about 0.97-DP; whatever the mechanism, the coins alone
// are 2 log 9 = 4.39-DP.
func ExampleAmplify() {
	l, err := puredp.Amplify(2, 1, 0.1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := puredp.Asymptote(2, 1, 0.1)
	fmt.Printf("eps' = %.4f (claim %.6f), asymptote %.4f\n", l.Eps, l.Upper, a)
	// Output: eps' = 0.9715 (claim 0.971523), asymptote 4.3944
}
