package corner

// Points is the support size of the reduced program: an optimal (P, Q) lives
// on at most 4 corners (math.md section 3.2).
const Points = 4

// Patterns is the number of non-constant bit patterns a coordinate can show
// across the 4 support points once point 0 is fixed to bit 0 (flipping a
// coordinate in every corner is a symmetry): 2^3 - 1.
const Patterns = 7

// Config is a support configuration up to symmetry: Config[t] coordinates
// carry pattern t+1, where pattern tau gives point j (j = 1, 2, 3) the bit
// (tau >> (j-1)) & 1 and point 0 the bit 0. The counts sum to d.
// Coordinates on which all points agree are left out: their draws do not
// depend on the point (math.md section 3.4), and the marginal argument makes
// a configuration on fewer coordinates no better than one that spreads them.
type Config [Patterns]int

// Configs returns every Config of dimension d, C(d+6, 6) of them, in
// lexicographic order.
func Configs(d int) []Config {
	var out []Config
	var cur Config
	var rec func(t, left int)
	rec = func(t, left int) {
		if t == Patterns-1 {
			cur[t] = left
			out = append(out, cur)
			return
		}
		for n := left; n >= 0; n-- {
			cur[t] = n
			rec(t+1, left-n)
		}
	}
	rec(0, d)
	return out
}

// Bit returns point j's bit on pattern index t (pattern t+1).
func Bit(t, j int) int {
	if j == 0 {
		return 0
	}
	return (t + 1) >> (j - 1) & 1
}

// Groups returns the sizes of the non-empty pattern groups and, for each
// support point, its corner index in the channel New(k, c, sizes).
func (cf Config) Groups() (sizes []int, corners [Points]int) {
	for t, n := range cf {
		if n == 0 {
			continue
		}
		sizes = append(sizes, n)
		for j := range corners {
			corners[j] = corners[j]<<1 | Bit(t, j)
		}
	}
	return sizes, corners
}

// Corners returns the support points as corner indices of {0,1}^d, with
// the coordinates of pattern 1 first, then pattern 2, and so on.
func (cf Config) Corners() [Points]int {
	var corners [Points]int
	for t, n := range cf {
		for range n {
			for j := range corners {
				corners[j] = corners[j]<<1 | Bit(t, j)
			}
		}
	}
	return corners
}

// Hamming returns the number of coordinates on which points i and j differ.
func (cf Config) Hamming(i, j int) int {
	h := 0
	for t, n := range cf {
		if Bit(t, i) != Bit(t, j) {
			h += n
		}
	}
	return h
}

// Outputs returns the number of outputs of the configuration's channel,
// prod_t (k n_t + 1).
func (cf Config) Outputs(k int) int {
	o := 1
	for _, n := range cf {
		o *= k*n + 1
	}
	return o
}

// perms4 lists the 24 permutations of the 4 support points.
var perms4 = func() [][Points]int {
	var out [][Points]int
	var rec func(cur [Points]int, used, n int)
	rec = func(cur [Points]int, used, n int) {
		if n == Points {
			out = append(out, cur)
			return
		}
		for j := range Points {
			if used>>j&1 == 0 {
				cur[n] = j
				rec(cur, used|1<<j, n+1)
			}
		}
	}
	rec([Points]int{}, 0, 0)
	return out
}()

// Canonical returns the representative of cf's orbit under relabelings of
// the 4 support points: the lexicographically largest image. A relabeling
// permutes the points' masses and so maps the program to itself; the image
// is renormalized by flipping every coordinate on which the new point 0
// reads 1, which is also a symmetry. Configurations with one representative
// have the same maximum.
func (cf Config) Canonical() Config {
	best := cf
	for _, pi := range perms4 {
		if img := cf.Relabel(pi); greater(img, best) {
			best = img
		}
	}
	return best
}

// Relabel returns the configuration whose point i is cf's point pi[i],
// renormalized so that point 0 reads 0 on every coordinate. Its program
// with masses x'_i = x_pi[i] is cf's program with masses x.
func (cf Config) Relabel(pi [Points]int) Config {
	var img Config
	for t, n := range cf {
		if n == 0 {
			continue
		}
		flip := Bit(t, pi[0])
		tau := 0
		for i := 1; i < Points; i++ {
			tau |= (Bit(t, pi[i]) ^ flip) << (i - 1)
		}
		img[tau-1] += n
	}
	return img
}

func greater(a, b Config) bool {
	for t := range a {
		if a[t] != b[t] {
			return a[t] > b[t]
		}
	}
	return false
}

// Orbits returns one Config per orbit of relabelings (its Canonical form),
// in the order of Configs.
func Orbits(d int) []Config {
	var out []Config
	for _, cf := range Configs(d) {
		if cf.Canonical() == cf {
			out = append(out, cf)
		}
	}
	return out
}
