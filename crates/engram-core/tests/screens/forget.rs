//! Ways of asking to forget, generated: English wordings (polite, blunt,
//! lower case, with typos), the same in other languages, and asking to
//! forget everything; beside them what is not a request to forget ("I
//! forgot my keys", a retraction, a plain fact).

use super::{part_of, Part, Rng};

pub struct Case {
    pub class: &'static str,
    pub part: Part,
    pub text: String,
    /// The value the request names (empty: everything, or not a request).
    pub value: String,
    /// Whether it is a request to forget.
    pub forget: bool,
    /// Whether it asks to forget everything about the user.
    pub everything: bool,
    /// A key the request must reach when it names a category ("my music
    /// taste" reaches `favorite.band`).
    pub reaches: Option<&'static str>,
}

const CITIES: &[&str] = &["Berlin", "Lisbon", "Tokyo", "Oslo", "Madrid"];
const ORGS: &[&str] = &["Siemens", "Acme", "Netflix", "Airbus"];

/// (English fact, value, German, Spanish, French, Italian, Portuguese, Dutch, Russian).
fn fact(rng: &mut Rng) -> [String; 9] {
    if rng.below(2) == 0 {
        let c = *rng.pick(CITIES);
        [
            format!("I live in {c}"),
            c.into(),
            format!("ich in {c} wohne"),
            format!("vivo en {c}"),
            format!("j'habite à {c}"),
            format!("vivo a {c}"),
            format!("moro em {c}"),
            format!("ik in {c} woon"),
            format!("я живу в {c}"),
        ]
    } else {
        let o = *rng.pick(ORGS);
        [
            format!("I work at {o}"),
            o.into(),
            format!("ich bei {o} arbeite"),
            format!("trabajo en {o}"),
            format!("je travaille chez {o}"),
            format!("lavoro da {o}"),
            format!("trabalho na {o}"),
            format!("ik bij {o} werk"),
            format!("я работаю в {o}"),
        ]
    }
}

const ENGLISH: &[&str] = &[
    "Please forget that {f}.",
    "forget that {f}",
    "Can you forget that {f}?",
    "I don't want you to remember that {f}.",
    "Never mind what I said about {v}.",
    "Scratch that, {f} is not something to keep.",
    "Remove {v} from your memory.",
    "Delete the {v} thing.",
    "Don't keep that {f}.",
    "Don't store that {f}.",
    "Stop remembering that {f}.",
    "pls forget {v}",
    "forgt that {f}",
    "Erase the fact that {f}.",
    "You can forget about {v} now.",
    "Wipe {v} from memory.",
    "Could you delete what I told you about {v}?",
    "I'd rather you didn't remember that {f}.",
    "Please unremember {v}.",
    "Drop the part about {v} from your notes.",
];

/// {f}: the fact in the language of the template (index into `fact`).
const OTHER: &[(usize, &str)] = &[
    (2, "Vergiss, dass {f}."),
    (2, "Bitte vergiss, dass {f}."),
    (2, "Lösche bitte, dass {f}."),
    (3, "Olvida que {f}."),
    (3, "Por favor, olvida que {f}."),
    (3, "Borra que {f}."),
    (4, "Oublie que {f}."),
    (4, "Efface que {f}, s'il te plaît."),
    (5, "Dimentica che {f}."),
    (5, "Cancella che {f}."),
    (6, "Esqueça que {f}."),
    (6, "Apague que {f}."),
    (7, "Vergeet dat {f}."),
    (8, "Забудь, что {f}."),
];

/// Issue 51: the languages kept verbatim that forgetting did not read,
/// as (language, template, the city in that language's script); {c} is
/// the city. Written with the mechanism (not held out).
const MORE_LANGUAGES: &[(&str, &str)] = &[
    ("zh", "请忘记我住在{c}。"),
    ("zh", "忘掉我住在{c}这件事吧"),
    ("zh", "请把我住在{c}这件事删掉。"),
    ("ja", "私が{c}に住んでいることを忘れてください。"),
    ("ja", "{c}に住んでいることは削除して。"),
    ("ko", "내가 {c}에 산다는 것을 잊어 주세요."),
    ("ko", "{c}에 사는 거 지워 줘."),
    ("tr", "{c}'da yaşadığımı unut."),
    ("tr", "Lütfen {c}'da yaşadığımı unutun."),
    ("ar", "من فضلك انس أنني أعيش في {c}."),
    ("ar", "احذف أنني أعيش في {c}."),
    ("hi", "कृपया भूल जाइए कि मैं {c} में रहता हूँ।"),
    ("hi", "{c} में रहने वाली बात भूल जाओ।"),
    ("id", "Tolong lupakan bahwa saya tinggal di {c}."),
    ("id", "Hapus bahwa saya tinggal di {c}."),
    ("vi", "Hãy quên rằng tôi sống ở {c}."),
    ("vi", "Xóa chuyện tôi sống ở {c} đi."),
    ("el", "Ξέχασε ότι μένω στο {c}."),
    ("el", "Σε παρακαλώ διέγραψε ότι μένω στο {c}."),
];

