package certify

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SurveyBox is a box of points (n, c, alpha, eps) for a survey of the
// conjecture Post = LB (issue 24 item 5): n in NMin..NMax, c in [CMin,
// CMax], alpha in [AlphaMin, AlphaMax], eps in [EpsMin, EpsMax].
type SurveyBox struct {
	NMin, NMax         int     // 1 <= NMin <= NMax <= MaxN
	CMin, CMax         float64 // 0 < CMin <= CMax < 1/2
	AlphaMin, AlphaMax float64 // 1 < AlphaMin <= AlphaMax, finite
	EpsMin, EpsMax     float64 // 0 < EpsMin <= EpsMax, finite
}

// DefaultSurveyBox is the wide box of issue 24 item 5: n in 1..10^4, c in
// [1e-4, 0.499], alpha in [1.001, 1000], eps in [1e-3, 50].
var DefaultSurveyBox = SurveyBox{
	NMin: 1, NMax: 10_000,
	CMin: 1e-4, CMax: 0.499,
	AlphaMin: 1.001, AlphaMax: 1000,
	EpsMin: 1e-3, EpsMax: 50,
}

// SurveyPoint is one point (n = d k, c, alpha, eps) of a survey.
type SurveyPoint struct {
	N             int
	C, Alpha, Eps float64
}

// surveyStream is the second word of the PCG state of SurveyPoints, fixed
// so that the seed alone names the sequence.
const surveyStream = 0x6265726e616d70 // "bernamp"

// Validate returns an error, wrapping ErrInput, for a box with a bound
// outside its domain (see the fields) or a minimum above its maximum.
func (b SurveyBox) Validate() error {
	if b.NMin < 1 || b.NMax > MaxN || b.NMin > b.NMax {
		return fmt.Errorf("%w: n range %d..%d, must have 1 <= min <= max <= %d", ErrInput, b.NMin, b.NMax, MaxN)
	}
	if !(0 < b.CMin && b.CMin <= b.CMax && b.CMax < 0.5) {
		return fmt.Errorf("%w: c range [%v, %v], must have 0 < min <= max < 0.5", ErrInput, b.CMin, b.CMax)
	}
	if !(1 < b.AlphaMin && b.AlphaMin <= b.AlphaMax) || math.IsInf(b.AlphaMax, 1) {
		return fmt.Errorf("%w: alpha range [%v, %v], must have 1 < min <= max < +Inf", ErrInput, b.AlphaMin, b.AlphaMax)
	}
	if !(0 < b.EpsMin && b.EpsMin <= b.EpsMax) || math.IsInf(b.EpsMax, 1) {
		return fmt.Errorf("%w: eps range [%v, %v], must have 0 < min <= max < +Inf", ErrInput, b.EpsMin, b.EpsMax)
	}
	return nil
}

// SurveyPoints draws count points of box, independently, from the PCG
// generator of math/rand/v2 seeded with (seed, a fixed stream); each point
// draws n, c, alpha, eps in that order from U_1, ..., U_4 uniform in [0, 1):
//
//	n     = floor(NMin ((NMax+1)/NMin)^U_1)   P(n <= m) = log((m+1)/NMin) / log((NMax+1)/NMin)
//	c     = CMin (CMax/CMin)^U_2              log c uniform
//	alpha = 1 + a0 (a1/a0)^U_3                log(alpha - 1) uniform, a0 = AlphaMin-1, a1 = AlphaMax-1
//	eps   = EpsMin (EpsMax/EpsMin)^U_4        log eps uniform
//
// so n is log-uniform over the integers (n in [m, 2m) as likely as n in
// [2m, 4m)) and alpha crowds toward 1 as much as toward AlphaMax. Values
// rounded outside the box are clamped to it. The sequence depends only on
// box and seed, and the first m points do not depend on count >= m. It
// returns an error, wrapping ErrInput, for an invalid box (Validate) or
// count < 0.
func SurveyPoints(box SurveyBox, count int, seed uint64) ([]SurveyPoint, error) {
	if err := box.Validate(); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, fmt.Errorf("%w: count is %d, must be >= 0", ErrInput, count)
	}
	rng := rand.New(rand.NewPCG(seed, surveyStream))
	nLo, nHi := float64(box.NMin), float64(box.NMax)+1
	pts := make([]SurveyPoint, count)
	for i := range pts {
		n := int(logUniform(nLo, nHi, rng.Float64()))
		pts[i] = SurveyPoint{
			N:     min(max(n, box.NMin), box.NMax),
			C:     clamp(logUniform(box.CMin, box.CMax, rng.Float64()), box.CMin, box.CMax),
			Alpha: clamp(1+logUniform(box.AlphaMin-1, box.AlphaMax-1, rng.Float64()), box.AlphaMin, box.AlphaMax),
			Eps:   clamp(logUniform(box.EpsMin, box.EpsMax, rng.Float64()), box.EpsMin, box.EpsMax),
		}
	}
	return pts, nil
}

// logUniform maps u in [0, 1) to lo (hi/lo)^u, 0 < lo <= hi.
func logUniform(lo, hi, u float64) float64 {
	return lo * math.Exp(u*math.Log(hi/lo))
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
