//! Secrets that are secrets because something names them: a secret word
//! ("password", "PIN", "Passwort", "пароль", "パスワード" …, in the languages
//! listed in `WORDS`) and the value it introduces in any common syntax; the
//! same the other way round ("I use X as my password"); `KEY=VALUE` lines
//! whose key names a secret; command-line flags (`sshpass -p`, `curl -u
//! user:pass`, `--password=`); authorisation headers; one-time codes; and
//! identity documents named before their number.
//!
//! The syntax is read step by step rather than listed: after a secret word,
//! up to five words may follow (`for the wifi`), then a separator (`:`, `=`,
//! `-`) or a copula in any of the languages (`is`, `is now`, `ist`, `lautet`,
//! `est`, `es`, `è`, `är`, `jest`, `это`, `是`, `は` …), then the value. A word
//! that makes the secret word part of a compound (`password manager`, `PIN
//! pad`) means no value follows.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::re;

pub(super) struct Found {
    pub kind: &'static str,
    pub range: Range<usize>,
}

/// What a secret word's value is like.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// One token (a password, a key).
    Token,
    /// One token with a digit in it (a PIN, a door code).
    Digits,
    /// The rest of the clause (a passphrase, a list of codes).
    Phrase,
}

struct Words {
    kind: &'static str,
    shape: Shape,
    /// May the value follow the word directly, with no separator ("pin 7395")?
    bare: bool,
    pattern: Regex,
    /// Words that, just before it, make it something else ("zip code").
    not_after: &'static [&'static str],
}

/// The secret words, by kind, in English, German, French, Spanish, Italian,
/// Portuguese, Dutch, Swedish, Danish/Norwegian, Finnish, Polish, Czech,
/// Russian/Ukrainian, Turkish, Greek, Chinese, Japanese, Korean, Arabic,
/// Hindi, Indonesian/Malay and Vietnamese.
static WORDS: LazyLock<Vec<Words>> = LazyLock::new(|| {
    let words = |kind, shape, bare, list: &[&str]| {
        // Latin, Cyrillic, Greek, Arabic and Indic words need a boundary;
        // Chinese, Japanese and Korean ones stand in running text.
        let cjk = |w: &&str| w.chars().any(|c| c.is_alphabetic() && (c as u32) >= 0x2E80);
        // Longest first: the alternation takes the first that matches.
        let mut list = list.to_vec();
        list.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let bounded: Vec<&str> = list.iter().filter(|w| !cjk(w)).copied().collect();
        let running: Vec<&str> = list.iter().filter(|w| cjk(w)).copied().collect();
        let mut pattern = format!(
            r"(?i)(?:^|[^\p{{L}}\p{{N}}_])(?P<w>{})(?:$|[^\p{{L}}])",
            bounded.join("|")
        );
        if !running.is_empty() {
            pattern.push_str(&format!("|(?P<c>{})", running.join("|")));
        }
        Words {
            kind,
            shape,
            bare,
            pattern: re(&pattern),
            not_after: &[],
        }
    };
    vec![
        words(
            "passphrase",
            Shape::Phrase,
            false,
            &[
                "pass ?phrases?",
                "seed phrases?",
                "recovery phrases?",
                "mnemonic",
                "secret phrase",
                "seed words",
                "recovery words",
                "wallet words",
            ],
        ),
        // Plural: the values run to the end of the clause ("my passwords
        // are X and Y").
        words(
            "password",
            Shape::Phrase,
            false,
            &[
                "passwords",
                "passcodes",
                "passwörter",
                "mots de passe",
                "contraseñas",
                "contrasenas",
                "senhas",
                "wachtwoorden",
                "lösenorden",
                "hasła",
                "пароли",
                "şifreler",
                "sifreler",
            ],
        ),
        words(
            "password",
            Shape::Token,
            true,
            &[
                "password",
                "passcode",
                "pass word",
                "login password",
                "wi-?fi password",
                "code wi-?fi",
                "code du wi-?fi",
                "clé wi-?fi",
                "wlan-schlüssel",
                "wlan-key",
                "passwort",
                "kennwort",
                "zugangswort",
                "mot de passe",
                "mdp",
                "contraseña",
                "contrasena",
                "clave",
                "parola d'ordine",
                "parola chiave",
                "senha",
                "palavra-passe",
                "wachtwoord",
                "lösenord",
                "losenord",
                "adgangskode",
                "kodeord",
                "passord",
                "salasana",
                "hasło",
                "haslo",
                "heslo",
                "пароль",
                "пароля",
                "паролем",
                "şifre",
                "şifrem",
                "sifre",
                "sifrem",
                "parola",
                "κωδικός",
                "kata sandi",
                "kata laluan",
                "sandi",
                "mật khẩu",
                "mat khau",
                "पासवर्ड",
                "كلمة المرور",
                "كلمة السر",
                "密码",
                "密碼",
                "口令",
                "パスワード",
                "비밀번호",
                "암호",
            ],
        ),
        // Short forms: a separator, or a value that looks made up ("pw X1…").
        words(
            "password",
            Shape::Token,
            true,
            &["pass", "passwd", "pwd", "pw", "pword"],
        ),
        // A code with digits: a door's, a building's, a safe's; not a zip
        // code or an error code.
        Words {
            not_after: NOT_SECRET_CODES,
            ..words(
                "PIN or code",
                Shape::Digits,
                false,
                &["code", "codes", "kode", "código", "codice", "codigo"],
            )
        },
        words(
            "PIN or code",
            Shape::Digits,
            true,
            &[
                "pins?",
                "pin codes?",
                "pin numbers?",
                "pin-codes?",
                "pincodes?",
                "geheimzahl",
                "pin-nummer",
                "code pin",
                "code secret",
                "digicode",
                "código pin",
                "codice pin",
                "pin-koodi",
                "cvv2?",
                "cvc2?",
                "csc",
                "security codes?",
                "card codes?",
                "door codes?",
                "gate codes?",
                "alarm codes?",
                "garage codes?",
                "lock codes?",
                "safe codes?",
                "access codes?",
                "entry codes?",
                "keypad codes?",
                "unlock codes?",
                "building codes?",
                "locker codes?",
                "bike lock codes?",
                "combination",
                "combo",
                "türcode",
                "tuercode",
                "zugangscode",
                "code d'accès",
                "code d'acces",
                "código de acceso",
                "codigo de acceso",
                "codice di accesso",
                "código de la puerta",
                "toegangscode",
                "deurcode",
                "kod pin",
                "kod",
                "код",
                "пин-код",
                "пин",
                "暗証番号",
                "密码锁",
                "门禁密码",
            ],
        ),
        words(
            "backup codes",
            Shape::Phrase,
            false,
            &[
                "backup codes",
                "recovery codes",
                "2fa codes",
                "mfa codes",
                "backup-codes",
            ],
        ),
        words(
            "recovery key",
            Shape::Token,
            true,
            &[
                "recovery keys?",
                "licen[cs]e keys?",
                "product keys?",
                "secret keys?",
                "private keys?",
                "api ?keys?",
                "api-keys?",
                "access keys?",
                "access tokens?",
                "auth tokens?",
                "bearer tokens?",
                "refresh tokens?",
                "client secrets?",
                "signing secrets?",
                "webhook secrets?",
                "app passwords?",
                "encryption keys?",
                "wallet keys?",
                "master keys?",
                "ssh keys?",
                "clé api",
                "clé secrète",
                "clave api",
                "chiave api",
                "api-schlüssel",
                "schlüssel",
            ],
        ),
        words(
            "token",
            Shape::Token,
            false,
            &["tokens?", "secrets?", "apikey", "api_key"],
        ),
    ]
});

