//! Innocent look-alikes of secrets, generated: phone numbers, order and
//! tracking numbers, dates, prices, ISBNs, versions, postcodes, times, and
//! sentences that name a secret word without giving a secret. None of them
//! may be redacted.

use super::{part_of, text, Part, Rng};

pub struct Case {
    pub class: &'static str,
    pub part: Part,
    pub text: String,
}

fn isbn13(rng: &mut Rng) -> String {
    let mut ds = vec![9, 7, 8 + rng.digit() % 2];
    ds.extend(rng.digits(9));
    let s: u32 = ds
        .iter()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 0 { d } else { d * 3 })
        .sum();
    ds.push((10 - s % 10) % 10);
    let t = text(&ds);
    format!(
        "{}-{}-{}-{}-{}",
        &t[0..3],
        &t[3..4],
        &t[4..8],
        &t[8..12],
        &t[12..]
    )
}

fn phone(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => format!("({}) 555-{:04}", 200 + rng.below(800), rng.below(10000)),
        1 => format!(
            "+44 20 {} {}",
            7000 + rng.below(2999),
            1000 + rng.below(8999)
        ),
        2 => format!("+49 30 {}", 1_000_000 + rng.below(8_999_999)),
        3 => format!("06{}", 10_000_000 + rng.below(89_999_999)),
        4 => format!(
            "+1 {}-{}-{:04}",
            200 + rng.below(800),
            200 + rng.below(800),
            rng.below(10000)
        ),
        5 => format!(
            "+33 6 {:02} {:02} {:02} {:02}",
            rng.below(100),
            rng.below(100),
            rng.below(100),
            rng.below(100)
        ),
        6 => format!(
            "+91 {} {}",
            90_000 + rng.below(9_999),
            10_000 + rng.below(89_999)
        ),
        _ => format!(
            "0{} {}",
            7000 + rng.below(999),
            100_000 + rng.below(899_999)
        ),
    }
}

fn order(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!(
            "{}-{}-{}",
            text(&rng.digits(3)),
            text(&rng.digits(7)),
            text(&rng.digits(7))
        ),
        1 => format!("#A{}", text(&rng.digits(8))),
        2 => format!("INV-2024-{:05}", rng.below(100_000)),
        3 => format!("{}", 10_000_000 + rng.below(89_999_999)),
        _ => format!("ORD{}", text(&rng.digits(10))),
    }
}

fn tracking(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("1Z{}{}", rng.alnum(6).to_uppercase(), text(&rng.digits(10))),
        1 => format!(
            "9400 {} {} {} {} {}",
            text(&rng.digits(4)),
            text(&rng.digits(4)),
            text(&rng.digits(4)),
            text(&rng.digits(4)),
            text(&rng.digits(2))
        ),
        2 => text(&rng.digits(12)),
        _ => format!("JD{}GB", text(&rng.digits(9))),
    }
}

fn date(rng: &mut Rng) -> String {
    let (y, m, d) = (1950 + rng.below(80), 1 + rng.below(12), 1 + rng.below(28));
    match rng.below(4) {
        0 => format!("{y}-{m:02}-{d:02}"),
        1 => format!("{d:02}/{m:02}/{y}"),
        2 => format!("{d}.{m}.{y}"),
        _ => format!("{m}/{d}/{y}"),
    }
}

fn price(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!(
            "${},{:03}.{:02}",
            1 + rng.below(99),
            rng.below(1000),
            rng.below(100)
        ),
        1 => format!("€{}.{:02}", rng.below(1000), rng.below(100)),
        2 => format!("{} EUR", rng.below(100_000)),
        _ => format!("£{}", rng.below(5000)),
    }
}

fn version(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => format!("v{}.{}.{}", rng.below(10), rng.below(30), rng.below(100)),
        1 => format!(
            "{}.{}.{}-beta.{}",
            rng.below(5),
            rng.below(20),
            rng.below(50),
            rng.below(9)
        ),
        _ => format!("build {}", 10_000 + rng.below(90_000)),
    }
}

