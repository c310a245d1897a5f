//! Leave-one-conversation-out: every figure per conversation (fold), their
//! mean, and the cross-validated choice among candidate settings — for each
//! fold, the candidate with the best R@10 on the other four conversations,
//! reported on the held-out one — so no setting is reported on the
//! conversation it was chosen on.

use std::collections::BTreeMap;

use super::Tally;

/// (mode, conversation, category) → tally; category 0 is every category.
pub type ByFold<'a> = BTreeMap<(&'a str, String, u64), Tally>;

pub fn folds(tallies: &ByFold<'_>) -> Vec<String> {
    let mut f: Vec<String> = tallies.keys().map(|(_, c, _)| c.clone()).collect();
    f.sort();
    f.dedup();
    f
}

/// Tallies of `mode` over every conversation but `except`, per category.
fn pooled(tallies: &ByFold<'_>, mode: &str, keep: impl Fn(&str) -> bool) -> BTreeMap<u64, Tally> {
    let mut out: BTreeMap<u64, Tally> = BTreeMap::new();
    for ((m, conv, cat), t) in tallies {
        if *m == mode && keep(conv) {
            out.entry(*cat).or_default().merge(t);
        }
    }
    out
}

/// Per-fold rows (overall) for each mode, then the mean of the folds.
pub fn print_folds(tallies: &ByFold<'_>, modes: &[String]) {
    let folds = folds(tallies);
    println!("\n| mode / held-out conversation | questions | R@1 | R@5 | R@10 | hit@10 |\n|---|---|---|---|---|---|");
    for mode in modes {
        let mut sums = [0.0; 4];
        let (mut n, mut k) = (0usize, 0u32);
        for f in &folds {
            if let Some(t) = tallies.get(&(mode.as_str(), f.clone(), 0)) {
                println!("{}", t.row(&format!("{mode} / {f}")));
                for (s, v) in sums.iter_mut().zip(t.rates()) {
                    *s += v;
                }
                n += t.n;
                k += 1;
            }
        }
        let k = f64::from(k.max(1));
        println!(
            "| **{mode} / mean of folds** | {n} | {:.3} | {:.3} | {:.3} | {:.3} |",
            sums[0] / k,
            sums[1] / k,
            sums[2] / k,
            sums[3] / k
        );
    }
}

/// For each fold, the candidate with the best training R@10 (then R@1); the
/// held-out tallies of the chosen candidates pooled, per category.
pub fn cross_validate<'a>(
    tallies: &ByFold<'a>,
    candidates: &[&'a str],
) -> (Vec<(String, &'a str)>, BTreeMap<u64, Tally>) {
    let mut chosen = Vec::new();
    let mut held_out: BTreeMap<u64, Tally> = BTreeMap::new();
    for f in folds(tallies) {
        let score = |mode: &str| {
            let t = pooled(tallies, mode, |c| c != f)
                .remove(&0)
                .unwrap_or_default();
            (t.r10 / t.n.max(1) as f64, t.r1 / t.n.max(1) as f64)
        };
        let Some(best) = candidates.iter().copied().max_by(|a, b| {
            score(a)
                .partial_cmp(&score(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        }) else {
            continue;
        };
        for (cat, t) in pooled(tallies, best, |c| c == f) {
            held_out.entry(cat).or_default().merge(&t);
        }
        chosen.push((f, best));
    }
    (chosen, held_out)
}