/// Copulas and separators that introduce a value, in the languages above.
static COPULA: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^\s*(?:[:=：]|-{1,2}>?|–|—|",
        r"(?:is|are|was|were|'s|’s|will\s+be|has\s+been|have\s+been|became|becomes|to|",
        r"ist|sind|war|lautet|lauten|heißt|heisst|wird|est|sont|était|c'est|es|son|era|fue|sea|",
        r"è|sono|é|são|foi|is\s+nu|blijft|är|var|blir|er|jest|są|był|była|jsou|",
        r"это|—|:|dir|dır|dur|idi|είναι|adalah|ialah|là|है|हैं|هي|هو)\b\s*[:=]?|",
        r"是|为|為|：|は|が|는|은|이|가|로|으로)\s*"
    ))
});

/// What may follow a copula before the value ("is now", "changed to").
static ADVERB: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^(?:(?:now|still|currently|actually|simply|just|always|literally|officially|",
        r"finally|also|jetzt|nun|immer\s+noch|maintenant|toujours|ahora|todavía|ora|adesso|",
        r"agora|nu|nog\s+steeds|teraz|nyní|теперь|сейчас|artık|şimdi|changed\s+to|set\s+to|",
        r"updated\s+to|reset\s+to|geändert\s+(?:in|zu|auf)|changé\s+en|cambiada\s+a|",
        r"simply|the\s+word|the\s+code|the\s+number|der\s+code)[\s:,]+)+"
    ))
});

