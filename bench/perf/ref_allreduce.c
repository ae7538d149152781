/* The plainest honest MPI latency loop, for bench/perf/latency_vs_loop.sh:
 * MPI_Init (single-threaded, as OSU and IMB), buffers aligned to the page
 * (as OSU allocates them), barrier, MPI_Wtime around one MPI_Allreduce,
 * repeat; per iteration the slowest rank's time (as parbench reports),
 * then the median and the interquartile mean (the mean of the middle
 * half: as robust as the median, and finer than the clock's tick).
 * usage: pb_ref_allreduce BYTES ITERS WARMUP
 *
 * PB_REF_TOUCH_MB=N (an experiment, off by default): N MiB written and
 * kept before MPI_Init, as a process that loads large libraries does
 * before main (parbench's CUDA build maps cuBLAS: ~100 MB).  At 16 MiB
 * the loop's all-reduce is then as fast as parbench's (doc/benchmarks.md:
 * the pages Open MPI's single-copy path pins one by one are laid out
 * differently). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *touch = getenv("PB_REF_TOUCH_MB");
    size_t touch_bytes = touch ? (size_t)atoll(touch) << 20 : 0;
    char *ballast = touch_bytes ? malloc(touch_bytes) : NULL;
    if (ballast)
        memset(ballast, 1, touch_bytes);
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: %s BYTES ITERS WARMUP\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long long bytes = atoll(argv[1]);
    int iters = atoi(argv[2]), warm = atoi(argv[3]);
    int count = (int)(bytes / 4);
    size_t bytes_al = ((size_t)count * 4 + 4 + 4095) / 4096 * 4096;
    float *s = aligned_alloc(4096, bytes_al), *r = aligned_alloc(4096, bytes_al);
    double *t = malloc((size_t)iters * sizeof *t);
    if (!s || !r || !t)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(s, 0, (size_t)count * 4 + 4);
    for (int i = 0; i < warm; i++)
        MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(s, r, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        t[i] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        qsort(t, (size_t)iters, sizeof *t, cmp);
        double med = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2.0;
        double sum = 0.0;
        int lo = iters / 4, hi = iters - iters / 4;
        for (int i = lo; i < hi; i++)
            sum += t[i];
        printf("%lld %.3f %.4f\n", bytes, med * 1e6, sum / (hi - lo) * 1e6);
    }
    free(s);
    free(r);
    free(t);
    free(ballast);
    MPI_Finalize();
    return 0;
}
