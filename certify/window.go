package certify

import (
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// Windowed sums at any c (docs/reach.md).
//
// Half 0 of F (half 1 is the same with p, q replaced by 1-p, 1-q) has the
// terms, for kind (i, j') (the value is kind (0, 0)),
//
//	K_j = w_j (1-e_j)^(i+j') u_j^A v_j^-B,  A = alpha - i,  B = alpha + j' - 1 > 0,
//
// with u_j = p + (1-p) e_j, v_j = q + (1-q) e_j and e_(j+1) = e_j / kappa,
// kappa = (c/(1-c))^2 < 1. The ratio of two neighbours is a product of
// factors each monotone in j:
//
//	w_(j-1)/w_j = j/(n-j+1) (1-c)/c                  increases with j
//	u_j/u_(j-1) = (p + (1-p) e)/(p + (1-p) kappa e)  increases with e = e_j (derivative (1-p) p (1-kappa) > 0), in [1, 1/kappa]
//	(1-e_(j-1))/(1-e_j) = (1 - kappa e)/(1 - e)       increases with e (derivative (1-kappa)/(1-e)^2)
//
// (likewise for v). Below the window (j < lo) every factor of
// K_(j-1)/K_j = w_(j-1)/w_j (u_j/u_(j-1))^-A (v_j/v_(j-1))^B ((1-e_(j-1))/(1-e_j))^(i+j')
// is at most its value at j = a for all j <= a (for A >= 0 the u factor is
// at most 1; for A < 0 it increases with j), so r(a), that product at a,
// bounds every ratio below a. Above the window, K_(j+1)/K_j has the w, v and
// (1-e) factors decreasing in j (their values at the segment's first j
// bound them) and the u factor (u_(j+1)/u_j)^A increasing in j for A >= 0
// (its value at the segment's last j bounds it) or decreasing for A < 0.
//
// So on a segment of L indices beyond an anchor a whose term is at most
// e^X, every term is at most e^X r^t (t = 1..L, r the segment's bound),
// the segment sums to at most e^X r/(1-r) (r < 1) or e^X L r^L (r >= 1),
// and the term at its far end is at most e^X r^L, the next anchor. Segments
// of doubling length reach the end of the range in O(log n) steps; on the
// lower side, once r < 1 it stays below 1 (r(a) increases with a), so the
// rest is one geometric series. No unimodality is assumed: a window too
// small only makes the bound large, and eval then widens the window until
// each kind's omitted terms are below e^-windowNats of its sum.
//
// Rounding: every log of the bound carries a margin (logMargin, relative,
// plus a few ulps of each magnitude), and the anchor term its own error.

// windowNats is the aim for the omitted terms of each kind of each half:
// below e^-windowNats (4e-18) of the sum kept, far under its rounding.
const windowNats = 40

// Knobs for the tests only (a deliberately wrong tail bound must be caught).
var (
	testFlipLam   = false // the Binomial ratio with log(c/(1-c)) for log((1-c)/c) (a bug once made)
	testTailShift = 0.0   // added to every log tail bound
)

// side is one end of a half's window.
type side int

const (
	below side = iota
	above
)

// uvMemo keeps, for one half's arguments, logRatio's log u_j, log v_j and
// log(u_j/v_j) by j, direct-mapped (slot j mod uvSlots, holding j+1 and the
// three logs): the tails of every kind (sideTail) ask for the same few j
// (each side's anchor and segment ends), and each costs two softplus.
type uvMemo struct {
	tag [uvSlots]int
	v   [uvSlots][3]float64
}

const uvSlots = 128

// testNoMemo turns uvMemo off (each log formed again where asked).
var testNoMemo bool

// ratioAt returns logRatio at term j of a half (arguments xy), kept in mm
// (nil: none kept).
func (m *model) ratioAt(xy [2]coord, j int, mm *uvMemo) (lu, lv, d float64) {
	if mm != nil {
		if i := j % uvSlots; mm.tag[i] == j+1 {
			return mm.v[i][0], mm.v[i][1], mm.v[i][2]
		}
	}
	lu, lv, d = logRatio(xy[0], xy[1], m.le[j])
	if mm != nil {
		i := j % uvSlots
		mm.tag[i], mm.v[i] = j+1, [3]float64{lu, lv, d}
	}
	return lu, lv, d
}

// termLog returns the log t of the value term j of a half (arguments xy),
// a bound r on its error (in log units) and log u_j, log v_j: as addTerm
// forms them; logRatio kept in mm (nil: none).
func (m *model) termLog(xy [2]coord, j int, mm *uvMemo) (t, r, lu, lv float64) {
	a := m.alpha
	lw := m.lw[j]
	lu, lv, d := m.ratioAt(xy, j, mm)
	t = lw + lv + a*d
	r = termUlps * eps64 * (math.Abs(lw) + math.Abs(lv) + a*(math.Abs(d)+4) + 8)
	return t, r, lu, lv
}

// kindLog returns the log of term j of kind k of a half and a bound on its
// error (in log units).
func (m *model) kindLog(xy [2]coord, j, k int, mm *uvMemo) (float64, float64) {
	t, r, lu, lv := m.termLog(xy, j, mm)
	i, jj := float64(kindIJ[k][0]), float64(kindIJ[k][1])
	if k != kVal {
		lo := m.lom[j]
		t += -i*lu - jj*lv + (i+jj)*lo
		r += termUlps * eps64 * (i + jj) * (math.Abs(lo) + math.Abs(lu) + math.Abs(lv) + 1)
	}
	return t, r
}

// ratioBound returns the log of a bound on K_(j-1)/K_j for every j <= a
// (below), or on K_(j+1)/K_j for every j in [a, b) (above; b <= the last
// index), for kind k of a half: the factors of the comment at the top
// taken where each is largest. +Inf where no bound is known.
func (m *model) ratioBound(xy [2]coord, k int, s side, a, b int, mm *uvMemo) float64 {
	n, lam := float64(m.n), m.lam
	if testFlipLam {
		lam = -lam
	}
	i, jj := float64(kindIJ[k][0]), float64(kindIJ[k][1])
	A, B := m.alpha-i, m.alpha+jj-1
	var lr, mag float64
	dl := func(j1, j2 int) (du, dv float64) { // log(u_j1/u_j2), log(v_j1/v_j2)
		lu1, lv1, _ := m.ratioAt(xy, j1, mm)
		lu2, lv2, _ := m.ratioAt(xy, j2, mm)
		// Each log within a few ulps of itself and of log e_j.
		mag += math.Abs(lu1) + math.Abs(lu2) + math.Abs(lv1) + math.Abs(lv2) + 4*math.Abs(m.le[j1]) + 4
		return lu1 - lu2, lv1 - lv2
	}
	if s == below {
		x := float64(a)
		lr = math.Log(x) - math.Log(n-x+1) + lam
		if 2*a == m.n {
			lr += math.Ln2 // w_a is stored halved
		}
		du, dv := dl(a, a-1)
		if A < 0 {
			lr += -A * du
		}
		lr += B * dv
		if i+jj > 0 {
			lr += (i + jj) * (m.lom[a-1] - m.lom[a])
		}
	} else {
		x := float64(a)
		lr = math.Log(n-x) - math.Log(x+1) - lam
		du, dv := dl(a+1, a)
		if A >= 0 {
			duEnd, _ := dl(b, b-1)
			lr += A * duEnd
		} else {
			lr += A * du
		}
		lr -= B * dv
		if i+jj > 0 {
			lr += (i + jj) * (m.lom[a+1] - m.lom[a])
		}
	}
	if math.IsNaN(lr) {
		return math.Inf(1)
	}
	// Each log within a few ulps of its size, times the powers; the
	// Binomial ratio's logs and lam likewise.
	pad := termUlps * eps64 * ((math.Abs(A)+B+i+jj+1)*mag + math.Log(n) + m.lam + 8)
	return lr + pad + logMargin*(math.Abs(lr)+1)
}

// sideTail returns the log of a bound on the sum of kind k's terms of a
// half beyond its window's end on side s (window [lo, hi)): segments of
// doubling length from the anchor (the last term summed), see the comment
// at the top. -Inf when the window reaches the end of the range. mm keeps
// the logs of u_j and v_j that the kinds' tails share.
func (m *model) sideTail(xy [2]coord, k int, s side, lo, hi int, mm *uvMemo) float64 {
	last := len(m.lw) - 1
	a := lo
	if s == above {
		a = hi - 1
	}
	if (s == below && a == 0) || (s == above && a == last) {
		return math.Inf(-1)
	}
	x, r := m.kindLog(xy, a, k, mm)
	if math.IsInf(x, -1) || math.IsNaN(x) {
		return math.Inf(1) // (1-e_a) = 0: no anchor
	}
	x += r + logMargin*(math.Abs(x)+1)
	tot := newSum()
	// best: the least of (segments so far) + (Chernoff beyond their end).
	best := m.chernoffTail(xy, k, s, a, mm)
	for seg := 1; ; seg *= 2 {
		if s == below {
			if a == 0 {
				break
			}
			lr := m.ratioBound(xy, k, below, a, 0, mm)
			if lr < 0 {
				// r(a) bounds every ratio below a: one geometric series,
				// and at most a terms of at most e^x r.
				tot.add(x+math.Min(lr-logspace.OneMinusExp(lr), math.Log(float64(a))+lr), 0)
				a = 0
				break
			}
			L := min(seg, a)
			tot.add(x+math.Log(float64(L))+float64(L)*lr, 0)
			x += float64(L) * lr
			a -= L
		} else {
			if a == last {
				break
			}
			if lr := m.ratioBound(xy, k, above, a, last, mm); lr < 0 {
				tot.add(x+math.Min(lr-logspace.OneMinusExp(lr), math.Log(float64(last-a))+lr), 0)
				a = last
				break
			}
			L := min(seg, last-a)
			lr := m.ratioBound(xy, k, above, a, a+L, mm)
			if lr < 0 {
				tot.add(x+lr-logspace.OneMinusExp(lr), 0)
			} else {
				tot.add(x+math.Log(float64(L))+float64(L)*lr, 0)
			}
			x += float64(L) * lr
			a += L
		}
		if math.IsNaN(x) || math.IsInf(x, 1) {
			break
		}
		best = math.Min(best, logspace.Add(tot.log(), m.chernoffTail(xy, k, s, a, mm)))
	}
	if !(math.IsNaN(x) || math.IsInf(x, 1)) && (a == 0 || a == last) {
		best = math.Min(best, tot.log())
	}
	if math.IsNaN(best) {
		return math.Inf(1)
	}
	return best + logMargin*(math.Abs(best)+1) + 1e-12 + testTailShift
}

// chernoffTail returns the log of a bound on the sum of kind k's terms of
// a half beyond index a (exclusive) on side s, by the Binomial tail: with
// d_j = log(u_j/v_j), K_j = w_j (1-e_j)^(i+j') e^(A d_j) v_j^(1-i-j'),
// where d_j is monotone in j (u/v moves from x/y towards 1) and v_j
// increases with j, so every factor but w_j is at most its largest value at
// the two ends of the range beyond a; and the w_j beyond a sum to at most
// exp(-n KL(x || c)), x the first index beyond a over n (Chernoff), when
// x is on the far side of c. +Inf otherwise.
func (m *model) chernoffTail(xy [2]coord, k int, s side, a int, mm *uvMemo) float64 {
	last := len(m.lw) - 1
	n := float64(m.n)
	var x float64
	var end int
	if s == below {
		if a == 0 {
			return math.Inf(-1)
		}
		x, end = float64(a-1)/n, 0
		if x >= m.c {
			return math.Inf(1)
		}
	} else {
		if a == last {
			return math.Inf(-1)
		}
		x, end = float64(a+1)/n, last
		if x <= m.c {
			return math.Inf(1)
		}
	}
	kl := 0.0
	if x > 0 {
		kl += x * math.Log(x/m.c)
	}
	if x < 1 {
		kl += (1 - x) * math.Log((1-x)/(1-m.c))
	}
	kl *= n * (1 - logMargin)
	i, jj := float64(kindIJ[k][0]), float64(kindIJ[k][1])
	A, e := m.alpha-i, 1-i-jj
	_, lva, da := m.ratioAt(xy, a, mm)
	_, lve, de := m.ratioAt(xy, end, mm)
	t := -kl + math.Max(A*da, A*de)
	// v_j^e: largest at the larger v (the upper end) for e = 1, at the
	// smaller v (the lower end) for e <= 0.
	lvLo, lvHi := math.Min(lva, lve), math.Max(lva, lve)
	if e > 0 {
		t += e * lvHi
	} else {
		t += e * lvLo
	}
	t += termUlps * eps64 * (math.Abs(A)*(math.Abs(da)+math.Abs(de)+4) + math.Abs(e)*(math.Abs(lva)+math.Abs(lve)+4) + math.Abs(m.le[end]) + 8)
	if math.IsNaN(t) {
		return math.Inf(1)
	}
	return t + logMargin*(math.Abs(t)+1)
}

// turn returns the j nearest to where a half's argument x stops
// dominating x + (1-x) e_j: e_j = x/(1-x), log e_j = -(n-2j) lam.
func (m *model) turn(x coord) int {
	j := math.Round((float64(m.n) + (x.l-x.l1)/m.lam) / 2)
	if !(j >= 0) {
		return 0
	}
	return int(math.Min(j, float64(len(m.lw)-1)))
}

// testOneStart starts the windows' search for the largest term at the
// Binomial mode only (before/after).
var testOneStart bool

// testSharedMax keeps u and v below 1/sharedMax off the shared path
// (before/after the split exponents).
var testSharedMax bool

// sumWindow sums half h of pt (arguments xy) over a window of j and sets
// pt.win[h], pt.logTail[h] and pt.valTail[h] (the bounds of its omitted
// terms): it starts at a local maximum of the value terms (a pattern search
// from the Binomial mode, and from the turns of u_j and v_j where those
// are larger), takes the j where the value terms are within
// e^-(windowNats+8) of it, and widens each side, by doubling steps from
// sd/4, until every kind's omitted terms beyond it are below
// e^-windowNats of that kind's sum.
func (m *model) sumWindow(pt *point, h int, xy [2]coord) {
	last := len(m.lw) - 1
	mm := &uvMemo{}
	if testNoMemo {
		mm = nil
	}
	val := func(j int) float64 { t, _ := m.kindLog(xy, j, kVal, mm); return t }
	// climb returns a local maximum of the value terms reached from j by
	// the pattern search.
	climb := func(j int) (int, float64) {
		fj := val(j)
		for step := 1; step > 0; {
			moved := false
			for _, d := range [2]int{step, -step} {
				if jn := j + d; jn >= 0 && jn <= last {
					if fn := val(jn); fn > fj {
						j, fj, moved = jn, fn, true
						break
					}
				}
			}
			if moved {
				step *= 2
			} else {
				step /= 2
			}
		}
		return j, fj
	}
	j, fj := climb(min(max(int(float64(m.n)*m.c), 0), last))
	// The terms may have a second, larger peak apart from the Binomial
	// mode's: where u_j or v_j turns from its constant part to its e_j
	// part (e_j (1-x)/x = 1), as at p, q near 0 at large alpha, where the
	// mode's peak is a dip's far side and the window must otherwise widen
	// over every j to bound the other (docs/reach.md, "The second peak").
	if !testOneStart {
		for _, x := range xy {
			if i := m.turn(x); i != j && val(i) > fj {
				if ji, fi := climb(i); fi > fj {
					j, fj = ji, fi
				}
			}
		}
	}
	// The first window: on each side, where the value terms fall below
	// e^-(windowNats+8) of the largest (a search by doubling and halving,
	// exact when the terms fall monotonically away from j).
	reach := func(dir int) int {
		at, step := j, 1
		for step > 0 {
			if x := at + dir*step; x >= 0 && x <= last && val(x) > fj-windowNats-8 {
				at = x
				step *= 2
			} else {
				step /= 2
			}
		}
		return at
	}
	w := max(4, int(m.sd/4))
	lo, hi := max(reach(-1)-1, 0), min(reach(1)+2, last+1)
	sh := m.windowShared(xy)
	for x := lo; x < hi; x++ {
		m.addShared(pt, h, xy, x, sh)
	}
	// tails[s][k]: the bound beyond side s for kind k (valid[s]: for the
	// window as it is).
	var tails [2][nKinds]float64
	var valid [2]bool
	steps := [2]int{w, w}
	for {
		done := true
		for _, s := range [2]side{below, above} {
			if valid[s] {
				continue
			}
			ok := true
			for k := 0; k < pt.kinds; k++ {
				if !pt.has(k) {
					continue
				}
				t := m.sideTail(xy, k, s, lo, hi, mm)
				tails[s][k] = t
				if !(t <= pt.f[h][k].log()-windowNats) {
					ok = false
					break
				}
			}
			if ok {
				valid[s] = true
				continue
			}
			done = false
			if s == below {
				nlo := max(lo-steps[s], 0)
				for x := nlo; x < lo; x++ {
					m.addShared(pt, h, xy, x, sh)
				}
				lo = nlo
			} else {
				nhi := min(hi+steps[s], last+1)
				for x := hi; x < nhi; x++ {
					m.addShared(pt, h, xy, x, sh)
				}
				hi = nhi
			}
			steps[s] *= 2
		}
		if done {
			break
		}
	}
	for k := 0; k < pt.kinds; k++ {
		if !pt.has(k) {
			continue
		}
		pt.logTail[h][k] = logspace.Add(tails[below][k], tails[above][k])
	}
	pt.valTail[h] = [2]float64{tails[below][kVal], tails[above][kVal]}
	pt.win[h] = [2]int{lo, hi}
}

// cornerTail returns, for each half of F, the largest of pts' bounds on
// the omitted terms of kind k of that half (log; -Inf when every sum was
// complete). Each kind's sum of a half is monotone in p and in q (each
// term is w_j (1-e_j)^(i+j') u^(alpha-i) v^(1-alpha-j'), u and v monotone
// in p and q), so over a box its extremes are at corners, where the true
// sum is within [sum, sum + that corner's own tail]. The halves are kept
// apart: far from the diagonal at large alpha one half dwarfs the other
// (by e^4000 at n = 10^4, c = 0.495, alpha = 1000), and the large half's
// tail, put on the small half, made the paired bound infinite there.
func cornerTail(pts []*point, k int) [2]float64 {
	t := [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for h := range t {
			t[h] = math.Max(t[h], p.logTail[h][k])
		}
	}
	return t
}

// Shared factors (addShared). Every kind's term of a half is the value
// term times a product of powers of three numbers,
//
//	K_j(i, j') = K_j(0, 0) u_j^-i v_j^-j' (1-e_j)^(i+j'),
//
// so the kinds need one exp between them: the value's, e^(t - top_0), the
// scaled term its sum adds; kind k's scaled term e^(t_k - top_k) is that
// times u^-i v^-j' (1-e)^(i+j') times e^(top_0 - top_k), one exp per kind
// each time a sum's level moves (rarely: a level moves only by e^30). And
// u = x + (1-x) e_j, v likewise, are formed in floats wherever each part is
// a normal float (or an exact 0), so that log u and log v cost a log each
// and 1/u, 1/v a division, where mixed spends an exp and a log1p on each.
// addTerm spends two exps and two log1p on u and v and an exp per kind
// (five or six a term at orders 2 and 3); addShared one exp and two logs.
//
// Errors. The point is its logs (x.l, x.l1) = (log x, log(1-x)), taken as
// exact, as mixed takes them: u = e^(x.l) + e^(x.l1) e_j. In floats x =
// exp(x.l) and 1-x = exp(x.l1) are within 2 ulps (one ulp of exp, every
// part normal: logs >= linLog), e_j = exp(log e_j) within 2 ulps plus the
// error of log e_j = -(n-2j) log((1-c)/c), a few ulps of its size; the
// product and the sum of two positive numbers add an ulp each. So u is
// within eu = termUlps ulps of (|log e_j| + 1) relative, 1/u within one
// ulp more, and log u within eu + 2 ulps of |log u| (absolute). The value
// term's log t = log w + alpha log u + (1 - alpha) log v then carries
// alpha (eu + 2 ulps |log u|) + |1 - alpha| (ev + 2 ulps |log v|), plus
// the roundings of its own sums and products and the exp that leaves log
// space (termUlps ulps of |log w| + |log v| + alpha |d| + 8, as addTerm's).
// Of the kinds' factors: 1 - e_j = -expm1(log e_j) within 2 ulps plus
// e_j |log e_j| / (1-e_j) times the relative error of log e_j, at most
// that error (x e^-x <= 1 - e^-x), so termUlps * 2 ulps; e^(top_0 -
// top_k) within 2 ulps plus an ulp of |top_0 - top_k|; the products (at
// most eight) one ulp each. (At alpha near 1 the tolerance tau is 5e-13:
// these errors, about 100 ulps a term, are what the proof spends there; a
// cruder count, about 400 ulps, took (10^4, 0.4999, 1.001, 1e-3) from
// 7,384 boxes to 39,104.)

// shared is one half's state for addShared: its arguments as floats with a
// bound on their relative errors, and e^(top_0 - top_k) per kind with the
// levels it was computed at.
type shared struct {
	x, x1, y, y1     float64 // e^(x.l), e^(x.l1), e^(y.l), e^(y.l1); 0 below e^linLog
	lx, lx1, ly, ly1 float64 // their logs
	ck, ckErr        [nKinds]float64
	ckAt             [nKinds][2]float64
	ckm              [nKinds]float64 // ck as ckm 2^ckE, ckm in [1, 2) (within ckErr)
	ckE              [nKinds]int
	lv               levels     // addTerm's, for the terms that go through it
	cu, cv           *coordLogs // log u_j and log v_j by coordinate (nil: none)
}

// coordLogs holds, for one coordinate x of a windowed model (a half's p
// or q), log u_j for u_j = x + (1-x) e_j as linear forms it, for j in
// [lo, lo+len(lu)), where u_j > sharedMin (0 elsewhere): it depends on
// x alone, and the boxes of a search share few coordinates (at (10^6,
// 0.499, 1.001, 1e-3), 423 for the 14,220 halves' arguments of its
// evaluations), so each is formed once.
type coordLogs struct {
	a, la, b, lb float64 // x and 1-x as newShared forms them, with their logs
	lo           int
	lu           []float64
}

// coordLogsMax caps the logs kept by a model's coordLogs (8 bytes each,
// 32 MiB in all); past it they are dropped and formed anew.
const coordLogsMax = 1 << 22

// coordLogsOf returns the coordLogs of x (parts a = e^(x.l), b = e^(x.l1)
// as newShared forms them), nil with testNoCoordLogs.
func (m *model) coordLogsOf(x coord, a, b float64) *coordLogs {
	if testNoCoordLogs {
		return nil
	}
	key := [2]float64{x.l, x.l1}
	if c := m.coords[key]; c != nil {
		return c
	}
	if m.coords == nil || m.coordsN >= coordLogsMax {
		m.coords, m.coordsN = map[[2]float64]*coordLogs{}, 0
	}
	c := &coordLogs{a: a, la: x.l, b: b, lb: x.l1}
	m.coords[key] = c
	return c
}

// at returns log u_j (where u_j > sharedMin), forming the range of j
// it keeps out to j if need be.
func (c *coordLogs) at(m *model, j int) float64 {
	if i := j - c.lo; i < 0 || i >= len(c.lu) {
		c.extend(m, j)
	}
	return c.lu[j-c.lo]
}

// extend widens c's range to hold j, by at least half its length on that
// side (a window widens by doubling steps), within 0..len(m.lw)-1.
func (c *coordLogs) extend(m *model, j int) {
	lo, hi := c.lo, c.lo+len(c.lu)
	pad := max(64, len(c.lu)/2)
	if len(c.lu) == 0 {
		lo, hi = j, j // nothing kept yet
	}
	nlo, nhi := min(lo, max(j-pad, 0)), max(hi, min(j+1+pad, len(m.lw)))
	lu := make([]float64, nhi-nlo)
	copy(lu[lo-nlo:], c.lu)
	for i := nlo; i < nhi; i++ {
		if i >= lo && i < hi {
			continue // kept
		}
		if x, _ := linear(c.a, c.la, c.b, c.lb, m.ej[i], m.le[i]); x > sharedMin {
			lu[i-nlo] = math.Log(x)
		}
	}
	m.coordsN += nhi - nlo - len(c.lu)
	c.lo, c.lu = nlo, lu
}

// testNoCoordLogs turns the coordinates' kept logs off (before/after; the
// sums are the same bit for bit).
var testNoCoordLogs = false

// linLog is the least log of a part of u or v formed in floats: above it
// every part is a normal float (e^-700 > 1e-305). A part below it is
// dropped where it is below e^-dropLog of the other part of the same sum
// (u = x + (1-x) e_j: a relative error under 1e-299, far below an ulp),
// as at logits of hundreds (q = 1 - e^-1000); elsewhere the term goes
// through the logs.
const (
	linLog  = -700
	dropLog = 690
)

func newShared(xy [2]coord) *shared {
	x, y := xy[0], xy[1]
	part := func(l float64) float64 {
		if l < linLog {
			return 0
		}
		return math.Exp(l)
	}
	sh := &shared{
		x: part(x.l), x1: part(x.l1), y: part(y.l), y1: part(y.l1),
		lx: x.l, lx1: x.l1, ly: y.l, ly1: y.l1,
	}
	for k := range sh.ckAt {
		sh.ckAt[k] = [2]float64{math.NaN(), math.NaN()}
	}
	return sh
}

// linear returns a + b e_j in floats, from a = e^la and b = e^lb (0
// below e^linLog) and e_j = e^le, and whether it is within one ulp more
// than its parts' errors of the true sum: every part kept is a normal
// float (the product too), and a part dropped is below e^-dropLog of the
// other. (An exact 0, log -Inf, is dropped.)
func linear(a, la, b, lb, ej, le float64) (float64, bool) {
	lp := lb + le
	switch {
	case la >= linLog && lp >= linLog:
		return a + b*ej, true
	case la >= linLog && lp <= la-dropLog:
		return a, true
	case lp >= linLog && la <= lp-dropLog:
		return b * ej, true
	}
	return 0, false
}

// sharedMax bounds 1/u and 1/v on the shared path as they are: their
// cubes times the scaled value term (at most e^30) stay far from
// overflow. Below 1/sharedMax, down to sharedMin (normal floats far from
// the subnormals), u and v are split into mantissa and binary exponent
// and the exponents are summed apart (math.Ldexp, exact for a normal
// result): at (10^4, 0.4737, 1.0015, 1.669), 2.3 million terms with u
// between 1e-180 and 1e-90 (edge points with p near 0 and e_j small) went
// through the logs, one exp per kind each.
const (
	sharedMax = 1e90
	sharedMin = 1e-290
)

// linearErr bounds the relative error of u = x + (1-x) e_j as linear
// forms it (log e_j = le <= 0): a few ulps of |log e_j|, which bounds
// |log x| too where x is the larger part.
func linearErr(le float64) float64 {
	return termUlps * eps64 * (-le + 1)
}

// windowed says whether m's sums are windowed (sumWindow, addShared).
func (m *model) windowed() bool {
	return m.binom && m.n >= windowFrom
}

// windowShared returns the shared parts of a half with arguments xy, with
// the model's logs of u_j and v_j by coordinate.
func (m *model) windowShared(xy [2]coord) *shared {
	sh := newShared(xy)
	sh.cu, sh.cv = m.coordLogsOf(xy[0], sh.x, sh.x1), m.coordLogsOf(xy[1], sh.y, sh.y1)
	return sh
}

// sharedValue returns the value term j of a half (arguments xy, shared
// parts sh) as addShared adds it: its log t and error bound r (log
// units), log u_j and log v_j, and, where lin, u_j and v_j as floats
// (each within a relative error termUlps eps64 (1 - log e_j)) with the
// logs taken of them; elsewhere (a part of u or v below e^linLog, u or v
// below sharedMin) through addTerm's logs (termLog). Not for a model
// with lerr (addShared sends its terms to addTerm).
func (m *model) sharedValue(xy [2]coord, j int, sh *shared) (t, r, lu, lv, u, v float64, lin bool) {
	a := m.alpha
	le := m.le[j]
	ej := m.ej[j]
	// linear gives 0 where it does not form u or v.
	u, _ = linear(sh.x, sh.lx, sh.x1, sh.lx1, ej, le)
	v, _ = linear(sh.y, sh.ly, sh.y1, sh.ly1, ej, le)
	lin = u > sharedMin && v > sharedMin
	if testSharedMax {
		lin = u > 1/sharedMax && v > 1/sharedMax
	}
	switch {
	case lin && sh.cu != nil:
		lu, lv = sh.cu.at(m, j), sh.cv.at(m, j)
	case lin:
		lu, lv = math.Log(u), math.Log(v)
	}
	if !lin {
		t, r, lu, lv = m.termLog(xy, j, nil)
		return t, r, lu, lv, u, v, false
	}
	// eu, ev: relative errors of u, v, and (with 2 ulps of their size)
	// absolute ones of their logs.
	eu := linearErr(le)
	ev := eu
	d, lw := lu-lv, m.lw[j]
	t = lw + lv + a*d
	r = termUlps*eps64*(math.Abs(lw)+math.Abs(lv)+a*math.Abs(d)+8) +
		a*(eu+2*eps64*math.Abs(lu)) + math.Abs(1-a)*(ev+2*eps64*math.Abs(lv))
	return t, r, lu, lv, u, v, true
}

// addShared adds term j of half h to each kind's sum of pt, as addTerm
// does, with u and v in floats and one exp for all kinds where the parts
// and the sums' levels allow (see above); elsewhere (a part of u or v
// below e^linLog, u or v below 1/sharedMax, the first term, a level that
// moves, a term below e^-600 of its level) through addTerm's logs.
func (m *model) addShared(pt *point, h int, xy [2]coord, j int, sh *shared) {
	if m.lerr != nil {
		m.addTerm(pt, h, xy, j, &sh.lv)
		return
	}
	f := &pt.f[h]
	f0 := &f[kVal]
	t, r, lu, lv, u, v, lin := m.sharedValue(xy, j, sh)
	var eu, ev float64 // relative errors of u, v (sharedValue's)
	if lin {
		eu = linearErr(m.le[j])
		ev = eu
	}
	var e0 float64
	if t <= f0.top+30 && t-f0.top > -600 {
		e0 = math.Exp(t - f0.top)
		f0.addScaled(e0, r)
	} else {
		f0.add(t, r)
		lin = false // no shared exp: the kinds through their logs
	}
	lo := m.lom[j]
	if pt.kinds == 1 || math.IsInf(lo, -1) {
		return
	}
	var pu, pv, po [4]float64
	// split: u or v below 1/sharedMax, pu and pv hold the powers of
	// 1/mu and 1/mv for u = mu 2^bu, v = mv 2^bv (mu, mv in [1/2, 1)).
	var split bool
	var bu, bv int
	if lin {
		iu, iv, om := 1/u, 1/v, m.om[j]
		if split = u <= 1/sharedMax || v <= 1/sharedMax; split {
			var mu, mv float64
			mu, bu = math.Frexp(u)
			mv, bv = math.Frexp(v)
			iu, iv = 1/mu, 1/mv
		}
		pu = [4]float64{1, iu, iu * iu, iu * iu * iu}
		pv = [4]float64{1, iv, iv * iv, iv * iv * iv}
		po = [4]float64{1, om, om * om, om * om * om}
	}
	// The shared path's error for kind (i, j'): r + i eu + j' ev + (i+j')
	// eom + the level factor's + the products'.
	eom := termUlps * eps64 * 2
	k0 := 1
	if pt.corner {
		k0 = kindsUpTo[2]
	}
	for k := k0; k < pt.kinds; k++ {
		i, jj := kindIJ[k][0], kindIJ[k][1]
		s := &f[k]
		if lin && s.top > math.Inf(-1) {
			if at := [2]float64{f0.top, s.top}; sh.ckAt[k] != at {
				c := math.Exp(f0.top - s.top)
				if !(c > 1e-300 && c < 1e300) {
					c = math.NaN() // not a normal float: through the logs
				}
				sh.ck[k], sh.ckAt[k] = c, at
				sh.ckErr[k] = termUlps * eps64 * (math.Abs(f0.top-s.top) + 1)
				// ckm 2^ckE = e^d, d = f0.top - s.top: the rounding of
				// d - ckE log 2 is a few ulps of |d|, within ckErr.
				d := f0.top - s.top
				e := math.Floor(d / math.Ln2)
				if math.Abs(e) < 1e6 {
					sh.ckE[k] = int(e)
					sh.ckm[k] = math.Exp(d - e*math.Ln2)
				} else {
					sh.ckm[k] = math.NaN() // through the logs
				}
			}
			var tk float64
			if split {
				// The same products as below with mantissas, each a
				// normal float (e0 > e^-600, ckm in about [1, 2], the
				// powers in [1, 8], om^3 >= (4e-16)^3); Ldexp is exact for
				// a normal result (tk > 1e-260).
				if x := e0 * sh.ckm[k] * (pu[i] * pv[jj] * po[i+jj]); x > 1e-290 {
					tk = math.Ldexp(x, sh.ckE[k]-i*bu-jj*bv)
				}
			} else if sc := e0 * sh.ck[k]; sc > 1e-290 {
				// tk approximates e^(t_k - top_k) (within 1e-9): inside
				// (e^-598, e^29.9) the term needs no new level. Each
				// factor and partial product is a normal float (e0 >
				// e^-600, the powers between (4e-16)^3 and sharedMax^3,
				// sc checked), so each product rounds once.
				tk = sc * (pu[i] * pv[jj] * po[i+jj])
			}
			if tk > 1e-260 && tk < 1e13 {
				fi, fj := float64(i), float64(jj)
				s.addScaled(tk, r+fi*(eu+eps64)+fj*(ev+eps64)+(fi+fj)*eom+sh.ckErr[k]+12*eps64)
				continue
			}
		}
		fi, fj := float64(i), float64(jj)
		xk := t - fi*lu - fj*lv + (fi+fj)*lo
		s.add(xk, r+termUlps*eps64*(fi+fj)*(math.Abs(lo)+math.Abs(lu)+math.Abs(lv)+1)+fi*eu+fj*ev)
	}
}