/// Words after a secret word that make it part of a compound: then it names
/// no value ("password manager", "PIN pad", "token bucket").
const COMPOUND: &[&str] = &[
    "manager",
    "managers",
    "policy",
    "policies",
    "reset",
    "resets",
    "hint",
    "hints",
    "generator",
    "generators",
    "strength",
    "requirement",
    "requirements",
    "rule",
    "rules",
    "field",
    "fields",
    "box",
    "prompt",
    "protected",
    "protection",
    "less",
    "free",
    "app",
    "vault",
    "pad",
    "bucket",
    "length",
    "complexity",
    "change",
    "expiry",
    "expiration",
    "recovery",
    "management",
    "review",
    "reviews",
    "base",
    "editor",
    "block",
    "snippet",
    "sample",
    "style",
    "word",
    "chain",
    "ring",
    "holder",
    "card",
    "cards",
    "fob",
    "note",
    "notes",
    "list",
    "lists",
    "lock",
    "locks",
    "system",
    "systems",
    "screen",
    "page",
    "form",
    "dialog",
    "check",
    "checks",
    "audit",
    "security",
    "safety",
    "sharing",
    "stuffing",
    "spraying",
    "leak",
    "leaks",
    "breach",
    "breaches",
    "dump",
    "dumps",
    "entry",
    "input",
    "update",
    "updates",
    "renewal",
    "hygiene",
    "practice",
    "practices",
    "tips",
    "advice",
];

/// Words before "code" that make it no secret.
const NOT_SECRET_CODES: &[&str] = &[
    "zip",
    "postal",
    "post",
    "area",
    "country",
    "dial",
    "dialling",
    "dialing",
    "error",
    "status",
    "promo",
    "promotional",
    "discount",
    "coupon",
    "voucher",
    "referral",
    "invite",
    "invitation",
    "source",
    "qr",
    "bar",
    "dress",
    "morse",
    "colour",
    "color",
    "iso",
    "airport",
    "product",
    "tax",
    "sort",
    "swift",
    "bic",
    "bank",
    "routing",
    "branch",
    "hs",
    "sic",
    "naics",
    "language",
    "programming",
    "exit",
    "return",
    "http",
    "response",
    "some",
    "python",
    "rust",
    "java",
    "legacy",
    "clean",
    "dead",
    "sample",
    "example",
    "test",
    "review",
    "ethics",
    "conduct",
    "building's",
    "civil",
    "penal",
    "criminal",
    "tax",
    "zipcode",
    "source",
    "machine",
    "byte",
    "genetic",
    "cheat",
    "cheats",
    "secret",
    "dress",
    "booking",
    "confirmation",
    "reservation",
    "order",
    "ticket",
    "tracking",
    "voucher",
    "gift",
    "redemption",
    "referral",
    "reference",
    "shipping",
    "delivery",
    "coupon",
    "member",
    "membership",
    "customer",
    "loyalty",
    "event",
    "invite",
    "class",
    "course",
    "room",
    "seat",
    "flight",
    "product",
    "item",
    "article",
    "friend",
    "gamer",
    "player",
    "team",
    "group",
    "join",
    "share",
    "family",
    "meeting",
    "zoom",
];

/// Function words that may follow a secret word before its separator
/// ("the password for the wifi:", "das Passwort für das WLAN lautet").
const FUNCTION: &[&str] = &[
    "for",
    "of",
    "to",
    "on",
    "at",
    "in",
    "from",
    "with",
    "into",
    "my",
    "the",
    "a",
    "an",
    "your",
    "our",
    "his",
    "her",
    "their",
    "this",
    "that",
    "its",
    "now",
    "here",
    "there",
    "used",
    "für",
    "fur",
    "von",
    "vom",
    "zum",
    "zur",
    "zu",
    "meines",
    "meiner",
    "meinem",
    "des",
    "der",
    "die",
    "das",
    "dem",
    "mein",
    "meine",
    "unser",
    "unsere",
    "de",
    "du",
    "pour",
    "à",
    "au",
    "aux",
    "mon",
    "ma",
    "mes",
    "le",
    "la",
    "les",
    "del",
    "para",
    "mi",
    "mis",
    "el",
    "los",
    "las",
    "di",
    "della",
    "dello",
    "per",
    "mio",
    "mia",
    "il",
    "lo",
    "do",
    "da",
    "dos",
    "das",
    "meu",
    "minha",
    "van",
    "voor",
    "mijn",
    "het",
    "een",
    "för",
    "till",
    "på",
    "min",
    "mitt",
    "mine",
    "til",
    "af",
    "dla",
    "od",
    "mój",
    "moje",
    "moja",
    "mého",
    "mé",
    "k",
    "к",
    "от",
    "для",
    "моего",
    "моей",
    "мой",
    "моя",
    "на",
    "в",
    "ke",
    "untuk",
    "saya",
    "của",
    "cho",
];

