# median_ci.awk - ci_rank(n): the lower rank j (1-based) of the
# distribution-free 95 % interval of the median of n sorted samples,
# [x(j), x(n + 1 - j)]; 1 (the whole range) where no 95 % interval exists
# (n < 6).  The same rule as util/pb_stats.c's pb_median_ci95_ranks, for
# the bench/perf scripts that compute their intervals outside parbench:
# up to 70 samples the exact sign-test rank (the largest j with
# P(Bin(n, 1/2) <= j - 1) <= 0.025), above that Le Boudec's
# floor(n/2 - 0.98 sqrt(n)).  Prepend it to an awk program.
function ci_rank(n,   i, j, p, tail) {
    if (n > 70) { j = int(n / 2 - 0.98 * sqrt(n)); return j < 1 ? 1 : j }
    p = 0.5 ^ n; tail = 0; j = 0
    for (i = 0; i <= n / 2; i++) {
        tail += p
        if (tail > 0.025) break
        j = i + 1
        p = p * (n - i) / (i + 1)
    }
    return j < 1 ? 1 : j
}
