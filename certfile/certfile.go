// Package certfile is the file format of an exported whole-box
// certificate (docs/certificates.md, "Exported certificates"): the data of
// one two-point-pieces proof, written by the solver and read by the
// independent checker (package verify). It holds no numerical code. The
// kinds other than the pieces proof described here (closed form, pure DP,
// delta pieces and corners, ranges) are described at their constants
// (KindClosedForm, ...).
//
// A pieces file states, for (d, k) with n = d k, 0 < c < 1/2, alpha > 1, eps >= 0,
// U = exp(LogU) and E = exp((alpha-1) eps), that
//
//	psi(p, q) = F_n(p, q)/U - L1 G(p, q)/E - L2 G(q, p)/E <= L0 + Tau
//
// for every (p, q) in [0, 1]^2 (math.md 3c: g(u, v) = u^alpha v^(1-alpha),
// G(p, q) = g(p, q) + g(1-p, 1-q), F_n(p, q) = sum_j C(n, j) g(p b_j +
// (1-p) b'_j, q b_j + (1-q) b'_j), b_j = c^j (1-c)^(n-j), b'_j =
// c^(n-j) (1-c)^j), with L1, L2 >= 0; the tiles cover the half square
// p <= 1/2 in logit coordinates (p = 1/(1+e^-S), q = 1/(1+e^-T)), and
// psi(p, q) = psi(1-p, 1-q) covers the rest. Then Post_{alpha,k}(eps) over
// the whole box [c, 1-c]^d is at most (LogU + log(L0 + Tau + L1 + L2)) /
// (alpha - 1), which must not exceed Claim.
//
// Every number is a decimal string read as the exact rational it spells
// (the writer uses strconv's shortest round-trip form of a float64, so
// "0.1" means 1/10 and not the float64 nearest to it); tile ends may also
// be "-inf" or "inf".
package certfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Format and Version are the format written: one format for every kind
// of certificate, named by File.Kind.
const (
	Format  = "bernamp-certificate"
	Version = 2
)

// FormatV1 is the format of version 1, which held the pieces kind only;
// Decode reads it as Kind KindPieces.
const FormatV1 = "bernamp-pieces-certificate"

