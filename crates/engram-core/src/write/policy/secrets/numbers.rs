//! Numbers that are secrets by what they are: payment cards, bank accounts
//! and national identity or tax numbers, recognised by their checksums.
//!
//! A number is read as a run of digit groups with any separators between
//! them (spaces, dots, dashes, slashes, line breaks, up to three in a row),
//! so `4111/1111/1111/1111` and a card split over two lines are one number.
//! Every window of consecutive groups is tried against every validator of
//! its length, so a number next to a date or a price is still found.
//!
//! A checksum alone is weak evidence for a short all-digit number (a random
//! 9-digit number passes the Dutch 11-proof one time in eleven): such
//! numbers count only in a sentence that names an identity document or a
//! tax or insurance number (`ID_CONTEXT`), or written in their country's own
//! format (`123.456.789-09` for a CPF). Numbers whose structure carries a
//! date or letters (a Chinese resident id, an Italian codice fiscale) count
//! anywhere.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::re;

/// A number found: its kind, and its bytes.
pub(super) struct Found {
    pub kind: &'static str,
    pub range: Range<usize>,
}

const CARD: &str = "card number";
const BANK: &str = "bank account number";
const ID: &str = "national id number";

/// Digit groups and what separates them: at most three separators in a
/// row, or the end of a turn and up to three short words ("and then") when
/// turns are read together (`TURN`).
static DIGIT_RUN: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\d+(?:(?:[ \t\r\n.\-/_:,]{1,3}|[ \n]*\x1E(?:\s*[\p{L}'’]{1,10}){0,3}[\s:,]*)\d+)*")
});

/// What joins turns read together (`redact_together`): a record separator.
pub(super) const TURN: &str = "\n\u{1E}";

/// Words that make a number in the same sentence an identity, tax or
/// insurance number, in the languages of the secret words.
static ID_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:aadh?aar|uidai|cpf|tc\s*kimlik|kimlik|pesel|steuer-?id|steuer-?identifikationsnummer|",
        r"steuernummer|identifikationsnummer|snils|inn|melli|code\s+melli|sin|social\s+insurance|bsn|",
        r"burgerservicenummer|sofi-?nummer|teudat\s+zehut|nif|nie|dni|thai\s+id|id\s+number|id\s+no|",
        r"id\s*#|id\s+card|identity\s+(?:number|card|document)|identification\s+number|national\s+id|",
        r"national\s+identity|national\s+insurance|personal\s+(?:id|number|identity)|personnummer|",
        r"personal\s+code|tax\s+(?:id|number|code|identification)|taxpayer|tin|ssn|social\s+security|",
        r"resident\s+registration|rrn|nir|s[ée]curit[ée]\s+sociale|num[ée]ro\s+de\s+s[ée]cu|national\s+code|",
        r"insee|registre\s+national|rijksregisternummer|cuit|cuil|rut|nik|nin|cnic|passport|pasaporte|",
        r"passeport|reisepass|passaporto|licen[cs]e\s+number|driver'?s\s+licen[cs]e|f[üu]hrerschein|",
        r"codice\s+fiscale|curp|pan\s+(?:card|number)|personalausweis|ausweis(?:nummer)?|c[ée]dula|",
        r"carte\s+d'identit[ée]|carta\s+d'identit[àa]|identidade|nric|hkid|citizen|",
        r"numer\s+pesel|dowód|číslo|rodné\s+číslo|henkilötunnus|cpr|fødselsnummer|personnummer)\b|",
        r"паспорт|снилс|инн|身份证|身分證|マイナンバー|個人番号|주민등록번호|بطاقة|کد\s*ملی|شناسه|บัตรประชาชน|",
        // Written so, "ID" and "My Number" are the document.
        r"(?-i:\bID\b|\bMy Number\b)"
    ))
});

