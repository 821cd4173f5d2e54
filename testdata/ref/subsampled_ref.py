"""dp_accounting 0.6.0's Poisson-subsampled Gaussian PLD (both directions,
connect-the-dots, value_discretization_interval 1e-4) composed T times:
eps at delta 1e-5, and delta at eps 1, for testdata/ref/subsampled_ref.csv.

Run: PYTHONPATH=../shared/vendor/dp_accounting /usr/bin/python3 testdata/ref/subsampled_ref.py > testdata/ref/subsampled_ref.csv
"""
import sys

from dp_accounting.pld import privacy_loss_distribution as pld

print("sigma,q,T,h,eps_at_1e-5,delta_at_1")
for sigma in (1.0, 2.0):
    for q in (0.01, 0.1):
        base = pld.from_gaussian_mechanism(sigma, sensitivity=1, sampling_prob=q,
                                           value_discretization_interval=1e-4)
        for t in (1, 10, 100):
            p = base if t == 1 else base.self_compose(t)
            print(f"{sigma!r},{q!r},{t},0.0001,{p.get_epsilon_for_delta(1e-5)!r},{p.get_delta_for_epsilon(1.0)!r}")
            print(f"sigma {sigma} q {q} T {t}", file=sys.stderr)