// The kinds of certificate (File.Kind).
const (
	// KindPieces is the two-point-pieces certificate: the multipliers and
	// the tiling of the inequality in the package doc.
	KindPieces = "pieces"
	// KindClosedForm is the closed-form upper bound: it states Post <=
	// min(eps, d k r_alpha(c)), with r_alpha(c) = log(c^alpha
	// (1-c)^(1-alpha) + (1-c)^alpha c^(1-alpha)) / (alpha - 1) the Renyi
	// divergence of one coin flip (data processing, and additivity over
	// the d k independent flips). It carries no proof data: the checker
	// recomputes the minimum. L0, L1, L2, Tau, LogU and Tiles are empty.
	//
	// With Groups (per-coordinate ranges; C is then empty) it states, for
	// theta_l in ranges [lo_l, hi_l] and the k samples of every
	// coordinate,
	//
	//	Post <= min(eps, sum_g n_g b_g),   b_g = max(R(lo_g || hi_g), R(hi_g || lo_g)),
	//
	// with R(a || b) = log(a^alpha b^(1-alpha) + (1-a)^alpha
	// (1-b)^(1-alpha)) / (alpha - 1) the Renyi divergence between coins of
	// biases a and b, and n_g = k times the number of coordinates whose
	// range is [lo_g, hi_g] (sum_g n_g = d k). A group is {n, lo, hi}, or
	// {n, c} for the range [c, 1-c], where b_g = r_alpha(c). It holds by
	// data processing, additivity over the d k independent flips, and
	// because the divergence between coins with biases in [lo, hi] is
	// largest at the ends (the Renyi divergence is jointly quasi-convex).
	// The groups are in strictly increasing (lo, hi), at most
	// MaxRangeGroups of them.
	KindClosedForm = "closed-form"
	// KindPureDP is the exact amplified pure-DP level (Renyi order
	// infinity): it states that an eps-DP mechanism followed by the k
	// samples of d coins with biases in [c, 1-c] is eps'-DP for every eps'
	// >= log((e^eps rho + 1) / (rho + e^eps)), log rho = d k log((1-c)/c)
	// (package puredp has the proof). Alpha, L0, L1, L2, Tau, LogU and
	// Tiles are empty; Claim is eps', LB a lower bound on the exact eps'.
	KindPureDP = "pure-dp"
	// KindDeltaPieces is the two-point-pieces bound on the amplified
	// (eps', delta') of package hockey (its MethodPieces): an (Eps,
	// Delta)-DP mechanism on [c, 1-c]^d followed by k samples per
	// coordinate is (EpsOut, delta')-DP with delta' <= L0 + (L1 + L2)
	// Delta <= Claim, because, with n = d k, e = exp(Eps), g = exp(EpsOut),
	// b_j = c^j (1-c)^(n-j), b'_j = c^(n-j) (1-c)^j and L1, L2 >= 0,
	//
	//	Phi(p, q) = sum_j C(n, j) [P_j - g Q_j]_+ - L1 h(p, q) - L2 h(q, p) <= L0
	//
	// for all (p, q) in [0, 1]^2, where P_j = p b_j + (1-p) b'_j, Q_j = q
	// b_j + (1-q) b'_j and h(p, q) = [p - e q]_+ + [(1-p) - e (1-q)]_+
	// (the lifting lemma and the two-point pieces, as for KindPieces, with
	// the hockey-stick divergence as objective). Phi is convex on each cell
	// cut out of the square by the lines where h changes slope, so the
	// inequality is checked at the cells' vertices. Alpha, Tau, LogU and
	// Tiles are empty; LB is the corner program's lower bound on delta'
	// (informational).
	KindDeltaPieces = "delta-pieces"
	// KindDeltaCorners is the exact amplified delta' of k = 1 (package
	// hockey's MethodExact) and its lift for k >= 2 (MethodLifted): with n
	// = d k, delta' at (d, k) is at most the maximum, over the ways of
	// placing the four points of the canonical (Eps, Delta) pair on
	// corners of {c, 1-c}^n, of H_g of their images under one sample per
	// coordinate (g = exp(EpsOut)), and equal to it at k = 1. It carries
	// no proof data (the checker recomputes the maximum): Alpha, L0, L1,
	// L2, Tau, LogU and Tiles are empty; LB is the lower bound on delta'
	// (informational).
	KindDeltaCorners = "delta-corners"
	// KindRanges is the two-point-pieces certificate for per-coordinate
	// ranges theta_l in [Lo_l, Hi_l] (each inside [c_l, 1-c_l]): the n =
	// d k bits are in Groups, n_g bits sharing c_g (the k samples of every
	// coordinate with that c_l), and it states the inequality of the
	// package doc with F_n replaced by
	//
	//	F(p, q) = sum_x A_x [ g(p + (1-p) e_x, q + (1-q) e_x) + g(1-p + p e_x, 1-q + q e_x) ]
	//
	// over the count vectors x = (x_g) (x_g ones among the n_g bits of
	// group g), one of each mirror pair x, n-x (the self-mirror x = n/2
	// at half weight), with A_x = prod_g C(n_g, x_g) c_g^x_g
	// (1-c_g)^(n_g-x_g) and e_x = A_(n-x)/A_x; equivalently F(p, q) =
	// sum over every x of g(p A_x + (1-p) A_(n-x), q A_x + (1-q) A_(n-x)).
	// With one group it is F_n at c. Then Post_{alpha,k}(eps) over the
	// box prod_l [c_l, 1-c_l], hence over any ranges inside it, is at most
	// (LogU + log(L0 + Tau + L1 + L2)) / (alpha - 1) <= Claim. C is empty
	// (the groups hold the c_g), the multipliers and tiles are as for
	// KindPieces; LB is the lower bound of the given ranges
	// (informational). At most MaxRangeGroups groups.
	KindRanges = "ranges"
	// KindProfile is the composed-accounting claim of compose's PLD route
	// (see profile.go): T adaptive steps of a mechanism released through
	// the k samples of d coins in [c, 1-c] (or released as is, c = 0),
	// each step dominated by the discrete privacy loss distribution the
	// file holds, are (eps, delta)-DP with eps or delta the claim.
	KindProfile = "profile"
)