/// Every checksummed number in `text` (normalised already).
pub(super) fn find(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    for run in DIGIT_RUN.find_iter(text) {
        let groups = groups(text, run.range());
        let total: usize = groups.iter().map(|g| g.len()).sum();
        for a in 0..groups.len() {
            let mut digits = String::new();
            for b in a..groups.len() {
                digits.push_str(&text[groups[b].clone()]);
                if digits.len() > 19 {
                    break;
                }
                // Part of a longer number only when what is left is short
                // (a card and its expiry), not one number inside another
                // (a 22-digit tracking number holds a Luhn-valid 16).
                if total - digits.len() > 4 {
                    continue;
                }
                let range = groups[a].start..groups[b].end;
                let written = &text[range.clone()];
                if let Some(kind) = classify(&digits, written, || context(text, &range)) {
                    out.push(Found { kind, range });
                }
            }
        }
    }
    for (pattern, check, kind) in LETTERED.iter() {
        for m in pattern.find_iter(text) {
            if check(m.as_str()) {
                // The IBAN pattern runs on into the words after it ("… 00
                // and I work at Bosch"): only the IBAN itself is the secret.
                let len = match *kind == BANK {
                    true => iban_in(m.as_str()).unwrap_or(m.len()),
                    false => m.len(),
                };
                out.push(Found {
                    kind,
                    range: m.start()..m.start() + len,
                });
            }
        }
    }
    out
}

/// Whether a number found in an identifier (`written`, inside `whole`)
/// cannot be a coincidence of its digits: a card written as cards are
/// (one run, or groups of four, or Amex's 4-6-5), an IBAN (two check
/// digits behind a country code), an identity number only when it is the
/// whole identifier (a date and a serial, with one check digit, is what a
/// dated id looks like too).
pub(super) fn unmistakable(kind: &str, written: &str, whole: &str) -> bool {
    let groups: Vec<usize> = written
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect();
    match kind {
        CARD => {
            groups.len() == 1
                || groups == [4, 6, 5]
                || groups
                    .split_last()
                    .is_some_and(|(last, fours)| fours.iter().all(|&g| g == 4) && *last <= 4)
        }
        BANK => true,
        _ => written.trim() == whole.trim(),
    }
}

/// The digit groups of a run.
fn groups(text: &str, run: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text[run.clone()].char_indices() {
        let i = run.start + i;
        match (c.is_ascii_digit(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..run.end);
    }
    out
}

/// Whether the words around `range` (80 bytes before, 40 after, within its
/// line) name an identity document, and not some other kind of number
/// ("order ID", "user ID").
fn context(text: &str, range: &Range<usize>) -> bool {
    let start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let start = floor(text, start.max(range.start.saturating_sub(80)));
    let end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |i| range.end + i)
        .min(range.end + 40);
    let window = &text[start..floor(text, end)];
    ID_CONTEXT.is_match(window) && !NOT_ID.is_match(window)
}

/// Numbers that are identifiers of something other than a person.
static NOT_ID: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:order|user|customer|transaction|booking|tracking|session|request|invoice|product|item|ticket|reference|ref|shipment|parcel|package|flight|room|seat|model|serial|part|sku|account|device|app|client|merchant|store)\s+(?:id|number|no|#)",
    )
});

fn floor(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// What an all-digit number is, if anything: `written` is it as written
/// (its separators tell its format), `named` whether its sentence names an
/// identity document.
fn classify(digits: &str, written: &str, named: impl Fn() -> bool) -> Option<&'static str> {
    let ds: Vec<u32> = digits.chars().filter_map(|c| c.to_digit(10)).collect();
    if ds.len() < 9 || ds.iter().all(|&d| d == ds[0]) {
        return None;
    }
    if (13..=19).contains(&ds.len()) && is_card(&ds) {
        return Some(CARD);
    }
    // Written in its country's own format: enough by itself.
    if FORMATTED
        .iter()
        .any(|(format, check)| format.is_match(written) && check(&ds))
    {
        return Some(ID);
    }
    if ds.len() == 15 && french(&ds) {
        return Some(ID);
    }
    // Bare digits: a checksum, and a sentence that names the document.
    let weak: [(usize, Check); 21] = [
        (12, aadhaar),
        (11, cpf),
        (11, tc_kimlik),
        (11, pesel),
        (11, steuer_id),
        (11, snils),
        (11, belgian),
        (11, cuit),
        (10, iran),
        (10, inn),
        (12, inn),
        (9, sin),
        (9, bsn),
        (9, israeli),
        (9, nif_pt),
        (13, thai),
        (13, south_african),
        (13, korean),
        (12, my_number),
        (10, swedish),
        (12, swedish),
    ];
    let fits = weak.iter().any(|(n, check)| *n == ds.len() && check(&ds));
    (fits && named()).then_some(ID)
}