/// Values a secret word is often followed by that are not secrets.
const PLACEHOLDERS: &[&str] = &[
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
    "***",
    "xxx",
    "****",
    "changeme",
    "ingredient",
    "unknown",
    "none",
    "nothing",
    "empty",
    "blank",
    "set",
    "unset",
    "lost",
    "forgotten",
    "new",
    "old",
    "mine",
    "yours",
    "what",
    "which",
    "where",
    "when",
    "who",
    "how",
    "why",
    "if",
    "whether",
    "no",
    "yes",
    "one",
    "two",
    "sure",
    "gone",
    "invalid",
    "valid",
    "working",
    "broken",
    "locked",
    "blocked",
    "stolen",
    "leaked",
    "compromised",
    "shared",
    "known",
    "weird",
    "silly",
    "stupid",
    "obvious",
    "clear",
    "case-sensitive",
    "sent",
    "emailed",
    "texted",
    "printed",
    "inside",
    "under",
    "behind",
    "something",
    "anything",
    "everything",
    "somewhere",
    "nowhere",
    "easy-to-remember",
    "public",
    "private",
    "personal",
    "important",
    "unique",
    "random",
    "temporary",
    "default",
    "generated",
    "complex",
    "memorable",
    "unchanged",
    "stark",
    "schwach",
    "sicher",
    "fort",
    "faible",
    "fuerte",
    "débil",
    "segura",
    "forte",
    "sterk",
    "zwak",
    "stark",
    "geheim",
    "vergessen",
    "falsch",
    "richtig",
    "neu",
    "alt",
];

/// The value after a secret word, as written: one token (up to a space or
/// a quotation mark), with trailing punctuation and CJK copula endings cut.
fn token_at(text: &str, start: usize) -> Option<Range<usize>> {
    let rest = &text[start..];
    let (open, rest, skip) = match rest.chars().next() {
        Some(q @ ('"' | '\'' | '`' | '“' | '«' | '「' | '『')) => {
            (Some(q), &rest[q.len_utf8()..], q.len_utf8())
        }
        _ => (None, rest, 0),
    };
    let close = |c: char| match open {
        Some('"') => c == '"',
        Some('\'') => c == '\'',
        Some('`') => c == '`',
        Some('“') => c == '”' || c == '"',
        Some('«') => c == '»',
        Some('「') => c == '」',
        Some('『') => c == '』',
        _ => false,
    };
    let mut end = 0;
    for (i, c) in rest.char_indices() {
        let stop = if open.is_some() {
            close(c) || c == '\n'
        } else {
            c.is_whitespace()
                || matches!(
                    c,
                    ',' | ';'
                        | '"'
                        | '“'
                        | '”'
                        | '«'
                        | '»'
                        | '。'
                        | '、'
                        | '，'
                        | '！'
                        | '？'
                        | '」'
                        | '』'
                        | '）'
                        | ')'
                )
        };
        if stop {
            break;
        }
        end = i + c.len_utf8();
    }
    let mut value = &rest[..end];
    if open.is_none() {
        for suffix in [
            "です",
            "でした",
            "だよ",
            "だ",
            "입니다",
            "이에요",
            "예요",
            "이다",
            "야",
        ] {
            if let Some(v) = value.strip_suffix(suffix) {
                value = v;
            }
        }
        value = value.trim_end_matches(['.', '!', '?', ':', ')', ']', '}', '\'']);
    }
    (!value.is_empty()).then(|| start + skip..start + skip + value.len())
}

/// The value of a phrase-shaped secret: to the end of its clause.
fn phrase_at(text: &str, start: usize) -> Option<Range<usize>> {
    let rest = &text[start..];
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        if c == '\n'
            || c == ';'
            || ((c == '.' || c == '!' || c == '?') && rest[i + 1..].starts_with([' ', '\n']))
        {
            end = i;
            break;
        }
    }
    let value = rest[..end].trim_end_matches(['.', '!', '?', ' ']);
    (value.chars().count() >= 3).then(|| start..start + value.len())
}

fn first_word(v: &str) -> String {
    v.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '*')
        .to_lowercase()
}

/// A value given without a separator ("pin 7395") must look like a secret
/// rather than the next word of a sentence.
fn looks_secret(v: &str) -> bool {
    // Mixed case counts past the first letter only: a capitalised word is
    // a German noun ("Passwort für das Bankkonto ist …"), not made up.
    v.chars().any(|c| c.is_ascii_digit())
        || v.chars()
            .any(|c| !c.is_alphanumeric() && !c.is_whitespace())
        || (v.len() >= 8
            && v.chars().skip(1).any(char::is_uppercase)
            && v.chars().any(char::is_lowercase))
}

