//! The local embedder's own speed, without server or database: single short
//! texts (a search query) and batches of 10 (an add). Run it with different
//! `RAYON_NUM_THREADS` to see what inference threads buy on this machine:
//!
//! ```sh
//! make env && . .data/env
//! cargo run --release -p engram-embed --example embed_bench -- "$ENGRAM_EMBED_MODEL_DIR" [ROUNDS]
//! ```

use std::time::Instant;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: embed_bench MODEL_DIR [ROUNDS]")?;
    let rounds: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(200);
    let model = engram_embed::MiniLm::load(dir.as_ref())?;
    let text = |i: usize| {
        format!("Caroline: I went to the LGBTQ support group yesterday and it was so powerful, number {i}.")
    };
    model.embed_blocking(&[text(0)])?; // warm-up
    let mut single = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let t = Instant::now();
        model.embed_blocking(&[text(i)])?;
        single.push(t.elapsed().as_secs_f64() * 1e3);
    }
    single.sort_by(f64::total_cmp);
    let batches = (rounds / 10).max(1);
    let t = Instant::now();
    for b in 0..batches {
        let texts: Vec<String> = (0..10).map(|i| text(b * 10 + i)).collect();
        model.embed_blocking(&texts)?;
    }
    let per_text = t.elapsed().as_secs_f64() * 1e3 / (batches * 10) as f64;
    println!(
        "threads {}: single text p50 {:.2} ms p95 {:.2} ms; batches of 10: {:.2} ms per text ({:.0} texts/s)",
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "default".into()),
        percentile(&single, 0.5),
        percentile(&single, 0.95),
        per_text,
        1e3 / per_text
    );
    Ok(())
}