fn postcode(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!(
            "SW{} {}{}{}",
            1 + rng.below(20),
            1 + rng.below(9),
            rng.upper(),
            rng.upper()
        ),
        1 => format!("{:05}", 10_000 + rng.below(89_999)),
        2 => format!("{} {}{}", 1000 + rng.below(8999), rng.upper(), rng.upper()),
        3 => format!("{:03}-{:04}", rng.below(1000), rng.below(10000)),
        _ => format!(
            "H{}{} {}{}{}",
            rng.digit(),
            rng.upper(),
            rng.digit(),
            rng.upper(),
            rng.digit()
        ),
    }
}

fn imei(rng: &mut Rng) -> String {
    // 15 digits, Luhn-valid: a phone's serial, not a card.
    let mut ds = vec![3, 5];
    ds.extend(rng.digits(12));
    let sum: u32 = ds
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
    ds.push((10 - sum % 10) % 10);
    text(&ds)
}

fn network(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("192.168.{}.{}", rng.below(256), rng.below(256)),
        1 => format!(
            "10.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            rng.below(256)
        ),
        2 => (0..6)
            .map(|_| format!("{:02x}", rng.below(256)))
            .collect::<Vec<_>>()
            .join(":"),
        _ => format!("{:x}", rng.next()),
    }
}

fn counts(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => (1..=16)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        1 => (0..6)
            .map(|_| (1 + rng.below(49)).to_string())
            .collect::<Vec<_>>()
            .join(" "),
        2 => format!(
            "{},{:03},{:03}",
            1 + rng.below(999),
            rng.below(1000),
            rng.below(1000)
        ),
        3 => format!("{}", 1_600_000_000 + rng.below(200_000_000)),
        _ => format!("{}-{}-{}", rng.below(30), rng.below(30), rng.below(30)),
    }
}

fn code(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("SAVE{}", 10 + rng.below(60)),
        1 => format!(
            "{}{}{}{}{}{}",
            rng.upper(),
            rng.upper(),
            rng.upper(),
            rng.digit(),
            rng.digit(),
            rng.digit()
        ),
        2 => format!("WELCOME{}", 2020 + rng.below(8)),
        _ => format!("{}", 100 + rng.below(900)),
    }
}

const NUMBER_TEMPLATES: &[(&str, &[&str])] = &[
    (
        "phone serial (IMEI)",
        &[
            "my phone's IMEI is {v}",
            "IMEI: {v}",
            "the repair shop needs the IMEI {v}",
        ],
    ),
    (
        "network address or hash",
        &[
            "the printer is at {v}",
            "my router's MAC is {v}",
            "build hash {v}",
            "ping {v} to check",
        ],
    ),
    (
        "counts and scores",
        &[
            "the numbers were {v}",
            "we scored {v} over three rounds",
            "population {v}",
            "timestamp {v}",
            "my lottery numbers are {v}",
        ],
    ),
    (
        "promo, booking and error codes",
        &[
            "use the promo code {v} at checkout",
            "my booking code is {v}",
            "error code {v} again",
            "the discount code {v} expired",
            "zip code {v}",
            "area code {v}",
            "the confirmation number is {v}",
        ],
    ),
    (
        "phone number",
        &[
            "Call me at {v}.",
            "my number is {v}",
            "text me on {v} after six",
            "Meine Nummer ist {v}.",
            "mi teléfono es {v}",
            "the office line is {v}",
        ],
    ),
    (
        "order number",
        &[
            "My order {v} arrived late.",
            "order number: {v}",
            "refund for order {v} please",
            "Bestellnummer {v}",
            "the invoice {v} is paid",
        ],
    ),
    (
        "tracking number",
        &[
            "The tracking number is {v}.",
            "track it with {v}",
            "parcel {v} is at the depot",
        ],
    ),
    (
        "date",
        &[
            "I was born on {v}.",
            "the meeting is on {v}",
            "we married {v}",
            "due {v}",
        ],
    ),
    (
        "price",
        &[
            "It costs {v}.",
            "I paid {v} for the bike",
            "rent is {v} a month",
        ],
    ),
    (
        "ISBN",
        &[
            "ISBN {v}",
            "the book's ISBN is {v}",
            "order ISBN {v} for the library",
        ],
    ),
    (
        "version",
        &[
            "I'm on {v} of the app.",
            "upgrade to {v}",
            "the bug appeared in {v}",
        ],
    ),
    (
        "postcode",
        &[
            "My postcode is {v}.",
            "we moved to {v}",
            "zip code {v}",
            "die Postleitzahl ist {v}",
        ],
    ),
];