/// Whether a value read after a secret word may be the secret: not a
/// placeholder ("my password is strong"), digits for a PIN, and, when no
/// separator introduced it, something that looks made up.
fn acceptable(words: &Words, v: &str, separated: bool, after: &str) -> bool {
    let one_word = v.split_whitespace().nth(1).is_none();
    // A plain lower-case word that the sentence goes on after is its next
    // word, not a secret ("mon mot de passe est trop long").
    let prose = words.shape != Shape::Phrase
        && v.chars().all(|c| c.is_alphabetic() && !c.is_uppercase())
        && after
            .trim_start_matches([' ', '\t'])
            .starts_with(|c: char| c.is_alphabetic());
    !(prose
        || (one_word && PLACEHOLDERS.contains(&first_word(v).as_str()))
        || (one_word && FUNCTION.contains(&first_word(v).as_str()))
        || (words.shape == Shape::Digits && !v.chars().any(|c| c.is_ascii_digit()))
        || (!separated && !looks_secret(v))
        || (v.chars().count() < 3 && words.shape != Shape::Digits))
}

/// The word before `at` (lowercase), if any.
fn word_before(text: &str, at: usize) -> String {
    text[..at]
        .trim_end()
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase()
}

/// Secret words and the values they introduce.
fn introduced(text: &str, out: &mut Vec<Found>) {
    for words in WORDS.iter() {
        for caps in words.pattern.captures_iter(text) {
            let Some(w) = caps.name("w").or_else(|| caps.name("c")) else {
                continue;
            };
            if words
                .not_after
                .contains(&word_before(text, w.start()).as_str())
            {
                continue;
            }
            if let Some(value) = value_after(text, w.end(), words) {
                out.push(Found {
                    kind: words.kind,
                    range: value,
                });
            }
        }
    }
}

/// The value a secret word ending at `at` introduces, if it introduces one.
fn value_after(text: &str, mut at: usize, words: &Words) -> Option<Range<usize>> {
    let read = |from: usize| -> Option<Range<usize>> {
        let rest = &text[from..];
        let mut from = from + rest.len() - rest.trim_start().len();
        if let Some(m) = ADVERB.find(&text[from..]) {
            from += m.end();
        }
        match words.shape {
            Shape::Phrase => phrase_at(text, from),
            _ => token_at(text, from),
        }
    };
    // "pin, 4711": a comma may stand for the separator before digits.
    if words.shape == Shape::Digits {
        if let Some(rest) = text[at..].strip_prefix(',') {
            if let Some(v) = read(at + 1 + rest.len() - rest.trim_start().len()) {
                if acceptable(words, &text[v.clone()], true, &text[v.end..]) {
                    return Some(v);
                }
            }
        }
    }
    let mut gaps = 0;
    loop {
        // A separator or copula: the value follows, unless what follows is
        // a word of the sentence ("the password to my email is …": `to`
        // was not the separator).
        if let Some(m) = COPULA.find(&text[at..]).filter(|m| m.end() > 0) {
            if let Some(v) = read(at + m.end()) {
                if acceptable(words, &text[v.clone()], true, &text[v.end..]) {
                    return Some(v);
                }
            }
        }
        // The value right after the word or its gap words, unannounced:
        // only when it looks made up ("pin 7395", "пароль от почты X").
        if (words.bare || gaps > 0) && words.shape != Shape::Phrase {
            if let Some(v) = read(at) {
                let s = &text[v.clone()];
                // After gap words, a made-up token of six characters, or
                // a PIN's digits ("ПИН-код моей карты 6385").
                let pin = words.shape == Shape::Digits && s.chars().count() >= 4;
                if acceptable(words, s, false, &text[v.end..])
                    && (gaps == 0 || pin || s.chars().count() >= 6)
                {
                    return Some(v);
                }
            }
        }
        if gaps == 5 {
            return None;
        }
        // One more word between the secret word and its separator.
        let rest = &text[at..];
        let gap = rest.len() - rest.trim_start().len();
        let word: String = rest[gap..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '\'' | '’'))
            .collect();
        if word.is_empty() || gap == 0 || word.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        // The first word after the secret word must be a function word
        // ("for the wifi", "to my email", "für das WLAN"): any other word
        // makes a compound ("password manager", "secret ingredient",
        // "product key feature"), which names no value.
        let lower = word.to_lowercase();
        if gaps == 0 && (COMPOUND.contains(&lower.as_str()) || !FUNCTION.contains(&lower.as_str()))
        {
            return None;
        }
        at += gap + word.len();
        gaps += 1;
    }
}

