//! Time-of-impact kernels: each strategy on the same seeded sweeps of every pair kind.
//!
//! `cargo bench -p toibox-benches --bench toi` prints the time per batch of queries and the queries per second;
//! compare strategies within one run (absolute times drift on shared machines).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toibox::ToiMode;
use toibox::sweeps::{PairKind, generate};

const CASES: usize = 1_000;
const SEED: u64 = 1;

fn toi_kernels(c: &mut Criterion) {
    for kind in PairKind::ALL {
        let cases = generate(kind, CASES, SEED);
        let mut group = c.benchmark_group(kind.name());
        group.throughput(Throughput::Elements(CASES as u64));
        for strategy in [
            ToiMode::Analytic,
            ToiMode::SLICED,
            ToiMode::SLICED_BISECT,
            ToiMode::Discrete,
        ] {
            group.bench_with_input(
                BenchmarkId::from_parameter(&strategy),
                &strategy,
                |b, strategy| {
                    b.iter(|| {
                        cases
                            .iter()
                            .filter(|case| std::hint::black_box(case.query(strategy)).is_hit())
                            .count()
                    });
                },
            );
        }
        group.finish();
    }
}

criterion_group!(benches, toi_kernels);
criterion_main!(benches);
