//! Secrets, generated: valid numbers from their algorithms (cards, IBANs,
//! two dozen national id and tax numbers), passwords, PINs, tokens, seed
//! phrases, credentials in configuration and on command lines, one-time
//! codes, in phrasings of many languages, rendered with every separator.
//! The check digits here are computed independently of the screen's own
//! validators.

use super::{part_of, text, Part, Rng};

pub struct Case {
    pub class: String,
    pub part: Part,
    pub text: String,
    /// What must not survive redaction (the secret as written).
    pub secret: String,
}

// ---- check digits -----------------------------------------------------------------

fn luhn_check(body: &[u32]) -> u32 {
    // The digit that makes body + digit pass Luhn.
    let sum: u32 = body
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    (10 - sum % 10) % 10
}

pub fn with_luhn(mut body: Vec<u32>) -> Vec<u32> {
    let c = luhn_check(&body);
    body.push(c);
    body
}

pub fn card(rng: &mut Rng) -> (String, Vec<u32>) {
    let (brand, mut body, len): (&str, Vec<u32>, usize) = match rng.below(5) {
        0 => ("Visa", vec![4], 16),
        1 => ("Mastercard", vec![5, 1 + rng.digit() % 5], 16),
        2 => ("Amex", vec![3, if rng.below(2) == 0 { 4 } else { 7 }], 15),
        3 => ("Discover", vec![6, 0, 1, 1], 16),
        _ => ("JCB", vec![3, 5, 2 + rng.digit() % 7], 16),
    };
    while body.len() < len - 1 {
        body.push(rng.digit());
    }
    (brand.into(), with_luhn(body))
}

pub fn iban(rng: &mut Rng) -> String {
    let (cc, bban): (&str, String) = match rng.below(8) {
        0 => ("DE", text(&rng.digits(18))),
        1 => (
            "GB",
            format!(
                "{}{}{}{}{}",
                rng.upper(),
                rng.upper(),
                rng.upper(),
                rng.upper(),
                text(&rng.digits(14))
            ),
        ),
        2 => ("FR", text(&rng.digits(23))),
        3 => ("ES", text(&rng.digits(20))),
        4 => ("IT", format!("{}{}", rng.upper(), text(&rng.digits(22)))),
        5 => (
            "NL",
            format!(
                "{}{}{}{}{}",
                rng.upper(),
                rng.upper(),
                rng.upper(),
                rng.upper(),
                text(&rng.digits(10))
            ),
        ),
        6 => ("PL", text(&rng.digits(24))),
        _ => ("CH", text(&rng.digits(17))),
    };
    // ISO 13616: check = 98 - (bban + cc + "00") mod 97.
    let moved = format!("{bban}{cc}00");
    let mut rem: u64 = 0;
    for c in moved.chars() {
        let v = c.to_digit(36).unwrap_or(0) as u64;
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    format!("{cc}{:02}{bban}", 98 - rem)
}

/// An id: its name in a sentence, and its digits or characters as written
/// in its own format.
struct Id {
    names: &'static [&'static str],
    written: String,
}

fn weighted(ds: &[u32], w: &[u32]) -> u32 {
    ds.iter().zip(w).map(|(a, b)| a * b).sum()
}

