//! Identifiers as apps and datasets make them, generated from templates of
//! real formats (the issue's `lmc-chat-…_2`, ShareGPT and chat-log ids,
//! UUIDs, hashes, ULIDs, snowflakes, slugs, dates, emails, object ids):
//! none holds a secret, and none may be refused. Beside them, secrets put
//! where an id goes, which must be.

use super::{text, Rng};

pub struct Id {
    pub class: &'static str,
    pub id: String,
}

const WORDS: &[&str] = &[
    "chat", "trip", "notes", "draft", "alpha", "project", "lisbon", "recipe", "weekly", "review",
    "budget", "garden", "story", "q3", "demo", "support", "team", "design", "launch", "music",
];

fn hex(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| char::from_digit(rng.below(16) as u32, 16).unwrap_or('0'))
        .collect()
}

fn from(rng: &mut Rng, alphabet: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| alphabet[rng.below(alphabet.len())] as char)
        .collect()
}

/// `min` to `min + spread - 1` characters of `alphabet`.
fn from_between(rng: &mut Rng, alphabet: &[u8], min: usize, spread: usize) -> String {
    let n = min + rng.below(spread);
    from(rng, alphabet, n)
}

fn digits_between(rng: &mut Rng, min: usize, spread: usize) -> String {
    let n = min + rng.below(spread);
    digits(rng, n)
}

fn uuid(rng: &mut Rng, version: char) -> String {
    format!(
        "{}-{}-{version}{}-{}{}-{}",
        hex(rng, 8),
        hex(rng, 4),
        hex(rng, 3),
        ['8', '9', 'a', 'b'][rng.below(4)],
        hex(rng, 3),
        hex(rng, 12)
    )
}

fn digits(rng: &mut Rng, n: usize) -> String {
    text(&rng.digits(n))
}

fn date(rng: &mut Rng) -> (u32, u32, u32) {
    (
        2015 + rng.below(12) as u32,
        1 + rng.below(12) as u32,
        1 + rng.below(28) as u32,
    )
}

