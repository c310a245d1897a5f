//! The secret screen: what in a text is a credential, a payment or identity
//! number, or a secret someone names ("my PIN is …"), so that it can be
//! redacted before anything is written, or a fact that carries one refused.
//!
//! Three kinds of detectors, each a list of spans:
//! - **credential formats** from a maintained rule set, `nosecrets-rules`
//!   (provider tokens, keys, webhooks, connection strings), plus the formats
//!   it lacks, below;
//! - **checked numbers**: card numbers by issuer prefix, length and Luhn
//!   with any separators; IBANs by their mod-97 checksum in any case;
//!   national ids by format (US SSN, UK NI number) or check letter (Spanish
//!   DNI/NIE); BIP-39 seed phrases (12 or more words of the word list);
//!   private key bodies by their DER or OpenSSH prefix, armour or not;
//! - **named secrets**: a secret word in several languages (password,
//!   Passwort, contraseña, mot de passe, PIN, door code, passphrase, token,
//!   recovery key …) followed by a value, and tokens of high entropy in a
//!   clause that mentions a key, token or secret.
//!
//! Measured on `tests/corpus/secrets.rs` (written before these detectors):
//! `tests/policy_eval.rs` prints recall and false positives.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("bad pattern {p}: {e}"))
}

/// One secret found: what kind, and where (byte range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretSpan {
    pub kind: &'static str,
    pub range: Range<usize>,
}

/// A rule of the `nosecrets-rules` set, compiled.
struct FormatRule {
    kind: &'static str,
    pattern: Regex,
    capture: usize,
    keywords: Vec<String>,
    allow: Vec<Regex>,
}