/// "I use Rowan99berry as my password", "Maple42 is my new PIN".
static REVERSED: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)(?P<v>[^\s,;:]{3,})\s+(?:as|is|was|ist|war|est|était|es|era|è|é|är|er|jest|je|это)\s+",
        r"(?:now\s+)?(?:my|the|our|his|her|their|mein|meine|mon|ma|mi|il\s+mio|la\s+mia|o\s+meu|a\s+minha|min|mitt|mijn|moje|mój|мой)\s+",
        r"(?:new\s+|current\s+|old\s+|previous\s+|usual\s+|neues\s+|nouveau\s+|nuevo\s+|nueva\s+)?",
        r"(?:wi-?fi\s+|email\s+|bank\s+|phone\s+|laptop\s+|computer\s+|account\s+)?",
        r"(?P<w>password|passcode|pin|pin\s+code|passwort|kennwort|mot\s+de\s+passe|contraseña|senha|wachtwoord|lösenord|hasło|heslo|пароль|şifre|parola)\b"
    ))
});

fn reversed(text: &str, out: &mut Vec<Found>) {
    for caps in REVERSED.captures_iter(text) {
        let (Some(v), Some(w)) = (caps.name("v"), caps.name("w")) else {
            continue;
        };
        let next = first_word(&text[w.end()..]);
        if COMPOUND.contains(&next.as_str())
            || PLACEHOLDERS.contains(&first_word(v.as_str()).as_str())
        {
            continue;
        }
        let value = v
            .as_str()
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '“' | '”'));
        if value.chars().count() < 3 {
            continue;
        }
        out.push(Found {
            kind: "password",
            range: v.range(),
        });
    }
}

/// `DB_PASS=…`, `jwt_secret: …`, `"api_key": "…"`: a key that names a secret.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"(?i)(?:^|[^A-Za-z0-9_.\-])["']?(?P<k>[A-Za-z0-9_.\-]*(?:pass|pwd|secret|token|api_?key|apikey|private_?key|access_?key|"#,
        r#"client_?secret|credential|auth|session_?key|cookie|otp|pin)[A-Za-z0-9_.\-]*)["']?\s*[:=]\s*(?P<v>"[^"\n]*"|'[^'\n]*'|[^\s,;]+)"#
    ))
});

fn assignments(text: &str, out: &mut Vec<Found>) {
    for caps in ASSIGNMENT.captures_iter(text) {
        let (Some(k), Some(v)) = (caps.name("k"), caps.name("v")) else {
            continue;
        };
        let key = k.as_str();
        if key.to_lowercase().contains("author") {
            continue;
        }
        // A key in a program's style (DB_PASS, jwt.secret, apiKey), or one
        // of the plain names: prose like "Pass: the ball" is not one.
        let styled = key.contains(['_', '.', '-'])
            || (key.len() > 1
                && key
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
            || key.chars().skip(1).any(|c| c.is_ascii_uppercase());
        let plain = matches!(
            key.to_lowercase().as_str(),
            "password" | "passwd" | "pwd" | "secret" | "token" | "apikey" | "pass" | "otp" | "pin"
        );
        if !(styled || plain) {
            continue;
        }
        let raw = v.as_str();
        let inner = raw.trim_matches(|c| c == '"' || c == '\'');
        if inner.chars().count() < 3
            || inner.starts_with("${")
            || inner.starts_with('<')
            || inner.starts_with("$(")
            || PLACEHOLDERS.contains(&inner.to_lowercase().as_str())
        {
            continue;
        }
        let start = v.start() + (raw.len() - raw.trim_start_matches(['"', '\'']).len());
        out.push(Found {
            kind: "credential",
            range: start..start + inner.len(),
        });
    }
}

/// Credentials on a command line or in a header.
static COMMAND_LINE: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    vec![
        re(r"(?i)\bsshpass\s+-p\s*(?P<v>\S+)"),
        re(r"(?i)\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s-p(?P<v>[^\s-][^\s]*)"),
        re(r"(?i)\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s--password[= ](?P<v>\S+)"),
        re(
            r"(?i)(?:^|\s)--(?:password|passwd|pass|pwd|token|api-?key|secret|client-secret|auth-token|access-token)(?:=|\s+)(?P<v>[^\s-]\S*)",
        ),
        re(
            r"(?i)\b(?:curl|wget|http|https|httpie|xh)\b[^\n]*?\s(?:-u|--user|--http-user)\s*['\x22]?[^:\s'\x22]*:(?P<v>[^\s'\x22]+)",
        ),
        re(
            r"(?i)\b(?:docker|podman|helm|npm|twine)\s+login\b[^\n]*?\s(?:-p|--password)\s+(?P<v>\S+)",
        ),
        re(
            r"(?i)\bauthorization\s*:\s*(?:basic|bearer|token|digest|apikey|api-key|key|sso-key)\s+(?P<v>[^\s,;]+)",
        ),
        re(
            r"(?i)\b(?:x-api-key|x-auth-token|x-access-token|api-key|private-token)\s*:\s*(?P<v>[^\s,;]+)",
        ),
        re(r"(?i)\b(?:cookie|set-cookie)\s*:\s*(?P<v>[^\s;]+=[^\s;]+)"),
        // A login given as a pair: "Login for the NAS: admin / Tr0ub4dor&3",
        // "credentials: root:hunter22" (the second half is the password).
        re(
            r"(?i)\b(?:login|log-in|logon|sign[- ]?in|credentials?|creds)\b[^\n.]{0,40}?[:=]\s*[\w.@+\-]{1,64}\s*(?:/|:|\|)\s*(?P<v>[^\s/]\S{3,})",
        ),
    ]
});