type Template = (&'static str, fn(&mut Rng) -> String);

const BASE62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

fn templates() -> Vec<Template> {
    vec![
        ("lmc chat id", |r| {
            let (y, m, d) = date(r);
            format!(
                "lmc-chat-{}-{:02}{m:02}{d:02}-{}_{}",
                hex(r, 8),
                y % 100,
                hex(r, 8),
                r.below(60)
            )
        }),
        ("sharegpt id", |r| {
            format!("{}_{}", from(r, BASE62, 7), r.below(200))
        }),
        ("prefixed dataset id", |r| match r.below(3) {
            0 => format!("sharegpt_{}_{}", from(r, BASE62, 7), r.below(200)),
            1 => format!("answer_{}", hex(r, 8)),
            _ => format!("ultrachat_{}", digits(r, 6)),
        }),
        ("uuid v4", |r| uuid(r, '4')),
        ("uuid v7", |r| uuid(r, '7')),
        ("uuid without dashes", |r| uuid(r, '4').replace('-', "")),
        ("md5 / sha1 / sha256", |r| {
            let n = *r.pick(&[32, 40, 64]);
            hex(r, n)
        }),
        ("short commit", |r| {
            let n = 7 + r.below(6);
            hex(r, n)
        }),
        ("ulid", |r| from(r, CROCKFORD, 26)),
        ("ksuid", |r| from(r, BASE62, 27)),
        ("nanoid", |r| from(r, URLSAFE, 21)),
        ("snowflake", |r| format!("1{}", digits_between(r, 17, 2))),
        ("epoch seconds or ms", |r| match r.below(2) {
            0 => format!("1{}", digits(r, 9)),
            _ => format!("1{}", digits(r, 12)),
        }),
        ("dated session", |r| {
            let (y, m, d) = date(r);
            format!(
                "{}-{y}{m:02}{d:02}-{:02}{:02}",
                r.pick(WORDS),
                r.below(24),
                r.below(60)
            )
        }),
        ("iso timestamp", |r| {
            let (y, m, d) = date(r);
            format!(
                "{y}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
                r.below(24),
                r.below(60),
                r.below(60)
            )
        }),
        ("slug", |r| {
            let n = 2 + r.below(5);
            let mut parts: Vec<String> = (0..n).map(|_| (*r.pick(WORDS)).to_owned()).collect();
            if r.below(2) == 0 {
                parts.push(r.below(1000).to_string());
            }
            parts.join("-")
        }),
        ("email", |r| {
            format!(
                "{}.{}{}@{}.com",
                r.pick(WORDS),
                r.pick(WORDS),
                r.below(100),
                r.pick(WORDS)
            )
        }),
        ("numbered user", |r| match r.below(4) {
            0 => format!("user_{}", r.below(1_000_000)),
            1 => format!("u-{:05}", r.below(100_000)),
            2 => format!("customer-{}", digits(r, 9)),
            _ => format!("acct{}", digits(r, 12)),
        }),
        ("object id", |r| {
            format!(
                "{}_{}",
                r.pick(&["cus", "sub", "pi", "in", "prod", "evt", "msg", "conv", "run"]),
                from_between(r, BASE62, 14, 12)
            )
        }),
        ("phone as id", |r| {
            format!("+1{}{}", 2 + r.below(8), digits(r, 9))
        }),
        ("dialogue turn", |r| {
            format!("conv-{}:D{}:{}", r.below(50), 1 + r.below(30), r.below(40))
        }),
        ("ticket or order", |r| match r.below(3) {
            0 => format!("ORD-{}-{:06}", 2015 + r.below(12), r.below(1_000_000)),
            1 => format!("PROJ-{}", r.below(10000)),
            _ => format!("INV{}", digits(r, 10)),
        }),
        ("pod name", |r| {
            format!(
                "{}-{}-{}",
                r.pick(WORDS),
                hex(r, 10),
                from(r, b"bcdfghjklmnpqrstvwxz2456789", 5)
            )
        }),
        ("path", |r| {
            let (y, m, d) = date(r);
            format!("uploads/{y}/{m:02}/{d:02}/{}.png", hex(r, 12))
        }),
        ("base64 id", |r| from(r, URLSAFE, 22)),
        ("digits in dashes", |r| {
            let parts: Vec<String> = (0..3).map(|_| digits_between(r, 4, 4)).collect();
            parts.join("-")
        }),
    ]
}

/// `per` ids of every template.
pub fn realistic(per: usize) -> Vec<Id> {
    let mut rng = Rng::new(50);
    let mut out = Vec::new();
    for (class, make) in templates() {
        for _ in 0..per {
            out.push(Id {
                class,
                id: make(&mut rng),
            });
        }
    }
    // The ids the issue quotes, as they were.
    for id in [
        "lmc-chat-09ba9854-170609-4079270e_2",
        "sharegpt_aVExml0_162",
        "answer_96b8c9ee",
    ] {
        out.push(Id {
            class: "quoted in the issue",
            id: id.to_owned(),
        });
    }
    out
}

/// Secrets where an identifier goes: every one must be refused.
pub fn secrets() -> Vec<Id> {
    let mut rng = Rng::new(51);
    let mut out = Vec::new();
    for _ in 0..20 {
        let r = &mut rng;
        for (class, id) in [
            ("OpenAI key", format!("sk-proj-{}", from(r, BASE62, 40))),
            ("Stripe key", format!("sk_live_{}", from(r, BASE62, 24))),
            ("GitHub token", format!("ghp_{}", from(r, BASE62, 36))),
            ("AWS access key", format!("AKIA{}", from(r, CROCKFORD, 16))),
            ("key assignment", format!("api_key={}", from(r, BASE62, 24))),
            (
                "password assignment",
                format!("password={}", from(r, BASE62, 10)),
            ),
            (
                "connection string",
                format!("postgres://app:{}@db.internal/prod", from(r, BASE62, 12)),
            ),
            ("card number", card(r)),
            ("card number in an id", format!("user-{}", card(r))),
        ] {
            out.push(Id { class, id });
        }
    }
    out
}

/// A Visa number with a valid Luhn digit, grouped in fours.
fn card(r: &mut Rng) -> String {
    let mut body = vec![4];
    body.extend(r.digits(14));
    let t = text(&super::secrets::with_luhn(body));
    format!("{} {} {} {}", &t[0..4], &t[4..8], &t[8..12], &t[12..])
}