/// Credential formats. The maintained set first; then what it lacks.
static FORMATS: LazyLock<Vec<FormatRule>> = LazyLock::new(|| {
    let mut rules = Vec::new();
    match nosecrets_rules::load_builtin_rules() {
        Ok(set) => {
            for r in set {
                let Ok(pattern) = Regex::new(&r.pattern) else {
                    continue; // a rule this regex engine cannot read is skipped
                };
                let allow = r
                    .allow
                    .map(|a| a.patterns)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|p| Regex::new(&format!("(?i){p}")).ok())
                    .collect();
                rules.push(FormatRule {
                    // Rule names live for the process: leaked once, at start.
                    kind: Box::leak(r.name.into_boxed_str()),
                    pattern,
                    capture: r.capture,
                    keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
                    allow,
                });
            }
        }
        Err(e) => panic!("the built-in secret rules do not parse: {e}"),
    }
    let own: [(&'static str, &str); 18] = [
        (
            "private key",
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\n\s*\n|\z)",
        ),
        // Key bodies without their armour: PKCS#8, PKCS#1 (RSA, DSA), SEC1
        // (EC), Ed25519 and OpenSSH, by the DER or openssh-key-v1 prefix.
        (
            "private key",
            r"\b(?:MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)|MHcCAQEE|MC4CAQAwBQYDK2Vw|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{20,}",
        ),
        (
            "API key",
            r"\b(?:sk|pk|rk)-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_\-]{16,}",
        ),
        ("Stripe key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("Notion token", r"\b(?:secret|ntn)_[A-Za-z0-9]{40,}"),
        ("Dropbox token", r"\bsl\.[A-Za-z0-9_\-]{100,}"),
        // A credential passed as a URL parameter (signed URLs, SAS tokens).
        (
            "credential in a URL",
            r"(?i)[?&;](?:sig|signature|token|access_token|api_?key|key|secret|password|pwd|auth)=[^&\s]{16,}",
        ),
        ("AWS access key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_\-]{30,}"),
        ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
        ("Shopify token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
        ("Telegram bot token", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{32,}"),
        (
            "Azure storage key",
            r"(?i)\bAccountKey=[A-Za-z0-9+/]{40,}={0,2}",
        ),
        (
            "JSON web token",
            r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        ),
        ("bearer token", r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=~+/]{20,}"),
        // Any URL with a password in it (the user part may be empty), whole:
        // host and database go with the credentials.
        (
            "connection string",
            r#"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]*:[^\s@/]+@[^\s'"<>]*"#,
        ),
    ];
    for (kind, p) in own {
        rules.push(FormatRule {
            kind,
            pattern: re(p),
            capture: 0,
            keywords: Vec::new(),
            allow: Vec::new(),
        });
    }
    rules
});

/// A secret word (several languages) followed by its value: "my PIN is 4821",
/// "mot de passe : Soleil", "the password for the router is X", "pin 7395".
struct Named {
    kind: &'static str,
    pattern: Regex,
    /// The value must hold a digit (a PIN, a code): "the PIN on my card"
    /// names no secret.
    digits: bool,
}

/// Verbs that introduce the value, in the languages the words are in.
const COPULA: &str = r"(?:is|are|was|were|ist|sind|lautet|es|son|est|sont|è|é|sono)";

static NAMED: LazyLock<Vec<Named>> = LazyLock::new(|| {
    // `many`: the value runs to the end of the clause (a passphrase, a
    // list of codes). `bare`: the value may follow the word directly, with
    // no verb or colon ("pin 7395"); it must then look like a secret.
    let named = |kind, words: &str, digits, many: bool, bare: bool| {
        let value = if many {
            r"(?P<v>[^\s.;!?,][^\n.;!?]{0,120}?)(?:[.;!?](?:\s|$)|\n|$)"
        } else {
            r#"(?P<v>[^\s"'“”,;]*[^\s"'“”,;.!?])"#
        };
        let bare = if bare { r"|(?P<bare>\s+)" } else { "" };
        Named {
            kind,
            pattern: re(&format!(
                r"(?i)\b(?:{words})\b(?:(?:\s+[\p{{L}}'’\-]+){{0,4}}?\s+{COPULA}(?:\s*:)?\s+|\s*[:=]\s*{bare})['`]?{value}"
            )),
            digits,
        }
    };
    vec![
        named(
            "passphrase",
            r"pass ?phrases?|seed phrases?|recovery phrases?|mnemonic|secret phrase",
            false,
            true,
            false,
        ),
        named(
            "password",
            r"passwords|contraseñas|passwörter|mots de passe|senhas",
            false,
            true,
            false,
        ),
        named(
            "password",
            r"password|passcode|kennwort|passwort|contraseña|clave|mot de passe|senha|wachtwoord|lösenord|hasło",
            false,
            false,
            true,
        ),
        // Short forms only before a colon or "=": "pass: …", "pw=…".
        named("password", r"pass|passwd|pwd|pw", false, false, false),
        named(
            "PIN or code",
            r"pin(?: code| number)?|pin-code|geheimzahl|code pin|code secret|(?:door|gate|alarm|garage|lock|safe|access|security|entry|keypad|unlock|building|verification|2fa|otp|bike lock|locker) codes?|combination|cvv|cvc|cvc2",
            true,
            false,
            true,
        ),
        named(
            "backup codes",
            r"(?:backup|recovery|2fa|mfa) codes",
            true,
            true,
            false,
        ),
        named(
            "recovery key",
            r"recovery key|license key|licence key|product key|secret key|private key|api key|access key",
            true,
            false,
            true,
        ),
        named("token", r"tokens?|secret", true, false, false),
    ]
});

/// `SECRET_KEY = '…'`, `DB_PASSWORD: …`: an assignment to a name that says
/// it holds a secret.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\b[A-Za-z0-9_]*(?i:secret|password|passwd|token|api_?key|private_?key|access_?key|credential)[A-Za-z0-9_]*\s*[:=]\s*['"]?(?P<v>[^\s'"]{8,})"#,
    )
});

/// A value given without a verb or colon ("pin 7395"), which must look like
/// a secret rather than the next word of a sentence.
fn looks_secret(v: &str) -> bool {
    v.chars().any(|c| c.is_ascii_digit())
        || v.chars().any(|c| !c.is_alphanumeric())
        || (v.len() >= 8 && v.chars().any(char::is_uppercase) && v.chars().any(char::is_lowercase))
}