fn command_lines(text: &str, out: &mut Vec<Found>) {
    for pattern in COMMAND_LINE.iter() {
        for caps in pattern.captures_iter(text) {
            if let Some(v) = caps.name("v") {
                let value = v.as_str().trim_end_matches(['\'', '"', '.', ',']);
                if value.chars().count() >= 3 {
                    out.push(Found {
                        kind: "credential",
                        range: v.start()..v.start() + value.len(),
                    });
                }
            }
        }
    }
}

/// A one-time code: a 4-8 digit number in a sentence about a code that was
/// sent, or a verification or login code.
static OTP_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:texted|texted\s+me|sms|sent\s+me|they\s+sent|verification|verify|verifying|one[- ]time|",
        r"otp|2fa|two[- ]factor|mfa|login\s+code|log-in\s+code|sign[- ]in\s+code|authentication|authenticator|",
        r"confirmation\s+code|security\s+code|auth\s+code|bestätigungscode|bestaetigungscode|",
        r"verifizierungscode|código\s+de\s+verificación|codigo\s+de\s+verificacion|code\s+de\s+vérification|",
        r"code\s+de\s+confirmation|codice\s+di\s+verifica|código\s+de\s+confirmação|verificatiecode|",
        r"код\s+подтверждения|doğrulama\s+kodu|kod\s+weryfikacyjny)\b|验证码|認証コード|인증번호|확인\s*코드"
    ))
});
static OTP_VALUE: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(?:\d[ \-]?){3,7}\d(?-u:\b)"));

fn one_time_codes(text: &str, out: &mut Vec<Found>) {
    for (start, sentence) in sentences(text) {
        if !OTP_CONTEXT.is_match(sentence) {
            continue;
        }
        for m in OTP_VALUE.find_iter(sentence) {
            // Not a time ("at 10:45"), a year or a price.
            let before = &sentence[..m.start()];
            let after = &sentence[m.end()..];
            let dated = m.as_str().len() == 10 && m.as_str().as_bytes().get(4) == Some(&b'-');
            if before.ends_with([':', '$', '€', '£', '/', '.', '+'])
                || after.starts_with([':', '/', '.', ','])
                    && after[1..].starts_with(|c: char| c.is_ascii_digit())
                || dated
            {
                continue;
            }
            out.push(Found {
                kind: "one-time code",
                range: start + m.start()..start + m.end(),
            });
        }
    }
}

/// Identity documents named before their number, for those whose number
/// has no checksum (a passport, a driving licence, an Indonesian NIK).
static DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:(?:passport|pasaporte|passeport|reisepass|passaporto|passaporte|paspoort|паспорт|",
        r"driver'?s\s+licen[cs]e|driving\s+licen[cs]e|führerschein|fuehrerschein|permis\s+de\s+conduire|",
        r"nik|nin|nino|cnic|nric|personalausweis|ausweis|cédula|cedula|dni|nie|nif|cpf|aadhaar|aadhar|",
        r"bsn|pesel|snils|curp|rfc|codice\s+fiscale|nir|rrn|(?-i:My\s+Number)|kimlik|ssn)",
        r"(?:\s+(?:card|document))?(?:\s+(?:number|numbers|no|num|nr|nummer|numéro|número|numero|#))?",
        r"|(?:id|identity|identification|national\s+id|national\s+identity|national\s+insurance|",
        r"social\s+security|tax|tax\s+id|licen[cs]e|sin|inn|pan|rg)",
        r"(?:\s+card)?\s+(?:number|no|num|nr|nummer|numéro|número|numero|#))\.?",
        r"(?:\s+(?:is|was|ist|est|es|è|é)|\s*[:#=])?\s*",
        r"(?P<v>[A-Z0-9](?:[ \-.]?[A-Z0-9]){4,20})"
    ))
});

