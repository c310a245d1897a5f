//! The secret screen: what in a text is a credential, a payment or identity
//! number, or a secret someone names ("my PIN is …"), so that it can be
//! redacted before anything is written, or a fact that carries one refused.
//!
//! Every detector reads the text after one normalisation (`normalize`:
//! NFKC, invisible characters out, dashes unified, digits written as words
//! turned into digits) and its findings are mapped back onto the original
//! bytes. The detectors:
//! - **credential formats** from a maintained rule set, `nosecrets-rules`
//!   (provider tokens, keys, webhooks, connection strings), plus the formats
//!   it lacks, below, and tokens of high entropy in a clause about keys;
//! - **checked numbers** (`numbers`): cards, IBANs and national identity and
//!   tax numbers of two dozen countries by their checksums, whatever
//!   separates their digit groups;
//! - **named secrets** (`named`): a secret word in twenty-odd languages and
//!   the value it introduces in any common syntax, the same reversed,
//!   `KEY=VALUE`, command-line flags, headers, one-time codes, documents;
//! - **seed phrases**: 12 or more BIP-39 words, numbered or joined.
//!
//! A `[REDACTED <kind>]` marker is exempt only when `<kind>` is one this
//! screen writes; anything else in such brackets is read as text, and a
//! marker it cannot vouch for is redacted whole.
//!
//! Measured on generated corpora split into a development and a report part
//! (`tests/screens_eval.rs`, docs/EXTRACTION.md).

mod named;
mod normalize;
mod numbers;

pub use normalize::Normalized;

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
    let own: [(&'static str, &str); 22] = [
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
        // Issue 51's formats, as gitleaks' rules define them.
        (
            "Grafana token",
            r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})",
        ),
        (
            "Doppler token",
            r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{2,20}\.)?[A-Za-z0-9]{40,44}\b",
        ),
        ("Replicate token", r"\br8_[A-Za-z0-9]{37}\b"),
        // A DSN's key is its user part: https://<32 hex>@host/<project>.
        (
            "Sentry DSN",
            r"\bhttps?://[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.\-]+/\d+",
        ),
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
        // Words of a phrase are separated by spaces, commas, joiners or
        // their numbers ("1. legal 2. winner", "legal-winner", "1) legal").
        let numbering = gap.chars().any(|c| c.is_ascii_digit());
        if !gap
            .chars()
            .all(|c| c.is_whitespace() || c.is_ascii_digit() || ",.)(-_/|#:;".contains(c))
            || (!numbering && gap.contains(". "))
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
    let norm = Normalized::new(text);
    let found = detect(&norm.text);
    let mut spans: Vec<SecretSpan> = found
        .into_iter()
        .map(|s| SecretSpan {
            kind: s.kind,
            range: norm.original(&s.range),
        })
        .filter(|s| !s.range.is_empty())
        .collect();
    // What redaction wrote is not found again in its marker; a marker it
    // did not write (its kind is not one of ours) may hide anything.
    let mut markers = Vec::new();
    for c in REDACTED.captures_iter(text) {
        let (Some(m), Some(kind)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if is_kind(kind.as_str()) {
            markers.push(m.range());
        } else {
            spans.push(SecretSpan {
                kind: UNKNOWN_MARKER,
                range: m.range(),
            });
        }
    }
    spans.retain(|s| {
        !markers
            .iter()
            .any(|m| s.range.start < m.end && m.start < s.range.end)
    });
    merge(spans)
}

/// The kind of a `[REDACTED …]` marker this screen did not write.
const UNKNOWN_MARKER: &str = "text in a redaction marker";

/// Whether `kind` is one this screen writes in its markers.
fn is_kind(kind: &str) -> bool {
    static KINDS: LazyLock<std::collections::HashSet<&'static str>> = LazyLock::new(|| {
        let mut k: std::collections::HashSet<&'static str> =
            FORMATS.iter().map(|r| r.kind).collect();
        k.extend([
            "password",
            "passphrase",
            "PIN or code",
            "backup codes",
            "recovery key",
            "token",
            "credential",
            "one-time code",
            "national id number",
            "card number",
            "bank account number",
            "secret token",
            "seed phrase",
            UNKNOWN_MARKER,
        ]);
        k
    });
    KINDS.contains(kind)
}