/// Values a secret word is often followed by that are not secrets.
fn is_placeholder(v: &str) -> bool {
    const WORDS: &[&str] = &[
        "a",
        "an",
        "the",
        "my",
        "your",
        "our",
        "his",
        "her",
        "their",
        "this",
        "that",
        "it",
        "not",
        "too",
        "very",
        "so",
        "same",
        "different",
        "strong",
        "weak",
        "secure",
        "safe",
        "long",
        "short",
        "easy",
        "hard",
        "simple",
        "complicated",
        "wrong",
        "right",
        "correct",
        "incorrect",
        "expired",
        "changed",
        "reset",
        "saved",
        "stored",
        "written",
        "on",
        "in",
        "at",
        "of",
        "for",
        "to",
        "with",
        "fine",
        "ok",
        "okay",
        "required",
        "needed",
        "missing",
        "manager",
        "managers",
        "policy",
        "protected",
        "encrypted",
        "hidden",
        "secret",
        "there",
        "here",
        "below",
        "above",
        "attached",
        "again",
        "vergessen",
        "olvidada",
        "oublié",
        "and",
        "or",
        "but",
        "still",
        "also",
        "now",
        "then",
        "again",
        "***",
        "xxx",
        "changeme",
        "ingredient",
    ];
    let lower = v.to_lowercase();
    let first = lower
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    first.is_empty() || WORDS.contains(&first)
}

/// Words that make a clause about credentials (for the entropy check).
static SECRET_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:key|keys|token|tokens|secret|secrets|password|passwort|credential|credentials|api|apikey|auth|login|pat|webhook|signing|private)\b",
    )
});
static TOKEN: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z0-9+/=_\-.]{16,}"));

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// A token that looks machine-made: long, mixed letters and digits, high
/// entropy, and not only hex (hashes and commit ids are hex).
fn random_looking(t: &str) -> bool {
    let t = t.trim_matches(|c: char| c == '.' || c == '-' || c == '=');
    let digits = t.chars().filter(char::is_ascii_digit).count();
    let upper = t.chars().filter(char::is_ascii_uppercase).count();
    let lower = t.chars().filter(char::is_ascii_lowercase).count();
    let hex_only = t.chars().all(|c| c.is_ascii_hexdigit());
    t.len() >= 16
        && digits > 0
        && (upper > 0 || lower > 0)
        // Hex alone is a hash or an id (commits are 40, SHA-256 64): only a
        // long hex value of another length can pass, near a secret word.
        && (!hex_only || !matches!(t.len(), 0..32 | 40 | 64))
        && entropy(t) >= 3.5
}

static CARD: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d(?:[ .\-]{0,2}\d){12,18}\b"));

fn luhn(ds: &[u32]) -> bool {
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

/// A payment card number: an issuer's prefix and length, and the Luhn check.
fn is_card(raw: &str) -> bool {
    let ds: Vec<u32> = raw.chars().filter_map(|c| c.to_digit(10)).collect();
    let n = ds.len();
    let prefix = |k: usize| ds.iter().take(k).fold(0u32, |a, &d| a * 10 + d);
    let issuer = match ds.first() {
        Some(4) => matches!(n, 13 | 16 | 19),                 // Visa
        Some(5) => (51..=55).contains(&prefix(2)) && n == 16, // Mastercard
        Some(2) => (2221..=2720).contains(&prefix(4)) && n == 16, // Mastercard
        Some(3) => {
            (matches!(prefix(2), 34 | 37) && n == 15)                          // Amex
            || (prefix(2) == 35 && (16..=19).contains(&n))                            // JCB
            || (matches!(prefix(2), 30 | 36 | 38 | 39) && (14..=19).contains(&n))
        } // Diners
        Some(6) => {
            (prefix(4) == 6011 || prefix(2) == 65 || (644..=649).contains(&prefix(3)) // Discover
            || prefix(2) == 62)                                                       // UnionPay
            && (16..=19).contains(&n)
        }
        _ => false,
    };
    issuer && luhn(&ds)
}

static IBAN: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b[a-z]{2}\d{2}(?: ?[a-z0-9]){11,30}\b"));

/// The IBAN in a match that may have run on into the next word ("… 1332 is
/// my account"): the longest prefix, cut at a space, whose checksum holds.
fn iban_in(m: &str) -> Option<usize> {
    let mut end = m.len();
    loop {
        if is_iban(&m[..end]) {
            return Some(end);
        }
        end = m[..end].trim_end().rfind(' ')?;
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
/// checksum; any case, spaces or not. (The checksum alone also passes ISO
/// 11649 creditor references, "RF18 …", which are not secret.)
fn is_iban(raw: &str) -> bool {
    let s: String = raw
        .chars()
        .filter(|c| !c.is_whitespace())
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

static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{3})-(\d{2})-(\d{4})\b"));
static SSN_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:ssn|social security(?: number)?|social)\D{0,12}(\d{3})[ -]?(\d{2})[ -]?(\d{4})\b")
});