/// Sentences with a secret word and no secret.
const WORD_SENTENCES: &[&str] = &[
    "my code review is at 3pm",
    "I use Bitwarden as my password manager",
    "I forgot my password again",
    "The password policy requires 12 characters and a symbol.",
    "I reset my PIN yesterday.",
    "My PIN is the same as my old one.",
    "the key to success is practice",
    "Tokens in this game cost 5 coins each.",
    "We do Secret Santa every December.",
    "The access code comes in the email, it changes daily.",
    "I keep my passwords in 1Password.",
    "Mein Passwort-Manager ist KeePass.",
    "J'ai oublié mon mot de passe.",
    "Olvidé mi contraseña otra vez.",
    "my password is strong",
    "the secret ingredient is smoked paprika",
    "I changed my password last week",
    "the wifi password is on the fridge",
    "Our product key feature is search.",
    "two factor authentication is annoying",
    "the PIN pad at the shop was broken",
    "I have a dentist appointment on 12 May at 10:30.",
    "My ID card expired last year.",
    "I did my tax return in April.",
    "My license plate is KA 01 AB 1234.",
    "I scored 1450 on the SAT.",
    "Room 4021 on the fourth floor.",
    "I run 5000 steps a day and 10 km on Sundays.",
    "My flight AF1234 leaves at 07:45 from gate 12.",
    "The serial number of my bike is WTU123X4567.",
    "I ordered 3 pizzas and 2 salads.",
    "Our team has 11 players and 4 coaches.",
    "The verification step took 3 days.",
    "I'll send you the code tomorrow.",
    "The commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it.",
    "My user id is 0192f6a8-7c3e-7b2a-9d4e-1f2a3b4c5d6e.",
    "The server is at 192.168.1.20.",
    "I paid with my Visa card yesterday.",
    "My bank is ING and my account is in Amsterdam.",
    "I need a new passport photo.",
    "I need to change my PIN before Friday.",
    "The new PIN for the card arrives by mail.",
    "My password has at least 12 characters.",
    "I wrote my passwords in a notebook.",
    "The token ring network was slow.",
    "I hold 3 tokens for the arcade.",
    "The security code on the back is scratched.",
    "Our door code changes every month.",
    "My passport expires in 2031.",
    "My tax ID application is pending.",
    "He asked for my social security card, not the number.",
    "The verification email never came.",
    "The IBAN field on the form is mandatory.",
    "My card was declined twice.",
    "Mon code postal est 75011.",
    "Mi código postal es 28013.",
    "Meine Postleitzahl ist 10115.",
    "The code of conduct is on the wiki.",
    "I keep a secret diary.",
    "the building code requires two exits",
    "Mein Passwort ist zu kurz.",
    "Mon mot de passe est trop long.",
    "Mi contraseña es segura.",
    "The key is under the mat.",
    "I lost the key to the shed.",
    "My API design uses REST and gRPC.",
    "Reference number RF18 5390 0754 7034 is on the letter.",
    "I have 2 kids, aged 7 and 9, and 1 dog.",
    "Patient number 42 was called at 10:15.",
];

pub fn cases() -> Vec<Case> {
    let mut rng = Rng::new(1234);
    let mut out = Vec::new();
    for (class, templates) in NUMBER_TEMPLATES {
        for t in templates.iter() {
            for _ in 0..12 {
                let v = match *class {
                    "phone number" => phone(&mut rng),
                    "order number" => order(&mut rng),
                    "tracking number" => tracking(&mut rng),
                    "date" => date(&mut rng),
                    "price" => price(&mut rng),
                    "ISBN" => isbn13(&mut rng),
                    "version" => version(&mut rng),
                    "phone serial (IMEI)" => imei(&mut rng),
                    "network address or hash" => network(&mut rng),
                    "counts and scores" => counts(&mut rng),
                    "promo, booking and error codes" => code(&mut rng),
                    _ => postcode(&mut rng),
                };
                let text = t.replace("{v}", &v);
                out.push(Case {
                    class,
                    part: part_of(&text, class),
                    text,
                });
            }
        }
    }
    for s in WORD_SENTENCES {
        out.push(Case {
            class: "secret word, no secret",
            part: part_of(s, "word"),
            text: (*s).to_owned(),
        });
    }
    out
}
