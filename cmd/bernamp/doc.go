// Bernamp computes the Rényi privacy amplification of Bernoulli sampling
// (Imola and Chaudhuri, ICML 2021) on a grid of points.
//
// Usage:
//
//	bernamp <command> [flags]
//	bernamp help [COMMAND | TOPIC]
//
// The commands are:
//
//	bounds   closed-form bounds LB and UB only, for every grid point
//	post     the certified solver, for every grid point
//	grid     bounds or post on the grid of a JSON grid file:
//	         bernamp grid [flags] FILE.json (docs/grids.md); with --write
//	         FILE it writes the grid file of the axis flags and post's
//	         solver flags instead (--command bounds for a bounds grid):
//	         bernamp grid --write sweep.json --d 1:4:1 --eps 0.1:5:0.1
//	merge    combine the CSV files of the shards of a grid into one, in grid
//	         order, checking that every point is in exactly one:
//	         bernamp merge (--grid FILE.json | axis flags) [--out FILE] SHARD.csv...
//	demo     post on a grid of the paper (--preset fig1, the default: Figure
//	         1; fig2; fig3), 3 s a point at most (--timeout): writes the
//	         CSV and draws the figure in the folder --dir (default
//	         bernamp-demo, created if missing) and prints a summary per
//	         (d, k, c); --verify also exports the certificate of every
//	         point proved by the pieces certificate to
//	         DIR/certificates/<preset>/, re-checks them (as verify) and
//	         prints the count
//	plot     draw a CSV of post or bounds as an image: curves (LB, post,
//	         post_upper, eps, d k r_alpha(c) against eps) or gaps
//	compose  (eps, delta) after T adaptive steps of a mechanism given by its
//	         whole privacy profile, released through Bernoulli samples: the
//	         exact amplified profile composed (eps_upper, the claim) and one
//	         real mechanism composed (eps_lower), beside the RDP route and the
//	         unamplified mechanism (docs/compose.md):
//	         bernamp compose --mechanism gaussian|laplace|rr|subsampled-gaussian|
//	         rdp|profile [--sigma S] [--sensitivity D] [--b B] [--q Q]
//	         [--p-true P] [--in FILE] [--d LIST] [--k LIST] [--c LIST]
//	         [--steps LIST] (--delta D | --eps E) [--discretization H]
//	         [--format table|csv|json] [--emit-pld FILE] [--single-pair E]
//	         [--rdp-timeout DUR] [--rdp-budget DUR] [--quiet];
//	         --plan FILE composes steps of several kinds (JSON). The RDP
//	         route (eps_rdp, an upper bound) solves only the orders that
//	         could lower it, most to gain first, within --rdp-budget (default
//	         30s, summed over orders); orders past it keep the closed-form
//	         upper bound UB, with a warning. A run longer than 10s writes a
//	         progress line (rows, the route's orders) to stderr every 10s,
//	         terminal or not (--quiet: none)
//	curve    amplify an RDP curve order by order, convert it to (eps, delta)
//	         and compare with the generic bounds of Balle et al. (docs/curve.md)
//	calibrate
//	         the smallest c, largest k or smallest sigma/b whose proved
//	         amplified guarantee after --steps releases meets --eps, --delta:
//	         bernamp calibrate --solve c|k|sigma|b --eps E [--delta D]
//	         [--steps T] (--mechanism ... | --in FILE) (docs/calibrate.md);
//	         each Post stops at --timeout (default 10s for calibrate, the
//	         proved bound at the limit is used), and a search whose work by
//	         estimate (orders x the fewest candidates x 0.02 s + 3e-5 s x
//	         Params.Cost per Post, at most --timeout) is over --max-work
//	         (default 2m, Post time summed over workers) is refused (exit
//	         2): shrink it with --orders, --resolution or --timeout
//	pure     the exact amplified pure-DP level (alpha = inf), closed form
//	delta    the exact amplified delta' of an (eps, delta)-DP mechanism at each
//	         eps' (hockey-stick divergence, docs/hockey.md):
//	         bernamp delta --eps E (--delta DL | --gaussian SIGMA) [--d D] [--k K]
//	         [--c C] [--eps-out LIST] [--conversion balle2020|mironov2017]
//	         [--rdp-timeout DUR] [--format csv|json]
//	         [--profile FILE [--profile-step H] [--profile-max E]]; with
//	         --gaussian also the delta of the amplified RDP curve (rdp_route);
//	         --profile writes the privacy profile delta'(eps') on eps' = i H,
//	         |eps'| <= E (default E = d k log((1-c)/c), H = 1e-4), rounded up,
//	         with its connect-the-dots privacy loss distribution, as JSON for
//	         the PLD and PRV accountants (docs/hockey.md, "Privacy profiles");
//	         from one (eps, delta) pair: composed, it can lose to no
//	         amplification (use compose for a mechanism's whole profile)
//	conjecture
//	         the pieces certificate of the conjecture Post = LB (n = d k) at
//	         random points of a wide box: counts the points proved, open and
//	         violated (bernamp conjecture [--points N] [--seed S] [--out FILE])
//	serve    serve the calculator page, the engine in WebAssembly, over
//	         HTTP on 127.0.0.1:8080 (bernamp serve [--addr HOST:PORT]); the
//	         module is embedded when go generate ./web ran before the build
//	         (docs/web.md)
//	verify   check certificate files written by post --certificate-out
//	         independently of the solver, in exact and interval arithmetic:
//	         bernamp verify [--workers N] FILE...; one line per file,
//	         accept or reject with the first failing item; exit 0 when all
//	         are accepted, 1 when one is rejected or cannot be read, 2 when
//	         one is malformed (docs/certificates.md, "Exported certificates")
//	help     this list; help COMMAND: what the command does and its flags,
//	         as COMMAND -h prints them (from the flags themselves); help
//	         TOPIC: one of the topics
//
// The topics are grids, ranges, output, runs, memory, exit, plot, curve,
// pure, conjecture and examples.
//
// # Grids
//
// bounds and post take the grid as flags (grid takes it from a file). Each
// of --d, --k, --c, --alpha and --eps takes a comma list such as 1,2,4 or a
// range start:stop:step, which includes stop when it lands on it within
// 1e-9 relative; range values are start + i*step rounded to 12 significant
// digits, so 0.1:0.5:0.1 gives 0.1,0.2,0.3,0.4,0.5. The grid is the
// cartesian product in the order d, k, c, alpha, eps (eps varies fastest).
// theta lies in [c, 1-c]^d; eps is the mechanism's RDP level in nats at
// the Rényi order alpha.
//
// # Ranges
//
// Per-coordinate ranges (bounds and post): --range lo:hi,lo:hi,... gives
// theta_l in [lo_l, hi_l], 0 < lo < hi < 1, one range per coordinate, in
// place of --d and --c (not with --resume or --shard). The CSV column c is
// then "ranges", lo:hi;lo:hi;... (JSON: c is 0 and ranges holds them). For
// asymmetric ranges the Theorem 4 pair (lb) is not always optimal; post is
// the best verified witness of a search over supports of at most 4 corners
// (d <= 5). The upper side is the pieces certificate of the symmetric
// ranges [c_l, 1-c_l], c_l = min(lo_l, 1-hi_l), which contain them (JSON's
// pieces record; docs/engine.md, "Ranges"), else the closed form min(eps,
// k sum_l max R_alpha(lo_l, hi_l)); --certificate-out writes the pieces
// bound's file (kind ranges, or pieces where every c_l is equal) or, where
// post_upper is ub, the closed form with groups (docs/certificates.md).
//
// # Output
//
// Output has one record per grid point, in grid order, written as soon as it
// is known; the solver starts the points it estimates longest first. The CSV columns are
//
//	d,k,c,alpha,eps,lb,ub,post,post_upper,status,check,seconds
//
// and LB <= post <= post_upper <= UB is a proved interval for Post: a privacy
// claim must use post_upper. status is certified, witness or bounds; check
// is the independent check of the certificate behind post_upper (the
// pieces proof or the closed form): verified, rejected (post_upper is then
// ub, never certified on it), none (no certificate file) or off
// (--no-check). JSON output is an
// array with one object per line holding the same fields plus ranges (with
// --range), ub_post_processing, ub_asymptote, thm2, excess, conjecture,
// method, witness {corners, p, q, value, div_pq, div_qp}, search {boxes,
// open, cuts, evals, complete, open_bound, configs, searched, deep, pruned}
// (the last four for d >= 2), pieces {n, upper, proved, boxes, violation,
// seconds}, check_report {tiles, boxes, failure, seconds} and note; an
// object is omitted where its engine did not run (bounds runs none), note
// where every engine ran. The table format has the CSV's columns. Rows
// where a verified witness refutes the paper's conjecture Post = LB are
// also reported on stderr, with the witness.
//
// Every row is cross-checked (lb <= post <= post_upper <= ub); a failure is
// reported on stderr and makes the exit status 1 once all rows are written.
//
// # Runs
//
// --workers N points are solved in parallel (default GOMAXPROCS, the number
// of usable CPUs); a grid of fewer points shares the rest among them. In
// post and demo, --certify (default true) proves post_upper by the
// two-point-pieces certificate, within --timeout or else one minute per
// point; --certify=false skips it and post_upper is the closed form. Unless
// --no-check, the independent checker (bernamp verify's) re-proves the
// certificate behind each post_upper: a bound it does not accept is not
// used and post_upper is ub (post, grid, demo, curve, calibrate; delta's
// delta_out_upper; compose's RDP route). --method picks the evaluator of the configuration
// search for d >= 2: reduced (the default; outputs grouped by bit pattern)
// or full (all 2^d corners, the paper's program; (k+1)^d <= 2^20 outputs).
// --timeout is a Go duration such as 30s; 0 means none (the default in post;
// 3s in demo). --certificate-out DIR (post) writes a certificate file to DIR
// for each point proved by the pieces certificate
// (d<d>-k<k>-c<c>-alpha<alpha>-eps<eps>.json), for bernamp verify. --force
// allows grids of more than 100000 points (at most 100000000). --no-timing
// writes 0 in the seconds column, so output is byte-identical between runs.
//
// --out FILE writes the rows as CSV to FILE instead of stdout, in grid
// order; each point also goes to FILE.journal as soon as it finishes, so a
// killed run loses no finished point (the journal is removed when FILE is
// complete), and FILE.lock keeps a second run off FILE (demo: default
// <preset>.csv in --dir). --resume, with --out, keeps the rows in FILE and
// FILE.journal, drops a partial last line and computes only the missing
// points; the final file equals that of an uninterrupted run. --shard i/n
// runs only shard i of n, 0 <= i < n: the points, longest estimated cost
// first, go each to the shard with the least estimated cost so far, so
// shards are balanced and disjoint (merge joins their files); the run says
// its shard's share in one line on stderr. The progress line is
// shown on stderr only when it is a terminal; --quiet hides it. demo takes
// --preset (fig1, fig2 or fig3), --figure (the figure to draw from the CSV,
// .png, .svg or .pdf; default <preset>.png in --dir, "" for none) and --dir
// (the folder of its files, default bernamp-demo, created if missing; a
// relative --out or --figure names a file in it).
//
// # Memory
//
// --max-memory SIZE is the memory cap of the run, by estimate before any
// work (default 1GiB; bytes or a number with KB, MB, GB, KiB, MiB, GiB): a
// grid whose schedule exceeds it is refused (exit 2), and in post each point
// gets the cap over the points run at once; an exact engine past it, or past
// its reach (configuration search: about 2.4e8 output evaluations, d <= 25
// at k = 1; d = 1 search: k <= 100000; pieces certificate: d k <= 10^6), or
// at alpha < 1 + 1e-13/max(tol, 1e-9) (1.0001 at the default tol: float64
// cannot resolve tol in (alpha-1) R_alpha) does not run, and the row keeps
// the closed forms (status bounds) with a note field in JSON saying why. The
// other commands check their size before any work and refuse in one line
// (exit 2): input files (curve and calibrate --in, plot --in, merge's shards
// and --grid, verify's certificates) of more than a sixteenth of
// --max-memory; curve and calibrate --orders of more than 10000 values (each
// is one Post); conjecture runs at most --max-memory /
// certify.MemoryBytes(--max-boxes) points at once and refuses a --max-boxes
// whose one point exceeds the cap. delta and pure have fixed caps on their
// work (hockey.MaxWork, the --profile sizes; the LP sizes) and no
// --max-memory.
//
// # Exit
//
// Exit status: 0 on success, 1 on a runtime failure or interruption (rows
// already finished are kept), 2 on invalid input, which is rejected before
// any work. Invalid input is a command line that is wrong whatever the
// files hold: an unknown command or flag, a flag value out of its domain,
// or a grid file (grid, merge --grid) or curve file (curve --in) whose
// content is malformed. A file that cannot be opened, read or written (a
// missing input file, an output in a missing directory) exits 1, as do CSV
// rows given to merge, plot or --resume that do not fit (another header or
// grid, a truncated or corrupted row). Every failure is one line on stderr.
//
// # Plot
//
// plot draws a CSV of post or bounds (--in, - for stdin) as an image (--out;
// .png, .svg or .pdf picks the format). --view curves (the default) draws
// LB, post, post_upper, eps and d k r_alpha(c) against eps; --view gap draws
// post_upper-post and ub-lb on a log scale, gaps below 1e-15 nats drawn at
// 1e-15. --panels c draws a column of panels per c, --panels k per k
// (default: whichever of c and k varies, else c). --width and --height are
// in inches (default 4 per column, 3 per row plus the legend; at most 200);
// PNG is 96 dpi. Uncertified points are drawn hollow, with a bar up to
// post_upper.
//
// # Curve
//
// curve takes the mechanism's RDP curve from --mechanism: gaussian (--sigma
// S, noise multiplier, L2 sensitivity 1), laplace (--b B, scale, L1
// sensitivity 1) or rr (--p-true P, probability of the true bit, or
// --noise-parameter Q, dp_accounting's probability of a uniform answer: P =
// 1 - Q/2), on --orders (default dp_accounting's 156: 1.1..10.9 step 0.1,
// 11..63, 128..1024); or from --in FILE, an accountant's curve, CSV rows
// alpha,eps or JSON {"orders": [...], "rdp": [...]}: eps may be inf; a dip
// in eps is repaired with a warning; orders <= 1, negative or NaN eps are
// rejected (exit 2); repeat --in to sum curves (orders in common). The
// kernel is one --d, --k and --c. The summary converts at --delta by
// --conversion: balle2020 (the default, Balle et al. 2020 Thm 21),
// mironov2017 or dp_accounting (its rule: KL line, Thm 21 above 1.01).
// --compose T composes T releases in the summary and in --emit-curve (the
// thm1 rows only at T = 1). --summary FILE writes the summary as CSV (with
// --format csv it otherwise goes to stderr).
//
// curve writes one row per order,
//
//	d,k,c,alpha,eps,lb,post,post_upper,status,check,dobrushin,doeblin,ultra_mixing,seconds
//
// then (eps, delta) rows: mechanism, bernamp, rdp_dobrushin, rdp_doeblin,
// rdp_ultra_mixing, thm1_dobrushin, thm1_dobrushin_hs, thm1_doeblin,
// thm1_ultra_mixing ("none" where a bound proves nothing).
//
// # Pure
//
// pure takes --d, --k, --c and --eps (the pure-DP level of the mechanism,
// nats) as lists or ranges, --method closed (the default) or lp (linear
// programs, d <= 6, k <= 16, each checked against the closed form), --range
// lo:hi,... (per-coordinate ranges in place of --d and --c; the column c
// becomes ranges), and writes
//
//	d,k,c,eps,eps_out,eps_out_lower,eps_out_upper,asymptote,ultra_mixing,method
//
// eps_out = log((e^eps rho + 1)/(rho + e^eps)), rho = ((1-c)/c)^(d k), is
// exact over all of [c, 1-c]^d (package puredp); eps_out_lower and
// eps_out_upper enclose it (claim eps_out_upper), asymptote is d k
// log((1-c)/c) rounded up, ultra_mixing the eps' of Balle et al.'s Theorem 1
// item (4) at delta = 0 (empty beyond d k = 2^22).
//
// # Conjecture
//
// conjecture draws --points points (n, c, alpha, eps) with seed --seed, each
// coordinate log-uniform over its range (alpha - 1 for alpha; n over the
// integers; certify.SurveyPoints) in the box of --n-min to --eps-max, and
// runs the pieces certificate (docs/certificates.md) at each, at most
// --max-boxes boxes and --timeout per point (a point cut by the time limit
// depends on the machine's speed): proved means LB <= Post <= upper <= LB +
// tol for every d, k with d k = n; open means the box or time limit came
// first; violation means a point (vp, vq) was found where the inequality
// with the first-order multipliers fails (a finding). --out FILE writes one
// row per point, in point order:
//
//	n,c,alpha,eps,lb,upper,gap,status,violation,vp,vq,boxes,seconds
//
// It prints the counts (proved + open + violation = points), the largest and
// median gap upper - lb of the open points, the time per point and the
// violation points with their numbers. Interrupted, it keeps the rows
// finished, prints their summary and exits 1.
//
// # Examples
//
//	bernamp post --d 1 --k 1,2 --c 0.1 --alpha 5 --eps 0.5:2:0.5
//	bernamp bounds --d 1:4:1 --c 0.01,0.1 --alpha 50 --eps 0.1:5:0.1 --format json
//	bernamp demo --preset fig2
//	bernamp grid --write sweep.json --d 1:4:1 --k 1,2 --eps 0.1:5:0.1
//	bernamp grid --shard 0/4 --out part0.csv testdata/grids/fig2.json
//	bernamp curve --mechanism gaussian --sigma 2 --c 0.1 --delta 1e-5 --format table
//	bernamp pure --d 1,2 --k 1,4 --c 0.1 --eps 0.5,1,5 --format table
//	bernamp conjecture --points 200 --seed 1 --out survey.csv
package main