/// A US social security number's valid area, group and serial.
fn is_ssn(area: &str, group: &str, serial: &str) -> bool {
    let a: u32 = area.parse().unwrap_or(0);
    a != 0 && a != 666 && a < 900 && group != "00" && serial != "0000"
}

static NINO: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"));
static DNI: LazyLock<Regex> = LazyLock::new(|| re(r"\b([XYZ]?)(\d{7,8})([A-Z])\b"));

/// A Spanish DNI or NIE: its check letter.
fn is_dni(prefix: &str, digits: &str, letter: &str) -> bool {
    let lead = match prefix {
        "X" => "0",
        "Y" => "1",
        "Z" => "2",
        _ => "",
    };
    if prefix.is_empty() && digits.len() != 8 || !prefix.is_empty() && digits.len() != 7 {
        return false;
    }
    let n: u64 = format!("{lead}{digits}").parse().unwrap_or(0);
    let letters = b"TRWAGMYFPDXBNJZSQVHLCKE";
    letters.get((n % 23) as usize).map(|&b| b as char) == letter.chars().next()
}

static WORD: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z]+"));

/// Runs of 12 or more BIP-39 words in a row: a wallet's seed phrase.
fn seed_phrases(text: &str) -> Vec<Range<usize>> {
    let english = bip39::Language::English;
    let mut out = Vec::new();
    let mut run: Vec<Range<usize>> = Vec::new();
    let mut flush = |run: &mut Vec<Range<usize>>| {
        if run.len() >= 12 {
            if let (Some(a), Some(b)) = (run.first(), run.last()) {
                out.push(a.start..b.end);
            }
        }
        run.clear();
    };
    let mut last_end = 0;
    for m in WORD.find_iter(text) {
        let gap = &text[last_end..m.start()];
        // Words of a phrase are separated by spaces (or a comma, a number).
        if !gap
            .chars()
            .all(|c| c.is_whitespace() || c == ',' || c.is_ascii_digit() || c == '.')
            || gap.contains(". ")
        {
            flush(&mut run);
        }
        if english.find_word(&m.as_str().to_lowercase()).is_some() {
            run.push(m.range());
        } else {
            flush(&mut run);
        }
        last_end = m.end();
    }
    flush(&mut run);
    out
}