// The methods of a KindPieces file (File.Method): how the solver chose the
// multipliers. Informational: the inequality of the package doc is checked
// for whatever L0, L1, L2 and Tau the file holds, and verify prints the
// method with the point.
const (
	// MethodPieces (written as an empty method) is the first-order
	// multipliers at the Theorem 4 pair, with Tau the solver's slack.
	MethodPieces = "pieces"
	// MethodPiecesMax is the first-order multipliers where the inequality
	// with the slack fails: L0 + Tau is the maximum of psi the search proved.
	MethodPiecesMax = "pieces-max"
	// MethodPiecesLP is multipliers re-chosen by a semi-infinite linear
	// program, with L0 + Tau the maximum of psi the search proved.
	MethodPiecesLP = "pieces-lp"
)

// MaxRangeGroups caps the groups of a KindRanges certificate: every group
// has n_g >= 1 bits, so F has at least 2^groups terms.
const MaxRangeGroups = 16

// MaxClosedFormGroups caps the groups of a KindClosedForm certificate: the
// checker's work is one Renyi divergence per group (about 0.1 ms).
const MaxClosedFormGroups = 4096

// Group is n_g bits sharing c_g (KindRanges, KindClosedForm), or, in a
// KindClosedForm file only, n_g bits whose coins have biases in [Lo, Hi]
// (C empty then).
type Group struct {
	N  int    `json:"n"`
	C  string `json:"c,omitempty"`
	Lo string `json:"lo,omitempty"`
	Hi string `json:"hi,omitempty"`
}

// MaxBytes is the largest file Decode reads: 1 GiB, about ten million
// tiles, ten times the solver's largest proof (1,000,000 boxes).
const MaxBytes = 1 << 30

// maxBytes is MaxBytes, lowered by a test.
var maxBytes int64 = MaxBytes

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("certfile: malformed certificate")

// File is one certificate. Numbers are decimal strings (see the package doc).
type File struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Kind is KindPieces, KindClosedForm, KindPureDP, KindDeltaPieces,
	// KindDeltaCorners or KindRanges (empty in version 1 files, read as
	// KindPieces).
	Kind  string `json:"kind,omitempty"`
	D     int    `json:"d"`
	K     int    `json:"k"`
	N     int    `json:"n"`               // d k
	C     string `json:"c,omitempty"`     // empty for KindRanges
	Alpha string `json:"alpha,omitempty"` // empty for KindPureDP and the delta kinds
	Eps   string `json:"eps"`
	// Delta and EpsOut are the mechanism's delta and the amplified eps'
	// (nats) of KindDeltaPieces and KindDeltaCorners; empty for the
	// other kinds.
	Delta  string `json:"delta,omitempty"`
	EpsOut string `json:"eps_out,omitempty"`
	// Groups are the bit groups of KindRanges (in increasing c_g); empty
	// for the other kinds.
	Groups []Group `json:"groups,omitempty"`
	// Claim is the claimed upper bound on Post in nats (above Post); for
	// the delta kinds on delta' (a probability).
	Claim string `json:"claim"`
	// LB is the Theorem 4 lower bound (below Post); informational, not
	// checked. For the delta kinds a lower bound on delta'.
	LB string `json:"lb"`
	// L0 to Tiles are the proof data of the pieces and ranges kinds; L0, L1 and L2
	// also those of KindDeltaPieces.
	L0   string `json:"l0,omitempty"`
	L1   string `json:"l1,omitempty"`
	L2   string `json:"l2,omitempty"`
	Tau  string `json:"tau,omitempty"`
	LogU string `json:"log_u,omitempty"`
	// Tiles are boxes [S1, S2] x [T1, T2] in logit coordinates, each as
	// [S1, S2, T1, T2].
	Tiles [][4]string `json:"tiles,omitempty"`

	// BandBeta, BandS1, BandS2 and BandBoxes are the diagonal band of a
	// KindPieces file (all empty, or all set): boxes [S1, S2] x [R1, R2]
	// in (s, r = t - s), each the parallelogram {(s, s + r)} of the (s, t)
	// square, written [S1, S2, R1, R2]. They partition the band
	// [BandS1, BandS2] x [-BandBeta, BandBeta] of (s, r), and a tile that
	// lies inside the band's parallelogram {BandS1 <= s <= BandS2, |t - s|
	// <= BandBeta} needs no bound of its own: the band's boxes hold psi <=
	// L0 + Tau there. A reader that predates them refuses a file that has
	// them (unknown fields), so version 2 stays the version.
	BandBeta  string      `json:"band_beta,omitempty"`
	BandS1    string      `json:"band_s1,omitempty"`
	BandS2    string      `json:"band_s2,omitempty"`
	BandBoxes [][4]string `json:"band_boxes,omitempty"`

	// Method is, for KindPieces only, MethodPiecesMax or MethodPiecesLP,
	// or empty for MethodPieces (informational, see MethodPieces).
	Method string `json:"method,omitempty"`

	// Profile is the data of a KindProfile certificate (nil otherwise).
	Profile *Profile `json:"profile,omitempty"`
}