/// Credential formats found in normalised text.
fn formats(text: &str) -> Vec<SecretSpan> {
    // Rules written for files want a delimiter after a value; give the end
    // of the text one.
    let padded = format!("{text}\n");
    let lower = padded.to_lowercase();
    let mut spans = Vec::new();
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
            let range = m.start().min(text.len())..m.end().min(text.len());
            if !range.is_empty() {
                spans.push(SecretSpan {
                    kind: rule.kind,
                    range,
                });
            }
        }
    }
    spans
}

/// Every detector over normalised text.
fn detect(text: &str) -> Vec<SecretSpan> {
    let mut spans: Vec<SecretSpan> = Vec::new();
    let mut push = |kind: &'static str, range: Range<usize>| {
        let range = range.start.min(text.len())..range.end.min(text.len());
        if !range.is_empty() {
            spans.push(SecretSpan { kind, range });
        }
    };
    for s in formats(text) {
        push(s.kind, s.range);
    }
    for f in named::find(text) {
        push(f.kind, f.range);
    }
    for f in numbers::find(text) {
        push(f.kind, f.range);
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
    for r in seed_phrases(text) {
        push("seed phrase", r);
    }
    spans
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

/// # What it does
/// The first secret an identifier (a user, agent or session id, a source
/// ref) holds, if any: a credential format (a provider's prefix, a key's
/// armour, a URL with a password), a `KEY=VALUE` whose key names a secret,
/// or a checksummed number that stands as a token of its own and cannot be
/// a coincidence (`numbers::unmistakable`: a card written as cards are, an
/// IBAN, an identity number that is the whole identifier).
///
/// # Why
/// An identifier is stored and shown as it is and cannot be redacted, so
/// one holding a secret is refused. But identifiers are machine-made
/// (hashes, slugs, dates, counters), and the screen for prose read real
/// ones as secrets: `lmc-chat-09ba9854-170609-4079270e_2` held a "Korean
/// resident number" (`170609-4079270`, glued to the hex around it), and
/// one dated id in ten (`support-20261211-2249`) a Swedish personal number
/// (a date, four digits and a Luhn digit). Only
/// what cannot occur by accident counts here: no secret words, entropy,
/// unchecked formats (SSN, NINO) or word runs (seed phrases).
///
/// # Example
/// `sk_live_…`, `ghp_…`, `api_key=…`, `4111 1111 1111 1111` are refused;
/// `sharegpt_aVExml0_162`, `answer_96b8c9ee`, a UUID or a SHA-256 pass.
pub fn identifier_secret(text: &str) -> Option<&'static str> {
    let norm = Normalized::new(text);
    let t = norm.text.as_str();
    let alone = |r: &Range<usize>| {
        let before = t[..r.start].chars().next_back();
        let after = t[r.end..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    let numbers = numbers::find(t)
        .into_iter()
        .filter(|f| alone(&f.range) && numbers::unmistakable(f.kind, &t[f.range.clone()], t))
        .map(|f| f.kind);
    formats(t)
        .into_iter()
        .map(|s| s.kind)
        .chain(named::find_assignments(t).into_iter().map(|f| f.kind))
        .chain(numbers)
        .next()
}

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
    apply(text, secret_spans(text))
}

/// Consecutive texts (a user's turns, one after the other) redacted as one:
/// a secret split across them ("my card is 4111 1111" then "1111 1111") is
/// found whole, and each text loses its part of it.
pub fn redact_together(texts: &[&str]) -> Vec<(String, Vec<&'static str>)> {
    let joined = texts.join(numbers::TURN);
    let mut spans = secret_spans(&joined);
    // A turn that ends on a credential's label ("The wifi password?",
    // "security question answer (first pet):") makes the next turn, when it
    // is a short answer and nothing more, the credential (issue 51: the
    // label in one message, the value in the next).
    let mut base = 0;
    for pair in texts.windows(2) {
        let next = base + pair[0].len() + numbers::TURN.len();
        if let Some(kind) = labelled_answer(pair[0], pair[1]) {
            let start = next + (pair[1].len() - pair[1].trim_start().len());
            let end = next + pair[1].trim_end().len();
            if !spans
                .iter()
                .any(|s| s.range.start < end && start < s.range.end)
            {
                spans.push(SecretSpan {
                    kind,
                    range: start..end,
                });
            }
        }
        base = next;
    }
    spans.sort_by_key(|s| s.range.start);
    let mut out = Vec::with_capacity(texts.len());
    let mut base = 0;
    for t in texts {
        let range = base..base + t.len();
        let mut own: Vec<SecretSpan> = spans
            .iter()
            .filter(|s| s.range.start < range.end && range.start < s.range.end)
            .map(|s| SecretSpan {
                kind: s.kind,
                range: s.range.start.max(range.start) - base..s.range.end.min(range.end) - base,
            })
            .filter(|s| !s.range.is_empty())
            .collect();
        // What the text holds on its own too (a marker's exemption, say).
        own.extend(secret_spans(t));
        out.push(apply(t, merge(own)));
        base = range.end + numbers::TURN.len();
    }
    out
}

/// The kind of credential `answer` is when `label` ends by asking for or
/// naming one and `answer` is a short reply of a few words, not a sentence.
fn labelled_answer(label: &str, answer: &str) -> Option<&'static str> {
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        re(concat!(
            r"(?i)\b(?:(?P<pw>password|passwort|passcode|passphrase|mot\s+de\s+passe|contraseña|senha|пароль|wachtwoord|lösenord|hasło)|",
            r"(?P<pin>pin(?:\s+code)?|otp|one-time\s+code|verification\s+code|cvv|cvc)|",
            r"(?P<key>api\s+key|access\s+key|secret\s+key|token|secret)|",
            r"(?P<answer>security\s+(?:question\s+)?answer|(?:answer\s+to\s+(?:my|the)\s+)?security\s+question))",
            r"(?:\s*\([^)]{0,40}\))?\s*(?:is|was|=|:|\?|-)?\s*[:?.]*\s*$"
        ))
    });
    let reply = answer.trim();
    let words = reply.split_whitespace().count();
    if reply.is_empty() || words > 4 || reply.chars().count() > 64 || reply.ends_with('?') {
        return None;
    }
    // "What is a PIN?" asks what one is, not for the user's.
    static WH: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^\s*(?:what|how|why|which|where|when|who|whose)\b"));
    if WH.is_match(label) {
        return None;
    }
    let c = LABEL.captures(label.trim_end())?;
    Some(if c.name("pw").is_some() {
        "password"
    } else if c.name("pin").is_some() {
        "PIN or code"
    } else if c.name("key").is_some() {
        "API key"
    } else {
        "security answer"
    })
}

