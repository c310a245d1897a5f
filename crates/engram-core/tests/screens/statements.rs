//! Statements, generated: plain first-person facts (which must be stored)
//! and the same facts inside what asserts nothing (sarcasm, conditions and
//! scenarios, questions without a question mark, other people's words and
//! beliefs, quoted examples, lists of options), which must store nothing.

use super::{part_of, Part, Rng};

pub struct Case {
    pub class: &'static str,
    pub part: Part,
    pub text: String,
    /// The fact's value: stored for a plain fact, never for the others.
    pub value: String,
    /// Whether a fact must be read (a plain first-person statement).
    pub sincere: bool,
}

const CITIES: &[&str] = &[
    "Berlin", "Tokyo", "Rome", "Lisbon", "Austin", "Oslo", "Munich", "Porto", "Dublin", "Seoul",
];
const ORGS: &[&str] = &[
    "NASA", "Acme", "Siemens", "Google", "Netflix", "Initech", "Spotify", "Airbus",
];
const PETS: &[&str] = &["Rex", "Bella", "Milo", "Luna", "Bello"];
const JOBS: &[&str] = &["nurse", "pilot", "teacher", "lawyer", "chef", "plumber"];

/// A fact in the first person, its value, and the same fact as a yes/no
/// question without its question mark.
fn fact(rng: &mut Rng) -> (String, String, String) {
    match rng.below(11) {
        5 => {
            let d = *rng.pick(&["vegetarian", "vegan", "pescatarian"]);
            (format!("I'm {d}"), d.into(), format!("am I {d}"))
        }
        6 => {
            let n = *rng.pick(&["Anna", "Marta", "Lena", "Sofia"]);
            (
                format!("my wife's name is {n}"),
                n.into(),
                format!("is my wife's name {n}"),
            )
        }
        7 => {
            let x = *rng.pick(&["hiking", "chess", "jazz", "sushi", "tennis"]);
            (format!("I love {x}"), x.into(), format!("do I love {x}"))
        }
        8 => {
            let a = 20 + rng.below(50);
            (
                format!("I am {a} years old"),
                a.to_string(),
                format!("am I {a} years old"),
            )
        }
        9 => {
            let c = *rng.pick(CITIES);
            (format!("I'm from {c}"), c.into(), format!("am I from {c}"))
        }
        10 => {
            let o = *rng.pick(ORGS);
            (
                format!("I just started a new job at {o}"),
                o.into(),
                format!("did I start a new job at {o}"),
            )
        }
        0 => {
            let c = *rng.pick(CITIES);
            (
                format!("I live in {c}"),
                c.into(),
                format!("do I live in {c}"),
            )
        }
        1 => {
            let o = *rng.pick(ORGS);
            (
                format!("I work at {o}"),
                o.into(),
                format!("do I work at {o}"),
            )
        }
        2 => {
            let p = *rng.pick(PETS);
            (
                format!("my dog is called {p}"),
                p.into(),
                format!("is my dog called {p}"),
            )
        }
        3 => {
            let j = *rng.pick(JOBS);
            (format!("I am a {j}"), j.into(), format!("am I a {j}"))
        }
        _ => {
            let c = *rng.pick(CITIES);
            (
                format!("I moved to {c}"),
                c.into(),
                format!("did I move to {c}"),
            )
        }
    }
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

const PLAIN: &[&str] = &[
    "{F}.",
    "By the way, {f}.",
    "Just so you know, {f}.",
    "{F} and I love it.",
    "{F}, since last year.",
    "Quick update: {f}.",
    "FYI {f}.",
    "{F}!",
    "Hi! {F}.",
    "{F}, as you know.",
    "Oh and {f}.",
    "{F}. Just wanted to share.",
    "Good morning! {F}.",
    "Hey, {f} now.",
    "Thanks! {F}.",
    "So, {f}.",
    "Well, {f}.",
    "Honestly, {f}.",
    "{F} - that's all for today.",
    "Small thing: {f}.",
];

const NOT_STATEMENTS: &[(&str, &[&str])] = &[
    (
        "sarcasm or a joke",
        &[
            "Yeah right, {f}, obviously.",
            "Sure, {f}, and I'm the Queen of England.",
            "{F} /s",
            "Oh totally, {f}... not.",
            "As if {f}!",
            "{F}, lol jk.",
            "{F} — just kidding.",
            "{F}, said no one ever.",
            "Haha, {f}, in my dreams.",
            "Ja klar, {f}, natürlich.",
        ],
    ),
    (
        "condition or scenario",
        &[
            "When {f}, I'll be happy.",
            "Once {f}, we can talk.",
            "Provided {f}, the plan works.",
            "In the event that {f}, call my sister.",
            "Hypothetically, {f}.",
            "Pretend {f}.",
            "Let's role-play: {f}.",
            "Imagine {f}.",
            "If {f}, what would change?",
            "Suppose {f}.",
            "In this story, {f}.",
            "For the game, {f}.",
        ],
    ),
    (
        "question without a question mark",
        &[
            "{Q}",
            "is it true that {f}",
            "I wonder whether {f}",
            "I wonder if {f}",
            "can you check whether {f}",
            "tell me if {f}",
            "not sure whether {f} or not",
            "{Q} or not",
        ],
    ),
    (
        "someone else's words or belief",
        &[
            "My mom is convinced {f}.",
            "He assumes {f}.",
            "My friend jokes that {f}.",
            "There's a rumour that {f}.",
            "The letter states that {f}.",
            "My ex claims {f}.",
            "Assistant: {F}.",
            "Everyone thinks {f}, but it's not true.",
            "People keep saying {f}.",
            "The form says {f}.",
        ],
    ),
    (
        "quoted example",
        &[
            "For example, \"{f}\" is a sentence.",
            "Type something like '{f}' to test it.",
            "The example sentence is: {f}.",
            "e.g. \"{f}\"",
            "A sample message: \"{F}.\"",
            "Translate \"{f}\" into German.",
        ],
    ),
    // Issue 51: a tag asking to confirm, a text or form read out, a
    // template, a game's or story's world (written with the mechanism).
    (
        "tag question",
        &[
            "{F}, don't I",
            "{F}, right",
            "{F}, isn't that so?",
            "{F}, correct?",
            "{F}, no?",
            "{F}, yeah?",
            "So {f}, right?",
            "{F}, am I right?",
        ],
    ),
    (
        "a text, form or template",
        &[
            "The song goes: {f}",
            "Lyrics: {f}",
            "The form auto-filled that {f}.",
            "Template: {F}, <NAME> here.",
            "The caption reads: {f}.",
            "My cover letter template says {f}, signed [NAME].",
            "The autofill put in that {f}.",
            "The poem begins: {f}.",
            "Sample line: {F}.",
            "Draft: {F}. Regards, {{name}}",
        ],
    ),
    (
        "a game or story world",
        &[
            "In Skyrim {f}.",
            "In The Sims, {f}.",
            "In Minecraft {f}.",
            "In Stardew Valley, {f}.",
            "In my D&D campaign {f}.",
            "In Animal Crossing {f}.",
        ],
    ),
    (
        "list of options",
        &[
            "Options: {v} or {w}.",
            "{v}, {w} or somewhere else",
            "should I say {v} or {w}",
            "either {v} or {w}, I can't decide",
        ],
    ),
];

pub fn cases() -> Vec<Case> {
    let mut rng = Rng::new(282_828);
    let mut out = Vec::new();
    for t in PLAIN {
        for _ in 0..8 {
            let (f, v, _) = fact(&mut rng);
            out.push(Case {
                class: "plain first-person fact (stored)",
                part: part_of(t, "plain"),
                text: t.replace("{F}", &cap(&f)).replace("{f}", &f),
                value: v,
                sincere: true,
            });
        }
    }
    for (class, templates) in NOT_STATEMENTS {
        for t in templates.iter() {
            for _ in 0..4 {
                let (f, v, q) = fact(&mut rng);
                let w = *rng.pick(CITIES);
                let text = t
                    .replace("{F}", &cap(&f))
                    .replace("{f}", &f)
                    .replace("{Q}", &q)
                    .replace("{v}", &v)
                    .replace("{w}", w);
                out.push(Case {
                    class,
                    part: part_of(t, class),
                    text,
                    value: v,
                    sincere: false,
                });
            }
        }
    }
    out
}