/// Every secret in `text`, sorted and without overlaps (the longest wins).
pub fn secret_spans(text: &str) -> Vec<SecretSpan> {
    // Rules written for files want a delimiter after a value; give the end
    // of the text one.
    let padded = format!("{text}\n");
    let lower = padded.to_lowercase();
    let mut spans: Vec<SecretSpan> = Vec::new();
    let mut push = |kind: &'static str, range: Range<usize>| {
        let range = range.start.min(text.len())..range.end.min(text.len());
        if !range.is_empty() {
            spans.push(SecretSpan { kind, range });
        }
    };
    for rule in FORMATS.iter() {
        if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k)) {
            continue;
        }
        for c in rule.pattern.captures_iter(&padded) {
            let Some(m) = c.get(rule.capture).or_else(|| c.get(0)) else {
                continue;
            };
            if rule.allow.iter().any(|a| a.is_match(m.as_str())) {
                continue;
            }
            push(rule.kind, m.range());
        }
    }
    for n in NAMED.iter() {
        for c in n.pattern.captures_iter(text) {
            let Some(v) = c.name("v") else { continue };
            let value = v.as_str().trim_end();
            // A lone ordinary word is no secret ("my password is strong");
            // a phrase of several is ("correct horse battery staple").
            let one_word = value.split_whitespace().nth(1).is_none();
            if (one_word && is_placeholder(value))
                || (n.digits && !value.chars().any(|c| c.is_ascii_digit()))
                || (c.name("bare").is_some() && !looks_secret(value))
            {
                continue;
            }
            push(n.kind, v.start()..v.start() + value.len());
        }
    }
    for c in ASSIGNMENT.captures_iter(text) {
        if let Some(v) = c.name("v").filter(|v| looks_secret(v.as_str())) {
            push("credential", v.range());
        }
    }
    // High-entropy tokens in a clause about keys, tokens or secrets.
    for clause in text.split(['.', ';', '!', '?', '\n']) {
        if !SECRET_WORDS.is_match(clause) {
            continue;
        }
        let base = clause.as_ptr() as usize - text.as_ptr() as usize;
        for m in TOKEN.find_iter(clause) {
            if random_looking(m.as_str()) {
                push("secret token", base + m.start()..base + m.end());
            }
        }
    }
    for m in CARD.find_iter(text) {
        if is_card(m.as_str()) {
            push("card number", m.range());
        }
    }
    for m in IBAN.find_iter(text) {
        if let Some(len) = iban_in(m.as_str()) {
            push("bank account number", m.start()..m.start() + len);
        }
    }
    for re in [&*SSN, &*SSN_NAMED] {
        for c in re.captures_iter(text) {
            if let (Some(m), Some(a), Some(g), Some(s)) = (c.get(0), c.get(1), c.get(2), c.get(3)) {
                if is_ssn(a.as_str(), g.as_str(), s.as_str()) {
                    let start = if re.as_str() == SSN.as_str() {
                        m.start()
                    } else {
                        a.start()
                    };
                    push("national id number", start..m.end());
                }
            }
        }
    }
    for c in NINO.captures_iter(text) {
        let prefix = c.get(1).map_or("", |m| m.as_str());
        if !matches!(prefix, "BG" | "GB" | "NK" | "KN" | "TN" | "NT" | "ZZ") {
            if let Some(m) = c.get(0) {
                push("national id number", m.range());
            }
        }
    }
    for c in DNI.captures_iter(text) {
        if let (Some(m), Some(p), Some(d), Some(l)) = (c.get(0), c.get(1), c.get(2), c.get(3)) {
            if is_dni(p.as_str(), d.as_str(), l.as_str()) {
                push("national id number", m.range());
            }
        }
    }
    for r in seed_phrases(text) {
        push("seed phrase", r);
    }
    // What was redacted before is not found again in its marker.
    let markers: Vec<Range<usize>> = REDACTED.find_iter(text).map(|m| m.range()).collect();
    spans.retain(|s| {
        !markers
            .iter()
            .any(|m| s.range.start < m.end && m.start < s.range.end)
    });
    merge(spans)
}

/// Sorted by start; overlapping spans joined (the kind of the longest).
fn merge(mut spans: Vec<SecretSpan>) -> Vec<SecretSpan> {
    spans.sort_by_key(|s| (s.range.start, std::cmp::Reverse(s.range.end)));
    let mut out: Vec<SecretSpan> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(last) if s.range.start < last.range.end => {
                if s.range.len() > last.range.len() {
                    last.kind = s.kind;
                }
                last.range.end = last.range.end.max(s.range.end);
            }
            _ => out.push(s),
        }
    }
    out
}

/// The kinds `redact_secrets` writes, so a redacted text is still known to
/// have held a secret.
static REDACTED: LazyLock<Regex> = LazyLock::new(|| re(r"\[REDACTED ([^\]]{1,60})\]"));

/// The first kind of secret found in `text`, if any; text that had a secret
/// redacted already counts too (a fact about it would be about a secret).
pub fn find_secret(text: &str) -> Option<&'static str> {
    if let Some(s) = secret_spans(text).first() {
        return Some(s.kind);
    }
    REDACTED.is_match(text).then_some("redacted secret")
}

/// `text` with every secret replaced by `[REDACTED <kind>]`, and the kinds
/// replaced (empty when nothing was).
pub fn redact(text: &str) -> (String, Vec<&'static str>) {
    let spans = secret_spans(text);
    let mut out = String::with_capacity(text.len());
    let mut kinds = Vec::new();
    let mut at = 0;
    for s in spans {
        out.push_str(&text[at..s.range.start]);
        out.push_str(&format!("[REDACTED {}]", s.kind));
        if !kinds.contains(&s.kind) {
            kinds.push(s.kind);
        }
        at = s.range.end;
    }
    out.push_str(&text[at..]);
    (out, kinds)
}