/// `text` with `spans` (sorted, disjoint) replaced by their markers.
fn apply(text: &str, spans: Vec<SecretSpan>) -> (String, Vec<&'static str>) {
    let mut out = String::with_capacity(text.len());
    let mut kinds = Vec::new();
    let mut at = 0;
    for s in spans {
        if s.range.start < at {
            continue;
        }
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

/// A JSON value with every string in it redacted (metadata), keys included,
/// and any string that directs the assistant replaced
/// (a key is text a client chose, and `{"password=hunter2": 1}` would keep
/// the secret), and the kinds replaced. Two keys that redact alike are one
/// key: the later value wins, as in any JSON object.
pub fn redact_json(value: &serde_json::Value) -> (serde_json::Value, Vec<&'static str>) {
    use serde_json::Value;
    let mut kinds = Vec::new();
    fn walk(v: &Value, kinds: &mut Vec<&'static str>) -> Value {
        match v {
            // A value that directs the assistant is no metadata of a memory.
            Value::String(s) if super::instruction_reason(s).is_some() => {
                Value::String("[REMOVED instruction]".into())
            }
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
        for card in ["4111 1111 1111 1111", "4111.1111.1111.1111"] {
            assert_eq!(find_secret(card), Some("card number"), "{card}");
        }
        for not in [
            "4111 1111 1111 1112",
            "1234 5678 9012 3452",
            "RF18 5390 0754 7034",
        ] {
            assert_eq!(find_secret(not), None, "{not}");
        }
        assert!(find_secret("gb82west12345698765432").is_some());
        assert!(find_secret("GB82 WEST 1234 5698 7654 33").is_none());
        assert!(find_secret("it is 12345678Z").is_some());
        assert!(find_secret("it is 12345678A").is_none());
        assert!(is_ssn("536", "22", "8726") && !is_ssn("000", "22", "8726"));
    }

    #[test]
    fn a_marker_is_exempt_only_if_redaction_wrote_it() {
        assert_eq!(
            find_secret("my [REDACTED password] ok"),
            Some("redacted secret")
        );
        let fake = "my [REDACTED Maple42leaf] ok";
        assert_eq!(
            redact_secrets(fake),
            "my [REDACTED text in a redaction marker] ok"
        );
        let hidden = "[REDACTED password: Hunter2hunter]";
        assert!(!redact_secrets(hidden).contains("Hunter2"));
        let twice = redact_secrets("my PIN is 4821 and [REDACTED card number]");
        assert_eq!(redact_secrets(&twice), twice, "stable");
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

    /// Issue 51: the label in one message, the value in the next.
    #[test]
    fn a_short_reply_to_a_credential_label_is_the_credential() {
        for (label, value) in [
            ("The wifi password?", "Correct-Horse-77"),
            ("security question answer (first pet):", "Mr Whiskers"),
            ("ok here's the token", "ab12cd34ef56"),
            ("My online banking PIN is", "4821"),
        ] {
            let out = redact_together(&[label, value]);
            assert!(
                out[1].0.starts_with("[REDACTED"),
                "{label} / {value}: {out:?}"
            );
            assert_eq!(out[0].0, label);
        }
        for (first, second) in [
            ("Do you know a good password manager?", "Bitwarden"),
            (
                "I changed my password",
                "It took me ages to pick one I can remember.",
            ),
            ("What is a PIN?", "a number"),
            ("I live in Oslo", "Bergen"),
        ] {
            let out = redact_together(&[first, second]);
            assert_eq!(out[1].0, second, "{first} / {second}");
        }
    }

    /// Issue 51's token formats (generated to each format's shape), and
    /// look-alikes that must pass.
    #[test]
    fn issue_51_token_formats() {
        for (text, kind) in [
            (
                "grafana glsa_abcdefghijklmnopqrstuvwxyzABCDEF_0a1b2c3d here",
                "Grafana token",
            ),
            (
                "DOPPLER_TOKEN dp.st.prd.Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
                "Doppler token",
            ),
            (
                "use r8_Abcdefghijklmnopqrstuvwxyz0123456789A please",
                "Replicate token",
            ),
            (
                "dsn https://0123456789abcdef0123456789abcdef@o123.ingest.sentry.io/4567",
                "Sentry DSN",
            ),
        ] {
            let (red, kinds) = redact(text);
            assert_eq!(kinds.first().copied(), Some(kind), "{text} -> {red}");
        }
        for text in [
            "r8_short is not a token",
            "see https://docs.sentry.io/platforms/ for the DSN format",
            "glsa_ is Grafana's prefix",
            "dp.st.prd is the Doppler prefix",
        ] {
            assert_eq!(find_secret(text), None, "{text}");
        }
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