// Num formats x as the shortest decimal that reads back as x, or "inf",
// "-inf". It panics on NaN (a programmer error: certificates hold no NaN).
func Num(x float64) string {
	switch {
	case math.IsNaN(x):
		panic("certfile: NaN in a certificate")
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// MaxDeltaCornersN is the largest n = d k of a KindDeltaCorners
// certificate the checker re-computes (package verify rejects larger ones:
// the corner program's work grows steeply with n); writers give larger
// points a KindDeltaPieces certificate instead.
const MaxDeltaCornersN = 8

// MaxDeltaEps caps eps and |eps_out| of a delta certificate the checker
// takes (package verify): e^eps must stay within big.Float's reach with
// room. Writers give points past it no certificate.
const MaxDeltaEps = 1 << 20

// Exact formats x as its exact decimal expansion (every float64 is a
// finite decimal), trailing zeros trimmed, or "inf", "-inf". The point
// (c, alpha, eps) and the claim are written so: the file then states the
// claim for exactly the values the solver computed with. A shorter decimal
// would name a nearby point, at which the level can differ by more than
// the claim's margin (near c = 1/2 the pure-DP level moves by a relative
// 1e-13 when c moves by an ulp). It panics on NaN.
func Exact(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Num(x)
	}
	short := Num(x)
	if r, ok := new(big.Rat).SetString(short); ok && r.Cmp(new(big.Rat).SetFloat64(x)) == 0 {
		return short // 5, 0.5, 50: the shortest form is exact
	}
	s := strconv.FormatFloat(x, 'e', 767, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	return mant + "e" + exp
}

// Point is the parameters and the proof data of a certificate in float64,
// as the solver has them.
type Point struct {
	D, K, N               int
	C, Alpha, Eps         float64
	Claim, LB             float64
	L0, L1, L2, Tau, LogU float64
	Tiles                 [][4]float64 // S1, S2, T1, T2
	Method                string       // MethodPieces (or empty), MethodPiecesMax or MethodPiecesLP
	// The diagonal band (File.BandBeta...): no band when BandBoxes is
	// empty.
	BandBeta, BandS1, BandS2 float64
	BandBoxes                [][4]float64 // S1, S2, R1, R2
}

// MaxBandBoxes caps the boxes of a file's diagonal band (the solver's band
// uses at most a quarter of its box budget).
const MaxBandBoxes = 1_000_000

// New returns the pieces certificate of pt. It panics on a method other
// than those of File.Method (a programmer error).
func New(pt Point) *File {
	method := pt.Method
	switch method {
	case MethodPieces:
		method = ""
	case "", MethodPiecesMax, MethodPiecesLP:
	default:
		panic(fmt.Sprintf("certfile: pieces method %q", pt.Method))
	}
	f := &File{Format: Format, Version: Version, Kind: KindPieces, Method: method, D: pt.D, K: pt.K, N: pt.N,
		C: Exact(pt.C), Alpha: Exact(pt.Alpha), Eps: Exact(pt.Eps), Claim: Exact(pt.Claim), LB: Num(pt.LB),
		L0: Num(pt.L0), L1: Num(pt.L1), L2: Num(pt.L2), Tau: Num(pt.Tau), LogU: Num(pt.LogU)}
	f.Tiles = make([][4]string, len(pt.Tiles))
	for i, t := range pt.Tiles {
		f.Tiles[i] = [4]string{Num(t[0]), Num(t[1]), Num(t[2]), Num(t[3])}
	}
	if len(pt.BandBoxes) > 0 {
		f.BandBeta, f.BandS1, f.BandS2 = Num(pt.BandBeta), Num(pt.BandS1), Num(pt.BandS2)
		f.BandBoxes = make([][4]string, len(pt.BandBoxes))
		for i, t := range pt.BandBoxes {
			f.BandBoxes[i] = [4]string{Num(t[0]), Num(t[1]), Num(t[2]), Num(t[3])}
		}
	}
	return f
}

// RangePoint is the data of a ranges certificate (KindRanges) in float64,
// as the solver has them: Point without C, and the groups (n_g, c_g).
type RangePoint struct {
	Point
	GroupN []int
	GroupC []float64
}

// NewRanges returns the ranges certificate (KindRanges) of pt; c_g, alpha,
// eps and the claim are written exactly (Exact), the proof data as
// pieces. pt.C is not written.
func NewRanges(pt RangePoint) *File {
	f := New(pt.Point)
	f.Kind, f.C = KindRanges, ""
	for g, n := range pt.GroupN {
		f.Groups = append(f.Groups, Group{N: n, C: Exact(pt.GroupC[g])})
	}
	return f
}

// NewClosedForm returns the closed-form certificate (KindClosedForm) of
// the point (d, k, c, alpha, eps) with the claim Post <= claim, in nats,
// and the lower bound lb (informational).
func NewClosedForm(d, k int, c, alpha, eps, claim, lb float64) *File {
	return &File{Format: Format, Version: Version, Kind: KindClosedForm, D: d, K: k, N: d * k,
		C: Exact(c), Alpha: Exact(alpha), Eps: Exact(eps), Claim: Exact(claim), LB: Num(lb)}
}

// NewClosedFormRanges returns the closed-form certificate (KindClosedForm
// with groups) of per-coordinate ranges: group g has n[g] bits (k times
// its coordinates) with biases in [lo[g], hi[g]], in strictly increasing
// (lo, hi); the claim is Post <= claim, in nats, and lb the lower bound
// (informational). The ends, alpha, eps and the claim are written exactly
// (Exact). It panics unless n, lo and hi have one length.
func NewClosedFormRanges(d, k int, n []int, lo, hi []float64, alpha, eps, claim, lb float64) *File {
	if len(lo) != len(n) || len(hi) != len(n) {
		panic("certfile: NewClosedFormRanges: n, lo, hi of different lengths")
	}
	f := &File{Format: Format, Version: Version, Kind: KindClosedForm, D: d, K: k, N: d * k,
		Alpha: Exact(alpha), Eps: Exact(eps), Claim: Exact(claim), LB: Num(lb)}
	for g := range n {
		f.Groups = append(f.Groups, Group{N: n[g], Lo: Exact(lo[g]), Hi: Exact(hi[g])})
	}
	return f
}

// NewPureDP returns the pure-DP certificate (KindPureDP) of the point (d,
// k, c, eps) with the claim eps' <= claim and the lower bound lb, in nats.
func NewPureDP(d, k int, c, eps, claim, lb float64) *File {
	return &File{Format: Format, Version: Version, Kind: KindPureDP, D: d, K: k, N: d * k,
		C: Exact(c), Eps: Exact(eps), Claim: Exact(claim), LB: Num(lb)}
}

// NewDeltaPieces returns the delta certificate of kind KindDeltaPieces:
// at (d, k, c, eps, delta, epsOut), delta' <= l0 + (l1 + l2) delta <=
// claim, with the lower bound lb (informational). Every number is written
// exactly (Exact): the file states the multipliers the solver computed.
func NewDeltaPieces(d, k int, c, eps, delta, epsOut, claim, lb, l0, l1, l2 float64) *File {
	return &File{Format: Format, Version: Version, Kind: KindDeltaPieces, D: d, K: k, N: d * k,
		C: Exact(c), Eps: Exact(eps), Delta: Exact(delta), EpsOut: Exact(epsOut), Claim: Exact(claim), LB: Num(lb),
		L0: Exact(l0), L1: Exact(l1), L2: Exact(l2)}
}

// NewDeltaCorners returns the delta certificate of kind KindDeltaCorners:
// at (d, k, c, eps, delta, epsOut), delta' <= claim, with the lower bound
// lb (informational).
func NewDeltaCorners(d, k int, c, eps, delta, epsOut, claim, lb float64) *File {
	return &File{Format: Format, Version: Version, Kind: KindDeltaCorners, D: d, K: k, N: d * k,
		C: Exact(c), Eps: Exact(eps), Delta: Exact(delta), EpsOut: Exact(epsOut), Claim: Exact(claim), LB: Num(lb)}
}

// Name returns the file name of f in a directory of certificates:
// d<d>-k<k>-c<c>-alpha<alpha>-eps<eps>.json,
// pure-d<d>-k<k>-c<c>-eps<eps>.json for KindPureDP and
// delta-d<d>-k<k>-c<c>-eps<eps>-delta<delta>-epsout<eps_out>.json for
// KindDeltaPieces, and the same with the prefix delta-corners- for
// KindDeltaCorners, and ranges-d<d>-k<k>-c<c_1>x<n_1>-...-alpha<alpha>-eps<eps>.json
// for KindRanges.
// Numbers are in their shortest float64 form (c 0.1, not its exact expansion).
func (f *File) Name() string {
	switch f.Kind {
	case KindRanges:
		var sb strings.Builder
		for _, g := range f.Groups {
			fmt.Fprintf(&sb, "-c%sx%d", Short(g.C), g.N)
		}
		return fmt.Sprintf("ranges-d%d-k%d%s-alpha%s-eps%s.json", f.D, f.K, sb.String(), Short(f.Alpha), Short(f.Eps))
	case KindProfile:
		return f.profileName()
	case KindClosedForm:
		if len(f.Groups) == 0 {
			break
		}
		var sb strings.Builder
		for _, g := range f.Groups {
			if g.C != "" {
				fmt.Fprintf(&sb, "-c%sx%d", Short(g.C), g.N)
			} else {
				fmt.Fprintf(&sb, "-r%s_%sx%d", Short(g.Lo), Short(g.Hi), g.N)
			}
		}
		return fmt.Sprintf("closed-d%d-k%d%s-alpha%s-eps%s.json", f.D, f.K, sb.String(), Short(f.Alpha), Short(f.Eps))
	case KindPureDP:
		return fmt.Sprintf("pure-d%d-k%d-c%s-eps%s.json", f.D, f.K, Short(f.C), Short(f.Eps))
	case KindDeltaPieces, KindDeltaCorners:
		prefix := "delta"
		if f.Kind == KindDeltaCorners {
			prefix = "delta-corners"
		}
		return fmt.Sprintf(prefix+"-d%d-k%d-c%s-eps%s-delta%s-epsout%s.json", f.D, f.K, Short(f.C), Short(f.Eps), Short(f.Delta), Short(f.EpsOut))
	}
	return fmt.Sprintf("d%d-k%d-c%s-alpha%s-eps%s.json", f.D, f.K, Short(f.C), Short(f.Alpha), Short(f.Eps))
}

// Short returns the shortest form of the float64 nearest the decimal s (s itself
// when it is not a number), for display: "0.1" for the exact expansion of 0.1.
func Short(s string) string {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return s
	}
	return Num(x)
}

// Encode writes f as JSON, one tile per line.
func (f *File) Encode(w io.Writer) error {
	if len(f.Tiles) == 0 && len(f.BandBoxes) == 0 {
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	head := *f
	head.Tiles, head.BandBoxes = nil, nil
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	// Append the tiles and the band's boxes, one per line, to the head
	// (both omitted there).
	s := strings.TrimSuffix(string(b), "\n}")
	var sb strings.Builder
	sb.WriteString(s)
	list := func(name string, ts [][4]string) {
		if len(ts) == 0 {
			return
		}
		sb.WriteString(",\n  \"" + name + "\": [")
		for i, t := range ts {
			if i > 0 {
				sb.WriteString(",")
			}
			tb, _ := json.Marshal(t)
			sb.WriteString("\n    ")
			sb.Write(tb)
		}
		sb.WriteString("\n  ]")
	}
	list("tiles", f.Tiles)
	list("band_boxes", f.BandBoxes)
	sb.WriteString("\n}\n")
	_, err = io.WriteString(w, sb.String())
	return err
}

// WriteDir writes f to dir/f.Name() and returns the path.
func (f *File) WriteDir(dir string) (string, error) {
	path := filepath.Join(dir, f.Name())
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := f.Encode(out); err != nil {
		out.Close()
		return "", err
	}
	return path, out.Close()
}

// Decode reads one certificate and checks its shape: format, version,
// kind (a version 1 file is returned as version 2 of kind KindPieces),
// every field present, integers in range, numbers that parse. It does not
// check any mathematics (package verify does).
// A file larger than MaxBytes is refused before it is parsed.
func Decode(r io.Reader) (*File, error) {
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("%w: larger than %d bytes", ErrFormat, maxBytes)
		}
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if f.Format == FormatV1 {
		// Version 1 held the pieces kind only: read it as version 2.
		if f.Version != 1 || f.Kind != "" {
			return nil, fmt.Errorf("%w: format %q is version 1 with no kind, not version %d with kind %q", ErrFormat, FormatV1, f.Version, f.Kind)
		}
		f.Format, f.Version, f.Kind = Format, Version, KindPieces
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// ReadFile reads and decodes the certificate at path.
func ReadFile(path string) (*File, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return Decode(in)
}

// Validate checks the shape of f (see Decode).
func (f *File) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	switch {
	case f.Format != Format:
		return bad("format is %q, want %q", f.Format, Format)
	case f.Version != Version:
		return bad("version is %d, this reader knows %d (and version 1)", f.Version, Version)
	}
	switch {
	case f.Method != "" && f.Kind != KindPieces:
		return bad("method is %q: only a %s certificate has one", f.Method, KindPieces)
	case f.Method != "" && f.Method != MethodPiecesMax && f.Method != MethodPiecesLP:
		return bad("method is %q, want empty (%s), %q or %q", f.Method, MethodPieces, MethodPiecesMax, MethodPiecesLP)
	}
	if f.D < 1 || f.K < 1 || f.N < 1 {
		return bad("d, k, n are %d, %d, %d, must be >= 1", f.D, f.K, f.N)
	}
	if f.Kind == KindProfile || f.Profile != nil {
		if f.Method != "" || len(f.Groups) > 0 {
			return bad("a %s certificate has no method and no groups", KindProfile)
		}
		return f.validateProfile()
	}
	nums := []struct{ name, v string }{{"eps", f.Eps}, {"claim", f.Claim}, {"lb", f.LB}}
	switch {
	case f.Kind == KindClosedForm && len(f.Groups) > 0:
		if f.C != "" {
			return bad("c is %q: a %s certificate with groups has its ranges in groups", f.C, f.Kind)
		}
		if len(f.Groups) > MaxClosedFormGroups {
			return bad("%d groups, must be 1..%d", len(f.Groups), MaxClosedFormGroups)
		}
		for i, g := range f.Groups {
			if g.N < 1 {
				return bad("group %d: n is %d, must be >= 1", i+1, g.N)
			}
			if (g.C == "") == (g.Lo == "" && g.Hi == "") {
				return bad("group %d: has c %q, lo %q, hi %q: want c, or lo and hi", i+1, g.C, g.Lo, g.Hi)
			}
			if g.C != "" {
				nums = append(nums, struct{ name, v string }{fmt.Sprintf("group %d c", i+1), g.C})
				continue
			}
			nums = append(nums, struct{ name, v string }{fmt.Sprintf("group %d lo", i+1), g.Lo},
				struct{ name, v string }{fmt.Sprintf("group %d hi", i+1), g.Hi})
		}
	case f.Kind != KindRanges:
		nums = append(nums, struct{ name, v string }{"c", f.C})
		if len(f.Groups) > 0 {
			return bad("%d groups: only a %s or %s certificate has them", len(f.Groups), KindRanges, KindClosedForm)
		}
	}
	proof := []struct{ name, v string }{{"l0", f.L0}, {"l1", f.L1}, {"l2", f.L2}, {"tau", f.Tau}, {"log_u", f.LogU}}
	if f.Kind != KindDeltaPieces && f.Kind != KindDeltaCorners {
		for _, x := range []struct{ name, v string }{{"delta", f.Delta}, {"eps_out", f.EpsOut}} {
			if x.v != "" {
				return bad("%s is %q: only a delta certificate has it", x.name, x.v)
			}
		}
	}
	switch f.Kind {
	case KindRanges:
		if f.C != "" {
			return bad("c is %q: a %s certificate has its c_g in groups", f.C, f.Kind)
		}
		if len(f.Groups) == 0 || len(f.Groups) > MaxRangeGroups {
			return bad("%d groups, must be 1..%d", len(f.Groups), MaxRangeGroups)
		}
		for i, g := range f.Groups {
			if g.N < 1 {
				return bad("group %d: n is %d, must be >= 1", i+1, g.N)
			}
			if g.Lo != "" || g.Hi != "" {
				return bad("group %d: lo %q, hi %q: a %s group has c only", i+1, g.Lo, g.Hi, f.Kind)
			}
			nums = append(nums, struct{ name, v string }{fmt.Sprintf("group %d c", i+1), g.C})
		}
		nums = append(nums, proof...)
		nums = append(nums, struct{ name, v string }{"alpha", f.Alpha})
	case KindPieces:
		nums = append(nums, proof...)
		nums = append(nums, struct{ name, v string }{"alpha", f.Alpha})
	case KindDeltaPieces, KindDeltaCorners:
		if f.Alpha != "" {
			return bad("alpha is %q: a %s certificate has no order", f.Alpha, f.Kind)
		}
		own := 3 // l0, l1, l2
		if f.Kind == KindDeltaCorners {
			own = 0
		}
		for _, x := range proof[own:] {
			if x.v != "" {
				return bad("%s is %q: a %s certificate has no such field", x.name, x.v, f.Kind)
			}
		}
		if len(f.Tiles) > 0 {
			return bad("%d tiles: a %s certificate has none", len(f.Tiles), f.Kind)
		}
		nums = append(nums, proof[:own]...)
		nums = append(nums, struct{ name, v string }{"delta", f.Delta}, struct{ name, v string }{"eps_out", f.EpsOut})
	case KindClosedForm, KindPureDP:
		if f.Kind == KindPureDP && f.Alpha != "" {
			return bad("alpha is %q: a %s certificate has no order (it is infinity)", f.Alpha, f.Kind)
		}
		if f.Kind == KindClosedForm {
			nums = append(nums, struct{ name, v string }{"alpha", f.Alpha})
		}
		for _, x := range proof {
			if x.v != "" {
				return bad("%s is %q: a %s certificate has no proof data", x.name, x.v, f.Kind)
			}
		}
		if len(f.Tiles) > 0 {
			return bad("%d tiles: a %s certificate has no proof data", len(f.Tiles), f.Kind)
		}
	default:
		return bad("kind is %q, want %q, %q, %q, %q, %q or %q", f.Kind, KindPieces, KindClosedForm, KindPureDP, KindDeltaPieces, KindDeltaCorners, KindRanges)
	}
	for _, x := range nums {
		if !IsDecimal(x.v) {
			return bad("%s is %q, must be a finite decimal number", x.name, x.v)
		}
	}
	if err := f.validateBand(); err != nil {
		return err
	}
	if f.Kind != KindPieces && f.Kind != KindRanges {
		return nil
	}
	if len(f.Tiles) == 0 {
		return bad("no tiles")
	}
	for i, t := range f.Tiles {
		for _, v := range t {
			if !IsDecimal(v) && v != "inf" && v != "-inf" {
				return bad("tile %d: end %q is not a decimal number, inf or -inf", i+1, v)
			}
		}
	}
	return nil
}

// validateBand checks the band's fields: none, or (KindPieces only) a
// finite beta, band ends and boxes of finite decimals, at most
// MaxBandBoxes boxes. Their order and extent (0 < beta, BandS1 < BandS2
// <= 0, boxes nondegenerate and inside the band) are exact comparisons,
// made by the checker (package verify) when it reads them as rationals.
func (f *File) validateBand() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	if f.BandBeta == "" && f.BandS1 == "" && f.BandS2 == "" && len(f.BandBoxes) == 0 {
		return nil
	}
	if f.Kind != KindPieces {
		return bad("a %s certificate has no diagonal band", f.Kind)
	}
	if len(f.BandBoxes) == 0 || len(f.BandBoxes) > MaxBandBoxes {
		return bad("%d band boxes, must be 1..%d with band_beta, band_s1, band_s2", len(f.BandBoxes), MaxBandBoxes)
	}
	for _, x := range []struct{ name, v string }{{"band_beta", f.BandBeta}, {"band_s1", f.BandS1}, {"band_s2", f.BandS2}} {
		if !IsDecimal(x.v) {
			return bad("%s is %q, must be a finite decimal number", x.name, x.v)
		}
	}
	for i, t := range f.BandBoxes {
		for _, v := range t {
			if !IsDecimal(v) {
				return bad("band box %d: end %q is not a finite decimal number", i+1, v)
			}
		}
	}
	return nil
}

// IsDecimal says whether s is a finite decimal number: an optional sign,
// digits with an optional point, and an optional exponent.
func IsDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ed := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && ed < 6 {
			i++
			ed++
		}
		if ed == 0 {
			return false
		}
	}
	return i == len(s)
}