/// `text` with every secret replaced by `[REDACTED <kind>]`.
pub fn redact_secrets(text: &str) -> String {
    redact(text).0
}

/// A JSON value with every string in it redacted (metadata), keys included
/// (a key is text a client chose, and `{"password=hunter2": 1}` would keep
/// the secret), and the kinds replaced. Two keys that redact alike are one
/// key: the later value wins, as in any JSON object.
pub fn redact_json(value: &serde_json::Value) -> (serde_json::Value, Vec<&'static str>) {
    use serde_json::Value;
    let mut kinds = Vec::new();
    fn walk(v: &Value, kinds: &mut Vec<&'static str>) -> Value {
        match v {
            Value::String(s) => {
                let (text, found) = redact(s);
                for k in found {
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                }
                Value::String(text)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, kinds)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| {
                        let (key, found) = redact(k);
                        for f in found {
                            if !kinds.contains(&f) {
                                kinds.push(f);
                            }
                        }
                        (key, walk(x, kinds))
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let out = walk(value, &mut kinds);
    (out, kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums() {
        assert!(is_card("4111 1111 1111 1111"));
        assert!(is_card("4111.1111.1111.1111"));
        assert!(!is_card("4111 1111 1111 1112"));
        assert!(!is_card("1234 5678 9012 3452")); // Luhn-valid, no issuer
        assert!(is_iban("gb82west12345698765432"));
        assert!(!is_iban("GB82 WEST 1234 5698 7654 33"));
        assert!(!is_iban("RF18 5390 0754 7034")); // a creditor reference
        assert!(is_dni("", "12345678", "Z"));
        assert!(!is_dni("", "12345678", "A"));
        assert!(is_ssn("536", "22", "8726") && !is_ssn("000", "22", "8726"));
    }

    #[test]
    fn redaction_and_kinds() {
        assert_eq!(
            redact_secrets("my password is hunter2 ok"),
            "my password is [REDACTED password] ok"
        );
        let (text, kinds) = redact("card 4111 1111 1111 1111 and pin 4821");
        assert_eq!(
            text,
            "card [REDACTED card number] and pin [REDACTED PIN or code]"
        );
        assert_eq!(kinds, ["card number", "PIN or code"]);
        assert_eq!(
            find_secret("my [REDACTED password] ok"),
            Some("redacted secret")
        );
        assert_eq!(find_secret("I have 2 cats and 1234 5678 followers"), None);
        assert_eq!(find_secret("I forgot my password"), None);
        assert_eq!(find_secret("the PIN on my card was reset"), None);
    }

    #[test]
    fn seed_phrases_need_twelve_words_of_the_list() {
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow";
        assert_eq!(seed_phrases(phrase), vec![0..phrase.len()]);
        assert!(seed_phrases("legal winner thank year wave sausage worth useful legal").is_empty());
        assert!(
            seed_phrases("I bought apples, bananas, coffee, bread and butter today").is_empty()
        );
    }
}

static URL_CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@?#]+@").unwrap_or_else(|e| panic!("{e}"))
});

/// `text` with the `user:password@` of every URL in it removed: what an HTTP
/// client's error says about an endpoint configured with credentials in its
/// URL, before it reaches a log, a job's error or a response.
pub fn without_url_credentials(text: &str) -> String {
    URL_CREDENTIALS.replace_all(text, "$1").into_owned()
}

#[cfg(test)]
mod url_credential_tests {
    use super::without_url_credentials as strip;

    #[test]
    fn credentials_in_urls_are_removed_and_the_rest_kept() {
        assert_eq!(
            strip("error sending request for url (https://me:pa55@llm.example/v1/chat)"),
            "error sending request for url (https://llm.example/v1/chat)"
        );
        assert_eq!(
            strip("postgres://u:p@h:5432/db and http://t@x"),
            "postgres://h:5432/db and http://x"
        );
        assert_eq!(strip("http://h/v1?x=a@b"), "http://h/v1?x=a@b");
        assert_eq!(strip("mail me at a@b.c"), "mail me at a@b.c");
        assert_eq!(strip(""), "");
    }
}