fn documents(text: &str, out: &mut Vec<Found>) {
    for caps in DOCUMENT.captures_iter(text) {
        let Some(v) = caps.name("v") else { continue };
        let value = v.as_str();
        let digits = value.chars().filter(char::is_ascii_digit).count();
        let letters = value.chars().filter(char::is_ascii_alphabetic).count();
        // A number, not a word ("ID card", "tax return").
        if digits >= 5 && digits + letters >= 6 && letters <= 4 {
            out.push(Found {
                kind: "national id number",
                range: v.range(),
            });
        }
    }
}

/// The sentences of `text` with their byte offsets.
fn sentences(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let boundary = c == '\n'
            || c == '。'
            || ((c == '.' || c == '!' || c == '?') && text[end..].starts_with([' ', '\n']));
        if boundary {
            out.push((start, &text[start..end]));
            start = end;
        }
    }
    if start < text.len() {
        out.push((start, &text[start..]));
    }
    out
}

/// `KEY=VALUE` forms whose key names a secret (normalised already): what
/// an identifier is screened for among named secrets.
pub(super) fn find_assignments(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    assignments(text, &mut out);
    out
}

/// Every named secret in `text` (normalised already).
pub(super) fn find(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    introduced(text, &mut out);
    reversed(text, &mut out);
    assignments(text, &mut out);
    command_lines(text, &mut out);
    one_time_codes(text, &mut out);
    documents(text, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<String> {
        let mut found: Vec<String> = find(text)
            .into_iter()
            .map(|f| text[f.range].to_owned())
            .collect();
        found.sort();
        found.dedup();
        found
    }

    #[test]
    fn a_login_given_as_a_pair_loses_its_password() {
        for (text, value) in [
            (
                "Login for the NAS: admin / Tr0ub4dor&3. I use Synology.",
                "Tr0ub4dor&3",
            ),
            ("credentials: root:hunter22", "hunter22"),
            ("Sign-in for the router = admin | Xq9-vv7z", "Xq9-vv7z"),
        ] {
            assert_eq!(values(text), [value], "{text}");
        }
        for text in [
            "I log in at 9: then I check mail.",
            "Login page: https://example.com",
        ] {
            assert!(values(text).is_empty(), "{text}: {:?}", values(text));
        }
    }

    #[test]
    fn values_after_secret_words_in_any_syntax() {
        for (text, value) in [
            ("my password is now Maple42leaf", "Maple42leaf"),
            ("the password for the wifi: Aspen77tree", "Aspen77tree"),
            ("мой пароль: Medved1977", "Medved1977"),
            ("私のパスワードはSakura2024です", "Sakura2024"),
            ("我的密码是Panda8866", "Panda8866"),
            ("mi contraseña es Girasol42", "Girasol42"),
            ("mot de passe : Soleil2024", "Soleil2024"),
            ("das Passwort lautet Bergsee55", "Bergsee55"),
            ("PIN 4711", "4711"),
            ("password = \"hunter2hunter\"", "hunter2hunter"),
            ("wachtwoord: Tulpen2024", "Tulpen2024"),
        ] {
            assert_eq!(values(text), [value], "{text}");
        }
    }

    #[test]
    fn other_syntaxes() {
        assert_eq!(
            values("I use Rowan99berry as my password"),
            ["Rowan99berry"]
        );
        assert_eq!(values("DB_PASS=s3cr3tvalue"), ["s3cr3tvalue"]);
        assert_eq!(values("jwt_secret=abcdefgh123"), ["abcdefgh123"]);
        assert_eq!(values("sshpass -p Kx9pass ssh me@host"), ["Kx9pass"]);
        assert_eq!(values("curl -u admin:Tr0ub4dor https://x"), ["Tr0ub4dor"]);
        assert_eq!(values("the code they texted me is 482913"), ["482913"]);
        assert_eq!(values("passport number: X12345678"), ["X12345678"]);
    }

    #[test]
    fn look_alikes_name_no_value() {
        for text in [
            "I use Bitwarden as my password manager",
            "My password manager is Bitwarden.",
            "my code review is at 3pm",
            "The password policy requires 12 characters.",
            "I reset my PIN yesterday.",
            "My PIN is the same as my old one.",
            "My zip code is 94110.",
            "The key to success is practice.",
            "Call me at 415 555 0123.",
            "My ID card expired last year.",
            "I did my tax return in April.",
        ] {
            assert_eq!(values(text), Vec::<String>::new(), "{text}");
        }
    }
}
