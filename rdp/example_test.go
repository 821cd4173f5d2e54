package rdp_test

import (
	"fmt"
	"log"

	"github.com/bernamp/bernamp/rdp"
)

// The Gaussian mechanism with noise multiplier 2 on the accountants'
// orders, converted to (eps, 1e-5)-DP.
func ExampleToApprox() {
	c, err := rdp.Gaussian(2, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, conv := range []rdp.Conversion{rdp.Balle2020, rdp.Mironov2017} {
		a, err := rdp.ToApprox(c, 1e-5, conv)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: (%.4f, %g)-DP, attained at alpha = %g\n", conv, a.Eps, a.Delta, a.Order)
	}
	// Output:
	// balle2020: (2.1657, 1e-05)-DP, attained at alpha = 9.6
	// mironov2017: (2.5243, 1e-05)-DP, attained at alpha = 10.6
}

// Randomized response that is ln(3)-DP tells the truth with probability
// 3/4; its RDP level approaches ln 3 = 1.0986 as the order grows.
func ExampleRandomizedResponse() {
	c, err := rdp.RandomizedResponse(rdp.RRProb(1.0986122886681098), []float64{2, 10, 1024})
	if err != nil {
		log.Fatal(err)
	}
	for i, a := range c.Orders {
		fmt.Printf("alpha %g: %.4f\n", a, c.Eps[i])
	}
	// Output:
	// alpha 2: 0.8473
	// alpha 10: 1.0666
	// alpha 1024: 1.0983
}
