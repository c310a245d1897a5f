//! Generated corpora for the screens (issue 28): cases made by algorithms
//! (valid numbers from their checksums, phrasings from templates in many
//! languages, renderings with every separator), never listed by hand, and
//! split into a development part and a report part **before** any screen
//! was tuned on them. The split is by template and rendering: the report
//! part's phrasings were never seen while tuning. Only the development
//! part's misses are ever printed; the report part gives figures.
#![allow(dead_code)]

pub mod blind;
pub mod forget;
pub mod identifiers;
pub mod lookalikes;
pub mod multilingual;
pub mod secrets;
pub mod statements;
pub mod steering;

/// A deterministic generator (splitmix64): the corpora are the same on
/// every run and every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x2545_F491_4F6C_DD1D)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn digit(&mut self) -> u32 {
        self.below(10) as u32
    }

    pub fn digits(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.digit()).collect()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn upper(&mut self) -> char {
        (b'A' + self.below(26) as u8) as char
    }

    pub fn lower(&mut self) -> char {
        (b'a' + self.below(26) as u8) as char
    }

    pub fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| A[self.below(A.len())] as char).collect()
    }
}

/// Which part a case belongs to, from the names of its template and
/// rendering: one in three combinations is the report part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Dev,
    Report,
}

pub fn part_of(template: &str, rendering: &str) -> Part {
    // FNV-1a: stable, independent of Rust's hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in template.bytes().chain([0]).chain(rendering.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    if h.is_multiple_of(3) {
        Part::Report
    } else {
        Part::Dev
    }
}

/// Digits as text.
pub fn text(ds: &[u32]) -> String {
    ds.iter()
        .map(|d| char::from_digit(*d, 10).unwrap_or('0'))
        .collect()
}

/// A share, as a percentage with one decimal.
pub fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        return "n/a".into();
    }
    format!("{:.1}%", n as f64 * 100.0 / of as f64)
}

/// Tallies per class and part: (hits, total).
#[derive(Default)]
pub struct Tally {
    pub rows: std::collections::BTreeMap<(String, &'static str), (usize, usize)>,
}

impl Tally {
    pub fn add(&mut self, class: &str, part: Part, hit: bool) {
        let p = if part == Part::Dev { "dev" } else { "report" };
        let e = self.rows.entry((class.to_owned(), p)).or_default();
        e.0 += usize::from(hit);
        e.1 += 1;
    }

    pub fn total(&self, part: &str) -> (usize, usize) {
        self.rows
            .iter()
            .filter(|((_, p), _)| *p == part)
            .fold((0, 0), |(h, t), (_, (a, b))| (h + a, t + b))
    }

    /// One line per class: dev and report side by side.
    pub fn print(&self, title: &str) {
        let classes: std::collections::BTreeSet<&String> =
            self.rows.keys().map(|(c, _)| c).collect();
        eprintln!("{title}");
        eprintln!("  {:<34} {:>16} {:>16}", "class", "dev", "report");
        for c in classes {
            let cell = |p: &'static str| {
                self.rows
                    .get(&(c.clone(), p))
                    .map_or("-".to_owned(), |(h, t)| {
                        format!("{} ({h}/{t})", pct(*h, *t))
                    })
            };
            eprintln!("  {c:<34} {:>16} {:>16}", cell("dev"), cell("report"));
        }
        let (dh, dt) = self.total("dev");
        let (rh, rt) = self.total("report");
        eprintln!(
            "  {:<34} {:>16} {:>16}",
            "all",
            format!("{} ({dh}/{dt})", pct(dh, dt)),
            format!("{} ({rh}/{rt})", pct(rh, rt))
        );
    }
}