/// Oslo and Berlin as each of those languages writes them.
fn city(lang: &str, berlin: bool) -> &'static str {
    match (lang, berlin) {
        ("zh", false) => "奥斯陆",
        ("zh", true) => "柏林",
        ("ja", false) => "オスロ",
        ("ja", true) => "ベルリン",
        ("ko", false) => "오슬로",
        ("ko", true) => "베를린",
        ("ar", false) => "أوسلو",
        ("ar", true) => "برلين",
        ("hi", false) => "ओस्लो",
        ("hi", true) => "बर्लिन",
        ("el", false) => "Όσλο",
        ("el", true) => "Βερολίνο",
        (_, false) => "Oslo",
        (_, true) => "Berlin",
    }
}

/// Issue 51's English wordings and their kin.
const MORE_ENGLISH: &[&str] = &[
    "Wipe everything about {v}.",
    "GDPR request: remove my location data.",
    "That's private, delete that {f}.",
    "You no longer need to know that {f}, forget it.",
    "Privacy request: forget that {f}.",
    "Ugh, that's personal, please forget that {f}.",
    "You don't need to remember that {f}.",
    "Erase everything regarding {v}.",
];

/// Asking to forget a category of the user's facts, not one fact.
const CATEGORY: &[&str] = &[
    "Can you erase my {c}?",
    "Stop remembering my {c}, please.",
    "Delete my {c}.",
    "Please wipe my {c} for good.",
    "Forget my {c}.",
    "Could you remove my {c}, thanks.",
    "I don't want you to remember my {c}.",
    "pls get rid of my {c}",
];

/// (category as said, a key it reaches).
const CATEGORIES: &[(&str, &str)] = &[
    ("address", "location.city"),
    ("home address", "address"),
    ("music taste", "favorite.band"),
    ("taste in music", "favorite.song"),
    ("phone number", "phone"),
    ("contact details", "email"),
    ("job info", "employer"),
    ("food preferences", "diet"),
    ("health info", "allergy.penicillin"),
    ("travel plans", "plan.travel"),
    ("hobbies", "hobby"),
    ("birthday", "birthday"),
];

const EVERYTHING: &[&str] = &[
    "Please forget everything you know about me.",
    "Forget all about me.",
    "Delete everything you have about me.",
    "Erase all my data from your memory.",
    "forget everything about me",
    "Vergiss alles über mich.",
    "Olvida todo sobre mí.",
    "Oublie tout ce que tu sais sur moi.",
    "Dimentica tutto di me.",
    "Esqueça tudo sobre mim.",
];

const NOT_FORGET: &[&str] = &[
    "I forgot my keys at home.",
    "I always forget my umbrella.",
    "Don't forget to call your mother.",
    "I no longer live in Berlin.",
    "I live in Lisbon now.",
    "I deleted my Facebook account.",
    "Remove the onions from the recipe.",
    "I keep forgetting that I live in a new city.",
    "Never forget your roots.",
    "I forgot that I had a dentist appointment.",
    "Clear my calendar for Friday.",
    "Remove my name from the email draft.",
    "Delete my photos on the shared drive.",
];

pub fn cases() -> Vec<Case> {
    let mut rng = Rng::new(2829);
    let mut out = Vec::new();
    for t in ENGLISH {
        for _ in 0..4 {
            let f = fact(&mut rng);
            out.push(Case {
                class: "English wording",
                part: part_of(t, "en"),
                text: t.replace("{f}", &f[0]).replace("{v}", &f[1]),
                value: f[1].clone(),
                forget: true,
                everything: false,
                reaches: None,
            });
        }
    }
    for (lang, t) in OTHER {
        for _ in 0..4 {
            let f = fact(&mut rng);
            out.push(Case {
                class: "other languages",
                part: part_of(t, "other"),
                text: t.replace("{f}", &f[*lang]),
                value: f[1].clone(),
                forget: true,
                everything: false,
                reaches: None,
            });
        }
    }
    for (lang, t) in MORE_LANGUAGES {
        for berlin in [false, true] {
            let c = city(lang, berlin);
            out.push(Case {
                class: "more languages (issue 51)",
                part: part_of(t, lang),
                text: t.replace("{c}", c),
                value: c.to_owned(),
                forget: true,
                everything: false,
                reaches: None,
            });
        }
    }
    for t in MORE_ENGLISH {
        for _ in 0..3 {
            let f = fact(&mut rng);
            let location = t.contains("location");
            out.push(Case {
                class: "English wording (issue 51)",
                part: part_of(t, "en51"),
                text: t.replace("{f}", &f[0]).replace("{v}", &f[1]),
                value: if location {
                    "location".into()
                } else {
                    f[1].clone()
                },
                forget: true,
                everything: false,
                reaches: location.then_some("location.city"),
            });
        }
    }
    for t in CATEGORY {
        for _ in 0..3 {
            let (c, key) = *rng.pick(CATEGORIES);
            out.push(Case {
                class: "a category of facts",
                part: part_of(t, "category"),
                text: t.replace("{c}", c),
                value: c.to_owned(),
                forget: true,
                everything: false,
                reaches: Some(key),
            });
        }
    }
    for t in EVERYTHING {
        out.push(Case {
            class: "forget everything",
            part: part_of(t, "all"),
            text: (*t).to_owned(),
            value: String::new(),
            forget: true,
            everything: true,
            reaches: None,
        });
    }
    for t in NOT_FORGET {
        out.push(Case {
            class: "not a request to forget",
            part: part_of(t, "not"),
            text: (*t).to_owned(),
            value: String::new(),
            forget: false,
            everything: false,
            reaches: None,
        });
    }
    out
}