/// A check over a number's digits.
type Check = fn(&[u32]) -> bool;

/// Identity numbers written in their own country's format, with its check.
static FORMATTED: LazyLock<Vec<(Regex, Check)>> = LazyLock::new(|| {
    let formats: [(&str, Check); 9] = [
        (r"^\d{3}\.\d{3}\.\d{3}-\d{2}$", cpf),
        (r"^\d{3}-\d{3}-\d{3} \d{2}$", snils),
        (r"^\d{2}-\d{8}-\d$", cuit),
        (r"^\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}$", belgian),
        (r"^\d{6}-\d{7}$", korean),
        (r"^\d{6}[-+]\d{4}$", swedish),
        (r"^\d{8}[-+]\d{4}$", swedish),
        (r"^[12] \d{2} \d{2} \d{2} \d{3} \d{3} \d{2}$", french),
        (r"^\d{5}-\d{7}-\d$", |_| true), // a Pakistani CNIC: its format alone
    ];
    formats.into_iter().map(|(f, c)| (re(f), c)).collect()
});

/// Numbers with letters in them, each with its check.
type Lettered = (Regex, fn(&str) -> bool, &'static str);
static LETTERED: LazyLock<Vec<Lettered>> = LazyLock::new(|| {
    vec![
        (
            re(r"(?i)\b[a-z]{2}\d{2}(?:[ \-.]?[a-z0-9]){11,30}\b"),
            iban_prefix_ok,
            BANK,
        ),
        (re(r"\b\d{17}[\dXx]\b"), chinese, ID),
        (
            re(r"(?i)\b[a-z]{6}\d{2}[a-z]\d{2}[a-z]\d{3}[a-z]\b"),
            codice_fiscale,
            ID,
        ),
        (re(r"\b[A-Z]{4}\d{6}[HM][A-Z]{5}[A-Z0-9]\d\b"), curp, ID),
        (re(r"\b[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]\b"), |_| true, ID), // India PAN
        (re(r"(?i)\b[STFGM]\d{7}[A-Z]\b"), nric, ID),
        (re(r"(?i)\b[XYZ]?\d{7,8}[- ]?[A-Z]\b"), dni, ID),
        (re(r"(?i)\b\d{7,8}-[\dK]\b"), rut, ID),
        (re(r"(?i)\b\d{1,2}\.\d{3}\.\d{3}-[\dK]\b"), rut, ID),
    ]
});

// ---- the checks -----------------------------------------------------------------

pub(super) fn luhn(ds: &[u32]) -> bool {
    let sum: u32 = ds
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| match (i % 2, d * 2) {
            (1, x) if x > 9 => x - 9,
            (1, x) => x,
            _ => d,
        })
        .sum();
    sum.is_multiple_of(10)
}

fn prefix(ds: &[u32], k: usize) -> u32 {
    ds.iter().take(k).fold(0u32, |a, &d| a * 10 + d)
}

/// A payment card number: an issuer's prefix and length, and the Luhn check.
pub(super) fn is_card(ds: &[u32]) -> bool {
    let n = ds.len();
    let issuer = match ds.first() {
        Some(4) => matches!(n, 13 | 16 | 19),
        Some(5) => (51..=55).contains(&prefix(ds, 2)) && n == 16,
        Some(2) => (2221..=2720).contains(&prefix(ds, 4)) && n == 16,
        Some(3) => {
            (matches!(prefix(ds, 2), 34 | 37) && n == 15)
                || (prefix(ds, 2) == 35 && (16..=19).contains(&n))
                || (matches!(prefix(ds, 2), 30 | 36 | 38 | 39) && (14..=19).contains(&n))
        }
        Some(6) => {
            (prefix(ds, 4) == 6011
                || prefix(ds, 2) == 65
                || (644..=649).contains(&prefix(ds, 3))
                || prefix(ds, 2) == 62)
                && (16..=19).contains(&n)
        }
        _ => false,
    };
    issuer && luhn(ds)
}

fn weighted(ds: &[u32], weights: &[u32]) -> u32 {
    ds.iter().zip(weights).map(|(d, w)| d * w).sum()
}