fn id(rng: &mut Rng) -> Id {
    let kind = rng.below(24);
    let d = |n: usize, rng: &mut Rng| rng.digits(n);
    match kind {
        0 => {
            // Brazil CPF
            let mut ds = d(9, rng);
            ds[0] = 1 + ds[0] % 9;
            for n in [9, 10] {
                let s: u32 = (0..n).map(|i| ds[i] * (n as u32 + 1 - i as u32)).sum();
                let r = (s * 10) % 11;
                ds.push(if r == 10 { 0 } else { r });
            }
            let t = text(&ds);
            let written = if rng.below(2) == 0 {
                format!("{}.{}.{}-{}", &t[0..3], &t[3..6], &t[6..9], &t[9..])
            } else {
                t
            };
            Id {
                names: &["CPF", "my CPF number", "CPF (Brazilian tax id)"],
                written,
            }
        }
        1 => {
            // India Aadhaar: Verhoeff
            const D: [[usize; 10]; 10] = [
                [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
                [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
                [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
                [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
                [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
                [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
                [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
                [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
                [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
            ];
            const P: [[usize; 10]; 8] = [
                [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
                [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
                [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
                [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
                [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
                [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
                [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
            ];
            const INV: [usize; 10] = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];
            let mut ds = d(11, rng);
            ds[0] = 2 + ds[0] % 8;
            let mut c = 0;
            for (i, &x) in ds.iter().rev().enumerate() {
                c = D[c][P[(i + 1) % 8][x as usize]];
            }
            ds.push(INV[c] as u32);
            let t = text(&ds);
            Id {
                names: &["Aadhaar", "Aadhaar number", "UIDAI Aadhaar no."],
                written: format!("{} {} {}", &t[0..4], &t[4..8], &t[8..]),
            }
        }
        2 => {
            // Turkey TC Kimlik
            let mut ds = d(9, rng);
            ds[0] = 1 + ds[0] % 9;
            let odd = ds[0] + ds[2] + ds[4] + ds[6] + ds[8];
            let even = ds[1] + ds[3] + ds[5] + ds[7];
            ds.push((odd * 7 + 100 - even) % 10);
            let s: u32 = ds.iter().sum();
            ds.push(s % 10);
            Id {
                names: &["TC Kimlik No", "T.C. kimlik numaram", "Turkish ID number"],
                written: text(&ds),
            }
        }
        3 => {
            // Poland PESEL
            let mut ds = vec![
                rng.digit(),
                rng.digit(),
                0,
                1 + rng.digit() % 9,
                1 + rng.digit() % 2,
                rng.digit() % 8 + 1,
            ];
            ds.extend(d(4, rng));
            let s = weighted(&ds, &[1, 3, 7, 9, 1, 3, 7, 9, 1, 3]);
            ds.push((10 - s % 10) % 10);
            Id {
                names: &["PESEL", "numer PESEL", "my PESEL"],
                written: text(&ds),
            }
        }
        4 => {
            // Russia SNILS
            let ds = loop {
                let ds = d(9, rng);
                let s: u32 = (0..9).map(|i| ds[i] * (9 - i as u32)).sum();
                let c = match s % 101 {
                    100 => 0,
                    r => r,
                };
                if c < 100 {
                    let mut all = ds.clone();
                    all.push(c / 10);
                    all.push(c % 10);
                    break all;
                }
            };
            let t = text(&ds);
            Id {
                names: &["СНИЛС", "SNILS", "мой СНИЛС"],
                written: format!("{}-{}-{} {}", &t[0..3], &t[3..6], &t[6..9], &t[9..]),
            }
        }
        5 => {
            // Russia INN (person, 12 digits)
            let mut ds = d(10, rng);
            let c = |ds: &[u32], w: &[u32]| weighted(ds, w) % 11 % 10;
            let c11 = c(&ds, &[7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
            ds.push(c11);
            let c12 = c(&ds, &[3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
            ds.push(c12);
            Id {
                names: &["ИНН", "INN", "мой ИНН"],
                written: text(&ds),
            }
        }
        6 => {
            // Iran code melli
            let mut ds = d(9, rng);
            let s: u32 = (0..9).map(|i| ds[i] * (10 - i as u32)).sum();
            let r = s % 11;
            ds.push(if r < 2 { r } else { 11 - r });
            Id {
                names: &["code melli", "Iranian national code", "کد ملی"],
                written: text(&ds),
            }
        }
        7 => {
            // Canada SIN
            let mut body = d(8, rng);
            body[0] = 1 + body[0] % 7;
            let ds = with_luhn(body);
            let t = text(&ds);
            Id {
                names: &[
                    "SIN",
                    "social insurance number",
                    "Social Insurance Number (SIN)",
                ],
                written: format!("{} {} {}", &t[0..3], &t[3..6], &t[6..]),
            }
        }
        8 => {
            // Netherlands BSN (11-proof)
            let ds = loop {
                let mut ds = d(8, rng);
                ds[0] = 1 + ds[0] % 9;
                let s: u32 = (0..8).map(|i| ds[i] * (9 - i as u32)).sum();
                let c = s % 11;
                if c < 10 {
                    ds.push(c);
                    break ds;
                }
            };
            Id {
                names: &["BSN", "burgerservicenummer", "mijn BSN"],
                written: text(&ds),
            }
        }
        9 => {
            // South Korea RRN
            let mut ds = vec![
                rng.digit(),
                rng.digit(),
                0,
                1 + rng.digit() % 9,
                1 + rng.digit() % 2,
                1 + rng.digit() % 8,
                1 + rng.digit() % 4,
            ];
            ds.extend(d(5, rng));
            let s = weighted(&ds, &[2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]);
            ds.push((11 - s % 11) % 10);
            let t = text(&ds);
            Id {
                names: &["주민등록번호", "resident registration number", "RRN"],
                written: format!("{}-{}", &t[0..6], &t[6..]),
            }
        }
        10 => {
            // Thailand
            let mut ds = d(12, rng);
            ds[0] = 1 + ds[0] % 8;
            let s: u32 = (0..12).map(|i| ds[i] * (13 - i as u32)).sum();
            ds.push((11 - s % 11) % 10);
            Id {
                names: &["Thai ID", "Thai national ID number", "บัตรประชาชน"],
                written: text(&ds),
            }
        }
        11 => {
            // South Africa: YYMMDD SSSS C A Z
            let mut ds = vec![
                rng.digit(),
                rng.digit(),
                0,
                1 + rng.digit() % 9,
                1 + rng.digit() % 2,
                1 + rng.digit() % 8,
            ];
            ds.extend(d(4, rng));
            ds.push(rng.digit() % 2);
            ds.push(8);
            let ds = with_luhn(ds);
            Id {
                names: &["South African ID", "SA ID number", "my ID number"],
                written: text(&ds),
            }
        }
        12 => {
            // Japan My Number
            let mut ds = d(11, rng);
            let s: u32 = (1..=11)
                .map(|n| ds[11 - n] * if n <= 6 { n as u32 + 1 } else { n as u32 - 5 })
                .sum();
            let r = s % 11;
            ds.push(if r <= 1 { 0 } else { 11 - r });
            let t = text(&ds);
            Id {
                names: &["マイナンバー", "My Number", "個人番号"],
                written: format!("{} {} {}", &t[0..4], &t[4..8], &t[8..]),
            }
        }
        13 => {
            // Sweden personnummer YYMMDD-NNNC
            let mut ds = vec![
                rng.digit(),
                rng.digit(),
                0,
                1 + rng.digit() % 9,
                1 + rng.digit() % 2,
                1 + rng.digit() % 8,
            ];
            ds.extend(d(3, rng));
            let ds = with_luhn(ds);
            let t = text(&ds);
            Id {
                names: &[
                    "personnummer",
                    "mitt personnummer",
                    "Swedish personal identity number",
                ],
                written: format!("{}-{}", &t[0..6], &t[6..]),
            }
        }
        14 => {
            // France NIR
            let mut ds = vec![
                1 + rng.digit() % 2,
                rng.digit(),
                rng.digit(),
                0,
                1 + rng.digit() % 9,
            ];
            ds.extend(d(8, rng));
            let n = ds.iter().fold(0u64, |a, &x| a * 10 + x as u64);
            let key = 97 - (n % 97) as u32;
            let t = text(&ds);
            Id {
                names: &[
                    "numéro de sécurité sociale",
                    "NIR",
                    "French social security number",
                ],
                written: format!(
                    "{} {} {} {} {} {} {:02}",
                    &t[0..1],
                    &t[1..3],
                    &t[3..5],
                    &t[5..7],
                    &t[7..10],
                    &t[10..13],
                    key
                ),
            }
        }
        15 => {
            // Argentina CUIT
            let ds = loop {
                let mut ds = vec![2, 0];
                ds.extend(d(8, rng));
                let s = weighted(&ds, &[5, 4, 3, 2, 7, 6, 5, 4, 3, 2]);
                let c = 11 - s % 11;
                if c < 10 {
                    ds.push(if c == 11 { 0 } else { c });
                    break ds;
                }
            };
            let t = text(&ds);
            Id {
                names: &["CUIT", "mi CUIT", "CUIL"],
                written: format!("{}-{}-{}", &t[0..2], &t[2..10], &t[10..]),
            }
        }
        16 => {
            // Chile RUT
            let body = d(8, rng);
            let mut sum = 0;
            for (i, x) in body.iter().rev().enumerate() {
                sum += x * (2 + (i as u32 % 6));
            }
            let c = match 11 - sum % 11 {
                11 => "0".to_owned(),
                10 => "K".to_owned(),
                r => r.to_string(),
            };
            let t = text(&body);
            Id {
                names: &["RUT", "mi RUT", "RUN"],
                written: format!("{}.{}.{}-{c}", &t[0..2], &t[2..5], &t[5..8]),
            }
        }
        17 => {
            // China resident id
            let mut ds = d(6, rng);
            ds[0] = 1 + ds[0] % 6;
            ds.extend([
                1,
                9,
                6 + rng.digit() % 4,
                rng.digit(),
                0,
                1 + rng.digit() % 9,
                1 + rng.digit() % 2,
                1 + rng.digit() % 8,
            ]);
            ds.extend(d(3, rng));
            let w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
            let r = weighted(&ds, &w) % 11;
            let c = "10X98765432".chars().nth(r as usize).unwrap_or('0');
            Id {
                names: &["身份证号", "身份证", "Chinese resident ID"],
                written: format!("{}{c}", text(&ds)),
            }
        }
        18 => {
            // Italy codice fiscale
            const ODD: [u32; 26] = [
                1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22,
                25, 24, 23,
            ];
            let mut s = String::new();
            for _ in 0..6 {
                s.push(rng.upper());
            }
            s.push_str(&text(&rng.digits(2)));
            s.push(*rng.pick(&['A', 'B', 'C', 'D', 'E', 'H', 'L', 'M', 'P', 'R', 'S', 'T']));
            s.push_str(&format!("{:02}", 1 + rng.below(28)));
            s.push(rng.upper());
            s.push_str(&text(&rng.digits(3)));
            let mut sum = 0;
            for (i, c) in s.chars().enumerate() {
                let v = c.to_digit(10).unwrap_or_else(|| c as u32 - 'A' as u32);
                sum += if i % 2 == 0 { ODD[v as usize] } else { v };
            }
            s.push((b'A' + (sum % 26) as u8) as char);
            Id {
                names: &[
                    "codice fiscale",
                    "il mio codice fiscale",
                    "Italian tax code",
                ],
                written: s,
            }
        }
        19 => {
            // Singapore NRIC
            let ds = d(7, rng);
            let sum = weighted(&ds, &[2, 7, 6, 5, 4, 3, 2]);
            let c = "JZIHGFEDCBA"
                .chars()
                .nth((sum % 11) as usize)
                .unwrap_or('A');
            Id {
                names: &["NRIC", "my NRIC", "Singapore IC"],
                written: format!("S{}{c}", text(&ds)),
            }
        }
        20 => {
            // Spain DNI / NIE
            let nie = rng.below(2) == 0;
            let ds = d(if nie { 7 } else { 8 }, rng);
            let lead = if nie { "Y" } else { "" };
            let n: u64 = format!("{}{}", if nie { "1" } else { "" }, text(&ds))
                .parse()
                .unwrap_or(0);
            let c = "TRWAGMYFPDXBNJZSQVHLCKE"
                .chars()
                .nth((n % 23) as usize)
                .unwrap_or('T');
            Id {
                names: if nie {
                    &["NIE", "mi NIE", "número de NIE"]
                } else {
                    &["DNI", "mi DNI", "Spanish DNI"]
                },
                written: format!("{lead}{}{c}", text(&ds)),
            }
        }
        21 => {
            // US SSN
            let area = 100 + rng.below(565);
            Id {
                names: &["SSN", "social security number", "Social Security no."],
                written: format!(
                    "{area:03}-{:02}-{:04}",
                    1 + rng.below(98),
                    1 + rng.below(9998)
                ),
            }
        }
        22 => {
            // Israel Teudat Zehut
            let ds = loop {
                let ds = d(9, rng);
                let s: u32 = ds
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| {
                        let p = x * (1 + (i as u32 % 2));
                        if p > 9 {
                            p - 9
                        } else {
                            p
                        }
                    })
                    .sum();
                if s.is_multiple_of(10) {
                    break ds;
                }
            };
            Id {
                names: &["teudat zehut", "Israeli ID number", "ID number"],
                written: text(&ds),
            }
        }
        _ => {
            // Portugal NIF
            let mut ds = d(8, rng);
            ds[0] = *rng.pick(&[1, 2, 3, 5, 6, 8, 9]);
            let s = weighted(&ds, &[9, 8, 7, 6, 5, 4, 3, 2]);
            let r = 11 - s % 11;
            ds.push(if r >= 10 { 0 } else { r });
            Id {
                names: &["NIF", "o meu NIF", "número de contribuinte (NIF)"],
                written: text(&ds),
            }
        }
    }
}

// ---- renderings ------------------------------------------------------------------

/// How digit groups are joined, by name.
const SEPARATORS: &[(&str, &str)] = &[
    ("space", " "),
    ("none", ""),
    ("dash", "-"),
    ("dot", "."),
    ("slash", "/"),
    ("nbsp", "\u{00A0}"),
    ("newline", "\n"),
    ("spaced-dash", " - "),
    ("zero-width", "\u{200B}"),
    ("en-dash", "\u{2013}"),
];

fn grouped(ds: &[u32], sizes: &[usize], sep: &str) -> String {
    let t = text(ds);
    let mut out = Vec::new();
    let mut at = 0;
    for &n in sizes {
        if at >= t.len() {
            break;
        }
        let end = (at + n).min(t.len());
        out.push(&t[at..end]);
        at = end;
    }
    if at < t.len() {
        out.push(&t[at..]);
    }
    out.join(sep)
}

fn full_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(0xFF10 + (c as u32 - '0' as u32)).unwrap_or(c),
            _ => c,
        })
        .collect()
}

fn spelled(ds: &[u32], lang: usize) -> String {
    const WORDS: [[&str; 10]; 4] = [
        [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        ],
        [
            "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
        ],
        [
            "zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
        ],
        [
            "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
        ],
    ];
    ds.iter()
        .map(|&d| WORDS[lang % 4][d as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- phrasings --------------------------------------------------------------------

const CARD_TEMPLATES: &[&str] = &[
    "my card number is {v}",
    "here's my credit card: {v}",
    "Kartennummer: {v}",
    "mi tarjeta es {v}",
    "numéro de carte {v}",
    "card {v} exp 04/28",
    "pay with {v} please",
    "{v}",
    "the number on my Visa is {v} and the expiry is next year",
    "Use my card {v} for the booking.",
    "il numero della carta è {v}",
    "номер карты {v}",
    "クレジットカード番号は{v}です",
    "my debit card, {v}, was charged twice",
];

const IBAN_TEMPLATES: &[&str] = &[
    "my IBAN is {v}",
    "IBAN: {v}",
    "wire it to {v}",
    "Meine IBAN lautet {v}",
    "mon RIB : {v}",
    "transfer the money to {v} by Friday",
    "bank account {v}",
    "{v}",
    "mi cuenta es {v}",
];

const ID_TEMPLATES: &[&str] = &[
    "my {n} is {v}",
    "{n}: {v}",
    "here is my {n} {v}",
    "{n} {v}",
    "for the form, {n} = {v}",
    "I wrote down my {n}, it's {v}",
    "{v} is my {n}",
    "the clerk asked for my {n}: {v}.",
];

const PASSWORD_TEMPLATES: &[&str] = &[
    "my password is {v}",
    "my password is now {v}",
    "the password for the wifi: {v}",
    "I use {v} as my password",
    "{v} is my new password",
    "password: {v}",
    "pw {v}",
    "wifi password {v}",
    "Netflix password: {v}",
    "the login is bob and the password is {v}",
    "mein Passwort ist {v}",
    "das WLAN-Passwort lautet {v}",
    "mon mot de passe est {v}",
    "mi contraseña es {v}",
    "la mia password è {v}",
    "minha senha é {v}",
    "mijn wachtwoord is {v}",
    "mitt lösenord är {v}",
    "moje hasło to {v}",
    "мой пароль: {v}",
    "пароль от почты {v}",
    "şifrem {v}",
    "私のパスワードは{v}です",
    "我的密码是{v}",
    "비밀번호는 {v}",
    "kata sandi saya {v}",
    "mật khẩu là {v}",
    "password to my email is \"{v}\"",
    "the router's password was changed to {v}",
    "I set my laptop password to {v}",
    "remember my password {v}",
    "Passwort für das Konto: {v}",
    "my new password's {v}",
    "salasana on {v}",
];

const PIN_TEMPLATES: &[&str] = &[
    "my PIN is {v}",
    "PIN: {v}",
    "the door code is {v}",
    "alarm code {v}",
    "the gate code: {v}",
    "CVV {v}",
    "meine PIN ist {v}",
    "mi PIN es {v}",
    "mon code PIN est {v}",
    "the combination to the safe is {v}",
    "the code for the building is {v}",
    "unlock code is {v}",
    "暗証番号は{v}です",
    "my ATM pin, {v}",
];

const OTP_TEMPLATES: &[&str] = &[
    "the code they texted me is {v}",
    "verification code: {v}",
    "my 2FA code is {v}",
    "they sent me {v} by SMS to log in",
    "the one-time code was {v}",
    "Bestätigungscode {v}",
    "el código de verificación es {v}",
    "login code {v}, it expires soon",
    "验证码是{v}",
];

const TOKEN_TEMPLATES: &[&str] = &[
    "my API key is {v}",
    "use this token: {v}",
    "{v}",
    "export OPENAI_API_KEY={v}",
    "here is the key {v} for the staging server",
    "Authorization: Bearer {v}",
];

const CONFIG_TEMPLATES: &[&str] = &[
    "DB_PASS={v}",
    "jwt_secret={v}",
    "PGPASSWORD={v} psql -h db",
    "client_secret: {v}",
    "\"api_key\": \"{v}\"",
    "AUTH_TOKEN = '{v}'",
    "sshpass -p {v} ssh root@10.0.0.4",
    "curl -u admin:{v} https://api.example.com",
    "mysql -u root -p{v} shop",
    "docker login -u me -p {v}",
    "./deploy --password={v}",
    "Authorization: Basic {v}",
    "postgres://app:{v}@db.internal:5432/main",
    "https://alice:{v}@git.example.com/repo.git",
    "wget --password={v} https://files.example.com/a.zip",
    "SMTP_PASSWORD: {v}",
];

const SEED_TEMPLATES: &[&str] = &[
    "my seed phrase is {v}",
    "recovery phrase: {v}",
    "{v}",
    "wallet words {v}",
];

const PASSPORT_TEMPLATES: &[&str] = &[
    "my passport number is {v}",
    "passport no. {v}",
    "Reisepass {v}",
    "driver's license number {v}",
    "número de pasaporte: {v}",
];

const MARKER_TEMPLATES: &[&str] = &[
    "[REDACTED {v}]",
    "my password is [REDACTED {v}]",
    "[REDACTED password: {v}]",
];

pub fn password(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "maple", "aspen", "rowan", "cedar", "river", "falcon", "tiger", "lotus", "amber", "cobalt",
        "willow", "ember", "orchid", "saturn", "harbor", "medved", "sakura", "panda", "girasol",
        "bergsee", "tulpen", "soleil", "praia", "lavender", "copper", "granite",
    ];
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let a = *rng.pick(WORDS);
    let b = *rng.pick(WORDS);
    match rng.below(6) {
        0 => format!("{}{}{}", cap(a), 10 + rng.below(90), b),
        1 => format!("{}{}!", cap(a), 1000 + rng.below(9000)),
        2 => format!("{}_{}#{}", a, b, rng.below(100)),
        3 => format!("{}{}", cap(a), 1950 + rng.below(70)),
        4 => rng.alnum(12),
        _ => format!("{}{}{}${}", cap(a), cap(b), rng.below(10), rng.below(10)),
    }
}

pub fn token(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => format!("sk-proj-{}", rng.alnum(40)),
        1 => format!("ghp_{}", rng.alnum(36)),
        2 => format!("AKIA{}", (0..16).map(|_| rng.upper()).collect::<String>()),
        3 => format!(
            "xoxb-{}-{}-{}",
            text(&rng.digits(11)),
            text(&rng.digits(12)),
            rng.alnum(24)
        ),
        4 => format!("AIza{}", rng.alnum(35)),
        5 => format!("glpat-{}", rng.alnum(20)),
        6 => format!("sk_live_{}", rng.alnum(24)),
        _ => format!(
            "eyJ{}.eyJ{}.{}",
            rng.alnum(20),
            rng.alnum(30),
            rng.alnum(43)
        ),
    }
}

fn config_value(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => password(rng),
        1 => rng.alnum(16),
        _ => format!("{}{}", rng.alnum(8), 10 + rng.below(90)),
    }
}

fn seed(rng: &mut Rng) -> (String, String) {
    let words = bip39::Language::English.word_list();
    let n = if rng.below(2) == 0 { 12 } else { 24 };
    let chosen: Vec<&str> = (0..n).map(|_| words[rng.below(2048)]).collect();
    match rng.below(5) {
        0 => ("spaces".into(), chosen.join(" ")),
        1 => (
            "numbered".into(),
            chosen
                .iter()
                .enumerate()
                .map(|(i, w)| format!("{}. {w}", i + 1))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        2 => ("dashes".into(), chosen.join("-")),
        3 => (
            "lines".into(),
            chosen
                .iter()
                .enumerate()
                .map(|(i, w)| format!("{}) {w}", i + 1))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => ("commas".into(), chosen.join(", ")),
    }
}

/// Every generated secret case.
pub fn cases() -> Vec<Case> {
    let mut rng = Rng::new(28);
    let mut out = Vec::new();
    let push = |class: &str, template: &str, rendering: &str, v: &str, out: &mut Vec<Case>| {
        out.push(Case {
            class: class.to_owned(),
            part: part_of(template, rendering),
            text: template.replace("{v}", v),
            secret: v.to_owned(),
        });
    };
    for t in CARD_TEMPLATES {
        for (sep_name, sep) in SEPARATORS {
            for _ in 0..2 {
                let (brand, ds) = card(&mut rng);
                let sizes: &[usize] = if brand == "Amex" {
                    &[4, 6, 5]
                } else {
                    &[4, 4, 4, 4, 3]
                };
                let v = grouped(&ds, sizes, sep);
                push("card number", t, sep_name, &v, &mut out);
            }
        }
        let (_, ds) = card(&mut rng);
        push(
            "card number",
            t,
            "full-width",
            &full_width(&grouped(&ds, &[4, 4, 4, 4], " ")),
            &mut out,
        );
    }
    for t in IBAN_TEMPLATES {
        for (rendering, sep) in [
            ("grouped", " "),
            ("compact", ""),
            ("dashes", "-"),
            ("dots", "."),
            ("nbsp", "\u{00A0}"),
        ] {
            for _ in 0..3 {
                let s = iban(&mut rng);
                let grouped: Vec<String> = s
                    .as_bytes()
                    .chunks(4)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                let mut v = grouped.join(sep);
                if rng.below(4) == 0 {
                    v = v.to_lowercase();
                }
                push("bank account (IBAN)", t, rendering, &v, &mut out);
            }
        }
    }
    for t in ID_TEMPLATES {
        for i in 0..24 * 3 {
            let id = id(&mut rng);
            let name = id.names[i % id.names.len()];
            let text = t.replace("{n}", name);
            out.push(Case {
                class: "national id or tax number".into(),
                part: part_of(t, name),
                text: text.replace("{v}", &id.written),
                secret: id.written,
            });
        }
    }
    for t in PASSWORD_TEMPLATES {
        for (rendering, wrap) in [("plain", "{}"), ("quoted", "'{}'"), ("zero-width", "z")] {
            for _ in 0..3 {
                let p = password(&mut rng);
                let v = match wrap {
                    "z" => {
                        let mid = p.len() / 2;
                        format!("{}\u{200B}{}", &p[..mid], &p[mid..])
                    }
                    w => w.replace("{}", &p),
                };
                push("password", t, rendering, &v, &mut out);
            }
        }
    }
    for t in PIN_TEMPLATES {
        for rendering in ["digits", "spaced", "spelled", "full-width"] {
            for _ in 0..3 {
                let n = 4 + rng.below(3);
                let ds = rng.digits(n);
                let v = match rendering {
                    "digits" => text(&ds),
                    "spaced" => grouped(&ds, &[1, 1, 1, 1, 1, 1], " "),
                    "spelled" => spelled(&ds, rng.below(4)),
                    _ => full_width(&text(&ds)),
                };
                push("PIN or code", t, rendering, &v, &mut out);
            }
        }
    }
    for t in OTP_TEMPLATES {
        for rendering in ["six", "eight", "spaced"] {
            for _ in 0..3 {
                let ds = rng.digits(if rendering == "eight" { 8 } else { 6 });
                let v = if rendering == "spaced" {
                    grouped(&ds, &[3, 3], " ")
                } else {
                    text(&ds)
                };
                push("one-time code", t, rendering, &v, &mut out);
            }
        }
    }
    for t in TOKEN_TEMPLATES {
        for _ in 0..16 {
            let v = token(&mut rng);
            let provider = v.chars().take(4).collect::<String>();
            push("API token", t, &provider, &v, &mut out);
        }
    }
    for t in CONFIG_TEMPLATES {
        for rendering in ["a", "b", "c"] {
            for _ in 0..2 {
                let v = config_value(&mut rng);
                push(
                    "credential in configuration or a command",
                    t,
                    rendering,
                    &v,
                    &mut out,
                );
            }
        }
    }
    for t in SEED_TEMPLATES {
        for _ in 0..10 {
            let (rendering, v) = seed(&mut rng);
            push("seed phrase", t, &rendering, &v, &mut out);
        }
    }
    for t in PASSPORT_TEMPLATES {
        for rendering in ["letter-digits", "digits"] {
            for _ in 0..3 {
                let v = if rendering == "digits" {
                    text(&rng.digits(9))
                } else {
                    format!("{}{}", rng.upper(), text(&rng.digits(8)))
                };
                push("passport or licence number", t, rendering, &v, &mut out);
            }
        }
    }
    for t in MARKER_TEMPLATES {
        for rendering in ["password", "token", "pin"] {
            for _ in 0..4 {
                let v = match rendering {
                    "password" => password(&mut rng),
                    "token" => token(&mut rng),
                    _ => text(&rng.digits(4)),
                };
                push("secret inside a fake marker", t, rendering, &v, &mut out);
            }
        }
    }
    out
}

/// Two turns, a secret split across them: (class, part, first, second, secret
/// pieces of the first and of the second).
pub fn split_cases() -> Vec<(Part, String, String, String, String)> {
    let mut rng = Rng::new(2828);
    let mut out = Vec::new();
    let firsts = [
        "my card number is {a}",
        "card: {a}",
        "IBAN {a}",
        "the number is {a}",
    ];
    let seconds = [
        "{b}",
        "{b} and that's it",
        "and then {b}",
        "{b} (sorry, it got cut)",
    ];
    for (i, f) in firsts.iter().enumerate() {
        for s in seconds {
            for _ in 0..4 {
                let (brand, ds) = card(&mut rng);
                let sizes: &[usize] = if brand == "Amex" {
                    &[4, 6, 5]
                } else {
                    &[4, 4, 4, 4]
                };
                let v = grouped(&ds, sizes, " ");
                let cut = v.len() / 2 - 1;
                let cut = v[..cut].rfind(' ').unwrap_or(cut);
                let (a, b) = (v[..cut].trim().to_owned(), v[cut..].trim().to_owned());
                out.push((
                    part_of(f, s),
                    f.replace("{a}", &a),
                    s.replace("{b}", &b),
                    a,
                    b,
                ));
                let _ = i;
            }
        }
    }
    out
}
