//! Engine throughput: random legal full games per second, through the typed
//! engines the server uses (legal → sample → validate → apply → view).
//!
//!   cargo bench --bench engines
//!
//! Figures and the machine are in docs/benchmarks.md.

use criterion::{Criterion, criterion_group, criterion_main};
use sealed_orders::games::kontor::Kontor;
use sealed_orders::games::malacca::Malacca;
use sealed_orders::games::rng::GameRng;
use sealed_orders::games::{Game, Progress, Viewer, legal};
use serde_json::json;

/// Plays one full random game; answers the number of moves.
fn play<G: Game>(data: &G::Data, seats: usize, options: &G::Options, seed: u8) -> usize {
    let mut setup = GameRng::from_key([seed; 32]);
    let mut state = G::setup(data, seats, options, &mut setup).expect("setup");
    let mut bot = GameRng::from_key([seed ^ 0x5a; 32]);
    let mut moves = 0u64;
    loop {
        let prompt = match G::progress(&state) {
            Progress::Finished(_) => return moves as usize,
            Progress::Active(p) => p,
        };
        let seat = prompt.awaiting[0];
        let listed = G::legal(&state, seat).expect("the awaited seat has moves");
        let action: G::Action =
            serde_json::from_value(legal::sample(&listed, &mut bot).expect("a move"))
                .expect("parse");
        G::validate(&state, seat, &action).expect("legal");
        let mut rng = GameRng::from_key([moves as u8; 32]);
        state = G::apply(&state, seat, &action, &mut rng)
            .expect("apply")
            .state;
        std::hint::black_box(G::view(&state, Viewer::Spectator));
        moves += 1;
    }
}

fn data<G: Game>() -> G::Data {
    let files: Vec<(&str, &str)> = G::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    G::load_data(&files).expect("embedded data")
}

fn engines(c: &mut Criterion) {
    let malacca = data::<Malacca>();
    let mut group = c.benchmark_group("malacca_full_random_game");
    for seats in [4usize, 8] {
        let options = serde_json::from_value(json!({"characters": true, "equipment": true}))
            .expect("options");
        let mut seed = 0u8;
        group.bench_function(format!("{seats}_players"), |b| {
            b.iter(|| {
                seed = seed.wrapping_add(1);
                play::<Malacca>(&malacca, seats, &options, seed)
            })
        });
    }
    group.finish();

    let kontor = data::<Kontor>();
    let mut group = c.benchmark_group("kontor_full_random_game");
    group.sample_size(20);
    let options = serde_json::from_value(json!({"variant": "team"})).expect("options");
    let mut seed = 0u8;
    group.bench_function("team", |b| {
        b.iter(|| {
            seed = seed.wrapping_add(1);
            play::<Kontor>(&kontor, 4, &options, seed)
        })
    });
    group.finish();
}

/// A Malacca game of 4 seats played `moves` random moves in.
fn malacca_after(data: &<Malacca as Game>::Data, moves: usize) -> <Malacca as Game>::State {
    let options =
        serde_json::from_value(json!({"characters": true, "equipment": true})).expect("options");
    let mut state =
        Malacca::setup(data, 4, &options, &mut GameRng::from_key([7; 32])).expect("setup");
    let mut bot = GameRng::from_key([9; 32]);
    for n in 0..moves {
        let Progress::Active(prompt) = Malacca::progress(&state) else {
            break;
        };
        let seat = prompt.awaiting[0];
        let listed = Malacca::legal(&state, seat).expect("moves");
        let action = serde_json::from_value(legal::sample(&listed, &mut bot).expect("a move"))
            .expect("parse");
        state = Malacca::apply(&state, seat, &action, &mut GameRng::from_key([n as u8; 32]))
            .expect("apply")
            .state;
    }
    state
}

/// What a match read spends on its view: the typed view serialized into the
/// answer through a `serde_json::Value` tree (as before) or straight to text.
fn match_read_view(c: &mut Criterion) {
    #[derive(serde::Serialize)]
    struct Answer<V> {
        view: V,
    }
    let malacca = data::<Malacca>();
    let state = malacca_after(&malacca, 40);
    let mut group = c.benchmark_group("malacca_match_read_view");
    group.bench_function("through_value", |b| {
        b.iter(|| {
            let view = serde_json::to_value(Malacca::view(&state, Viewer::Seat(0))).expect("view");
            serde_json::to_vec(&Answer { view }).expect("answer")
        })
    });
    group.bench_function("raw_text", |b| {
        b.iter(|| {
            let view = serde_json::value::to_raw_value(&Malacca::view(&state, Viewer::Seat(0)))
                .expect("view");
            serde_json::to_vec(&Answer { view }).expect("answer")
        })
    });
    group.finish();
}

criterion_group!(benches, engines, match_read_view);
criterion_main!(benches);