fn valid_date(yy: u32, mm: u32, dd: u32) -> bool {
    (1..=12).contains(&mm) && (1..=31).contains(&dd) && yy <= 99
}

/// Brazil CPF: two mod-11 check digits.
fn cpf(ds: &[u32]) -> bool {
    if ds.len() != 11 {
        return false;
    }
    let check = |n: usize| {
        let s: u32 = (0..n).map(|i| ds[i] * (n as u32 + 1 - i as u32)).sum();
        let r = (s * 10) % 11;
        if r == 10 {
            0
        } else {
            r
        }
    };
    check(9) == ds[9] && check(10) == ds[10]
}

/// India Aadhaar: 12 digits, not starting 0 or 1, Verhoeff check digit.
fn aadhaar(ds: &[u32]) -> bool {
    const D: [[u32; 10]; 10] = [
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
    const P: [[u32; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    if ds.len() != 12 || ds[0] < 2 {
        return false;
    }
    let mut c = 0usize;
    for (i, &d) in ds.iter().rev().enumerate() {
        c = D[c][P[i % 8][d as usize] as usize] as usize;
    }
    c == 0
}

/// Turkey TC Kimlik No.
fn tc_kimlik(ds: &[u32]) -> bool {
    if ds.len() != 11 || ds[0] == 0 {
        return false;
    }
    let odd = ds[0] + ds[2] + ds[4] + ds[6] + ds[8];
    let even = ds[1] + ds[3] + ds[5] + ds[7];
    let d10 = ((odd * 7 + 100) - even) % 10;
    let d11 = ds[..10].iter().sum::<u32>() % 10;
    d10 == ds[9] && d11 == ds[10]
}

/// Poland PESEL: weights 1 3 7 9, and a date.
fn pesel(ds: &[u32]) -> bool {
    if ds.len() != 11 {
        return false;
    }
    let s = weighted(ds, &[1, 3, 7, 9, 1, 3, 7, 9, 1, 3]);
    let month = (ds[2] * 10 + ds[3]) % 20;
    (10 - s % 10) % 10 == ds[10] && (1..=12).contains(&month)
}

/// Germany Steuer-ID: ISO 7064 MOD 11,10, first digit not 0, one digit
/// repeated among the first ten.
fn steuer_id(ds: &[u32]) -> bool {
    if ds.len() != 11 || ds[0] == 0 {
        return false;
    }
    let mut counts = [0u32; 10];
    for &d in &ds[..10] {
        counts[d as usize] += 1;
    }
    let repeated = counts.iter().filter(|&&c| c >= 2).count();
    if repeated != 1 || counts.iter().any(|&c| c > 3) {
        return false;
    }
    let mut product = 10u32;
    for &d in &ds[..10] {
        let mut sum = (d + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = (sum * 2) % 11;
    }
    let check = (11 - product) % 10;
    check == ds[10]
}

/// Russia SNILS.
fn snils(ds: &[u32]) -> bool {
    if ds.len() != 11 {
        return false;
    }
    let s: u32 = (0..9).map(|i| ds[i] * (9 - i as u32)).sum();
    let check = match s % 101 {
        100 => 0,
        r => r,
    };
    check == ds[9] * 10 + ds[10]
}

/// Russia INN, 10 (organisations) or 12 (people) digits.
fn inn(ds: &[u32]) -> bool {
    let c = |w: &[u32]| weighted(ds, w) % 11 % 10;
    match ds.len() {
        10 => c(&[2, 4, 10, 3, 5, 9, 4, 6, 8]) == ds[9],
        12 => {
            c(&[7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == ds[10]
                && c(&[3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) == ds[11]
        }
        _ => false,
    }
}

/// Iran national code (code melli).
fn iran(ds: &[u32]) -> bool {
    if ds.len() != 10 {
        return false;
    }
    let s: u32 = (0..9).map(|i| ds[i] * (10 - i as u32)).sum();
    let r = s % 11;
    ds[9] == if r < 2 { r } else { 11 - r }
}

/// Canada SIN: Luhn, not starting 0 or 8.
fn sin(ds: &[u32]) -> bool {
    ds.len() == 9 && !matches!(ds[0], 0 | 8) && luhn(ds)
}

/// Netherlands BSN: the 11-proof.
fn bsn(ds: &[u32]) -> bool {
    if ds.len() != 9 {
        return false;
    }
    let s: i64 = (0..8).map(|i| ds[i] as i64 * (9 - i as i64)).sum::<i64>() - ds[8] as i64;
    s % 11 == 0 && s != 0
}

/// Israel Teudat Zehut: weights 1, 2 alternating, digits of products summed.
fn israeli(ds: &[u32]) -> bool {
    if ds.len() != 9 {
        return false;
    }
    let s: u32 = ds
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let p = d * (1 + (i as u32 % 2));
            if p > 9 {
                p - 9
            } else {
                p
            }
        })
        .sum();
    s.is_multiple_of(10)
}

/// Portugal NIF: mod 11, first digit 1-3, 5, 6, 8 or 9.
fn nif_pt(ds: &[u32]) -> bool {
    if ds.len() != 9 || matches!(ds[0], 0 | 4 | 7) {
        return false;
    }
    let s = weighted(ds, &[9, 8, 7, 6, 5, 4, 3, 2]);
    let r = 11 - s % 11;
    ds[8] == if r >= 10 { 0 } else { r }
}

/// Thailand citizen id.
fn thai(ds: &[u32]) -> bool {
    if ds.len() != 13 || ds[0] == 0 {
        return false;
    }
    let s: u32 = (0..12).map(|i| ds[i] * (13 - i as u32)).sum();
    (11 - s % 11) % 10 == ds[12]
}

/// South Africa id: a date of birth and the Luhn check.
fn south_african(ds: &[u32]) -> bool {
    ds.len() == 13
        && valid_date(prefix(ds, 2), ds[2] * 10 + ds[3], ds[4] * 10 + ds[5])
        && matches!(ds[10], 0 | 1)
        && luhn(ds)
}

/// South Korea resident registration number.
fn korean(ds: &[u32]) -> bool {
    if ds.len() != 13 || !valid_date(prefix(ds, 2), ds[2] * 10 + ds[3], ds[4] * 10 + ds[5]) {
        return false;
    }
    if !(1..=8).contains(&ds[6]) {
        return false;
    }
    let s = weighted(ds, &[2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]);
    (11 - s % 11) % 10 == ds[12]
}

/// Japan My Number (individual number).
fn my_number(ds: &[u32]) -> bool {
    if ds.len() != 12 {
        return false;
    }
    let s: u32 = (1..=11)
        .map(|n| {
            let p = ds[11 - n];
            let q = if n <= 6 { n + 1 } else { n - 5 };
            p * q as u32
        })
        .sum();
    let r = s % 11;
    ds[11] == if r <= 1 { 0 } else { 11 - r }
}

/// Sweden personnummer: YYMMDD + 4 (or YYYYMMDD + 4), Luhn over the last 10.
fn swedish(ds: &[u32]) -> bool {
    let ten = match ds.len() {
        10 => ds,
        12 => &ds[2..],
        _ => return false,
    };
    let day = (ten[4] * 10 + ten[5]) % 60; // co-ordination numbers add 60
    valid_date(prefix(ten, 2), ten[2] * 10 + ten[3], day) && luhn(ten)
}

/// France NIR (numéro de sécurité sociale): 13 digits and a key, 97 - n mod 97.
fn french(ds: &[u32]) -> bool {
    if ds.len() != 15 || !matches!(ds[0], 1 | 2) {
        return false;
    }
    let month = ds[3] * 10 + ds[4];
    if !((1..=12).contains(&month) || (20..=42).contains(&month) || (50..=99).contains(&month)) {
        return false;
    }
    let n = ds[..13].iter().fold(0u64, |a, &d| a * 10 + d as u64);
    let key = ds[13] * 10 + ds[14];
    97 - (n % 97) as u32 == key
}

/// Belgium national register number: 97 - n mod 97 (with a 2 before for
/// people born from 2000).
fn belgian(ds: &[u32]) -> bool {
    if ds.len() != 11 || !(1..=12).contains(&(ds[2] * 10 + ds[3])) {
        return false;
    }
    let n = ds[..9].iter().fold(0u64, |a, &d| a * 10 + d as u64);
    let key = ds[9] * 10 + ds[10];
    97 - (n % 97) as u32 == key || 97 - ((2_000_000_000 + n) % 97) as u32 == key
}

/// Argentina CUIT/CUIL.
fn cuit(ds: &[u32]) -> bool {
    if ds.len() != 11 || !matches!(prefix(ds, 2), 20 | 23 | 24 | 27 | 30 | 33 | 34) {
        return false;
    }
    let s = weighted(ds, &[5, 4, 3, 2, 7, 6, 5, 4, 3, 2]);
    let check = match 11 - s % 11 {
        11 => 0,
        10 => 9,
        r => r,
    };
    check == ds[10]
}

fn digits_of(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

/// China resident identity card: a date of birth and ISO 7064 MOD 11-2.
fn chinese(s: &str) -> bool {
    let ds = digits_of(&s[..17]);
    let year = prefix(&ds[6..], 4);
    let (month, day) = (ds[10] * 10 + ds[11], ds[12] * 10 + ds[13]);
    if !(1900..=2100).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    let w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let r = weighted(&ds, &w) % 11;
    let check = "10X98765432".as_bytes()[r as usize] as char;
    s[17..].eq_ignore_ascii_case(&check.to_string())
}

/// Italy codice fiscale: its check letter.
fn codice_fiscale(s: &str) -> bool {
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let up = s.to_ascii_uppercase();
    let value = |c: char| -> u32 {
        if c.is_ascii_digit() {
            c as u32 - '0' as u32
        } else {
            c as u32 - 'A' as u32
        }
    };
    let mut sum = 0;
    for (i, c) in up.chars().take(15).enumerate() {
        let v = value(c) as usize;
        sum += if i % 2 == 0 { ODD[v] } else { v as u32 };
    }
    up.chars().nth(15) == char::from_u32('A' as u32 + sum % 26)
}

/// Mexico CURP: its check digit.
fn curp(s: &str) -> bool {
    const ALPHABET: &str = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ";
    let mut sum = 0u32;
    for (i, c) in s.chars().take(17).enumerate() {
        let Some(v) = ALPHABET.chars().position(|a| a == c) else {
            return false;
        };
        sum += v as u32 * (18 - i as u32);
    }
    let check = (10 - sum % 10) % 10;
    s.chars().nth(17).and_then(|c| c.to_digit(10)) == Some(check)
}

/// Singapore NRIC/FIN: its check letter.
fn nric(s: &str) -> bool {
    let up = s.to_ascii_uppercase();
    let ds = digits_of(&up[1..8]);
    let mut sum = weighted(&ds, &[2, 7, 6, 5, 4, 3, 2]);
    let first = up.chars().next().unwrap_or('S');
    if matches!(first, 'T' | 'G') {
        sum += 4;
    }
    if first == 'M' {
        sum += 3;
    }
    let letters = match first {
        'S' | 'T' => "JZIHGFEDCBA",
        'F' | 'G' => "XWUTRQPNMLK",
        _ => "KLJNPQRTUWX",
    };
    letters.chars().nth((sum % 11) as usize) == up.chars().nth(8)
}

/// Spain DNI or NIE: its check letter.
fn dni(s: &str) -> bool {
    let up: String = s
        .to_ascii_uppercase()
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .collect();
    let (lead, body) = match up.chars().next() {
        Some('X') => ("0", &up[1..]),
        Some('Y') => ("1", &up[1..]),
        Some('Z') => ("2", &up[1..]),
        _ => ("", &up[..]),
    };
    let digits = &body[..body.len() - 1];
    if (lead.is_empty() && digits.len() != 8) || (!lead.is_empty() && digits.len() != 7) {
        return false;
    }
    let n: u64 = format!("{lead}{digits}").parse().unwrap_or(0);
    let letters = b"TRWAGMYFPDXBNJZSQVHLCKE";
    letters.get((n % 23) as usize).map(|&b| b as char) == body.chars().last()
}

/// Chile RUT: mod 11 with K.
fn rut(s: &str) -> bool {
    let up = s.to_ascii_uppercase();
    let Some((body, check)) = up.rsplit_once('-') else {
        return false;
    };
    let ds = digits_of(body);
    let mut sum = 0;
    for (i, d) in ds.iter().rev().enumerate() {
        sum += d * (2 + (i as u32 % 6));
    }
    let expected = match 11 - sum % 11 {
        11 => "0".to_owned(),
        10 => "K".to_owned(),
        r => r.to_string(),
    };
    check == expected
}

/// An IBAN found by the lettered pattern: the longest prefix, cut at a
/// separator, whose checksum holds.
fn iban_prefix_ok(m: &str) -> bool {
    iban_in(m).is_some()
}

/// The length of the IBAN a match starts with (it may run on into the next
/// word: "… 1332 is my account").
pub(super) fn iban_in(m: &str) -> Option<usize> {
    let mut end = m.len();
    loop {
        if is_iban(&m[..end]) {
            return Some(end);
        }
        end = m[..end].trim_end().rfind([' ', '-', '.'])?;
    }
}

/// IBAN countries and their IBAN lengths (SWIFT's IBAN registry).
const IBAN_LENGTHS: &str = "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 \
    CY28 CZ24 DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 \
    GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 \
    MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 \
    RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 \
    XK20 YE30";

/// An IBAN: a country that has them, its length, and the ISO 13616 mod-97
/// checksum; any case, any separators.
pub(super) fn is_iban(raw: &str) -> bool {
    let s: String = raw
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_uppercase();
    let known = s.get(..2).is_some_and(|cc| {
        IBAN_LENGTHS
            .split_whitespace()
            .any(|e| e.get(..2) == Some(cc) && e[2..].parse() == Ok(s.len()))
    });
    if !known {
        return false;
    }
    let (head, rest) = s.split_at(4);
    let mut rem: u32 = 0;
    for c in rest.chars().chain(head.chars()) {
        let Some(v) = c.to_digit(36) else {
            return false;
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        find(text).into_iter().map(|f| f.kind).collect()
    }

    #[test]
    fn cards_are_found_whatever_separates_their_groups() {
        for text in [
            "4111 1111 1111 1111",
            "4111/1111/1111/1111",
            "4111-1111-1111-1111 exp 01/29",
            "4111\n1111\n1111\n1111",
            "my card: 4111.1111.1111.1111, thanks",
            "amex 3782 822463 10005",
        ] {
            assert_eq!(kinds(text).first(), Some(&CARD), "{text}");
        }
        assert!(kinds("4111 1111 1111 1112").is_empty());
    }

    #[test]
    fn ids_need_their_format_or_a_word_that_names_them() {
        assert_eq!(kinds("CPF 529.982.247-25"), [ID]);
        assert_eq!(kinds("my CPF is 52998224725"), [ID]);
        assert!(kinds("order 52998224725 shipped").is_empty());
        assert_eq!(kinds("Aadhaar: 2345 6789 0124"), [ID]); // Verhoeff-valid
        assert_eq!(kinds("身份证 11010519491231002X").len(), 1);
        assert_eq!(kinds("codice fiscale RSSMRA85T10A562S"), [ID]);
        assert_eq!(kinds("BSN 111222333"), [ID]);
        assert!(kinds("call 111222333").is_empty());
        assert_eq!(kinds("IBAN DE89-3704-0044-0532-0130-00"), [BANK]);
        // Only the IBAN is redacted, not the words that follow it.
        let (redacted, _) =
            crate::policy::redact("My IBAN is DE89 3704 0044 0532 0130 00 and I work at Bosch.");
        assert!(redacted.ends_with("] and I work at Bosch."), "{redacted}");
        assert!(!redacted.contains("0532"), "{redacted}");
    }

    #[test]
    fn checks_hold_on_known_numbers() {
        let d = digits_of;
        assert!(cpf(&d("52998224725")));
        assert!(aadhaar(&d("234567890124")));
        assert!(!aadhaar(&d("234567890125")));
        assert!(tc_kimlik(&d("10000000146")));
        assert!(pesel(&d("44051401359")));
        assert!(sin(&d("130692544")));
        assert!(bsn(&d("111222333")));
        assert!(snils(&d("11223344595")));
        assert!(inn(&d("7707083893")));
        assert!(chinese("11010519491231002X"));
        assert!(codice_fiscale("RSSMRA85T10A562S"));
        assert!(dni("12345678Z"));
        assert!(rut("12.345.678-5"));
        assert!(is_iban("GB82 WEST 1234 5698 7654 32"));
    }
}
