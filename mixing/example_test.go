package mixing_test

import (
	"fmt"
	"log"

	"github.com/bernamp/bernamp/mixing"
	"github.com/bernamp/bernamp/rdp"
)

// The three coefficients of one Bernoulli sample of theta in [0.1, 0.9],
// and the Rényi bound each gives for a (5, 1)-RDP mechanism.
func ExampleNew() {
	b, err := mixing.New(mixing.Kernel{D: 1, K: 1, C: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range []mixing.Item{mixing.Dobrushin, mixing.Doeblin, mixing.UltraMixing} {
		g := b.Coefficient(it)
		fmt.Printf("%-12s gamma %.4f, R_5 <= %.4f\n", it, g, mixing.Renyi(g, 5, 1))
	}
	// Output:
	// dobrushin    gamma 0.8000, R_5 <= 0.9454
	// doeblin      gamma 0.8000, R_5 <= 0.9454
	// ultra_mixing gamma 0.8889, R_5 <= 0.9711
}

// Theorem 1 of Balle et al. applied to a Gaussian mechanism's (eps,
// delta) profile: the best (eps, 1e-5)-DP guarantee each item gives.
func ExampleBounds_Approx() {
	b, err := mixing.New(mixing.Kernel{D: 1, K: 1, C: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	c, err := rdp.Gaussian(4, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range mixing.Items {
		cl, err := b.Approx(it, c, rdp.Balle2020, 1e-5)
		if err != nil {
			log.Fatal(err)
		}
		if cl.Vacuous {
			fmt.Printf("%-12s no guarantee at delta 1e-5\n", it)
			continue
		}
		fmt.Printf("%-12s eps %.4f (from M's (%.4f, %.3g)-DP)\n", it, cl.Eps, cl.EpsIn, cl.DeltaIn)
	}
	// Output:
	// dobrushin    eps 0.9992 (from M's (0.9992, 1.25e-05)-DP)
	// dobrushin_hs eps 0.2767 (from M's (0.2767, 0.0399)-DP)
	// doeblin      no guarantee at delta 1e-5
	// ultra_mixing eps 0.9283 (from M's (1.0012, 1.21e-05)-DP)
}
