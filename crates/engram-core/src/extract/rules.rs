//! The rules extractor: deterministic patterns for common first-person
//! statements, the default when no LLM is configured. What it does not
//! recognise it does not invent.

use std::sync::LazyLock;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use regex::{Captures, Regex};

use super::statement::{self, Stance};
use super::{slug, Candidate, ExtractError, Extractor, FactAction, InputMessage, Role};
use crate::timephrase::expiry_hint;
use crate::MemoryKind;

/// Where a captured value ends: a time phrase, a new clause, or punctuation.
const END: &str = r"(?:\s+(?:until|till|til|since|for|with|in|next|last|this|these|today|tonight|tomorrow|now|because|but|and|so|as|when|while|after|before|anymore|any more|too|again|recently|fluently|well|a bit|a little|right now|at the moment|every|each|on)\b|\s*[,!?;:)(]|\s*\.(?:\s|$)|\s*$)";
const PLACE: &str = r"(?P<v>[\p{L}][\p{L}\p{N}'’\-. ]{0,40}?)";
const THING: &str = r"(?P<v>[\p{L}\p{N}][\p{L}\p{N}'’\-+#. &/]{0,60}?)";
const NAME: &str = r"(?P<v>[\p{L}][\p{L}'’\-]*(?:\s+[\p{L}][\p{L}'’\-]*){0,2}?)";
const I_AM: &str = r"(?:i\s+am|i'm|im)";
const PROFESSIONS: &str = r"engineer|developer|programmer|teacher|nurse|doctor|physician|designer|manager|lawyer|attorney|student|consultant|accountant|scientist|writer|author|chef|cook|analyst|architect|researcher|artist|journalist|pharmacist|dentist|electrician|plumber|mechanic|pilot|photographer|professor|lecturer|freelancer|intern|founder|co-founder|ceo|cto|cfo|coo|director|product owner|data scientist|sysadmin|devops|tester|translator|therapist|veterinarian|vet|firefighter|police officer|paramedic|farmer|musician|editor|economist|librarian|carpenter|barista|waiter|waitress|salesperson|recruiter|entrepreneur|surgeon|midwife|social worker|tutor";
const RELATIONS: &str = r"wife|husband|partner|boyfriend|girlfriend|son|daughter|brother|sister|mother|mom|mum|father|dad|grandmother|grandfather|grandma|grandpa|granny|uncle|aunt|cousin|niece|nephew|fianc[eé]e?|best friend|roommate|flatmate|boss|manager";
const SPECIES: &str = r"dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|fish|goldfish|turtle|tortoise|snake|lizard|gecko|bird|budgie|guinea pig|ferret|chicken|pony";

struct Rule {
    pattern: Regex,
    build: fn(&Captures, &Ctx) -> Option<Fact>,
}

/// What a rule found, before it becomes a [`Candidate`].
struct Fact {
    attribute: String,
    value: String,
    statement: String,
    importance: f32,
    /// Temporary facts expire by default after this long when the text gives no bound.
    default_ttl: Option<Duration>,
}

struct Ctx<'a> {
    clause: &'a str,
}

fn fact(
    attribute: impl Into<String>,
    value: &str,
    statement: String,
    importance: f32,
) -> Option<Fact> {
    Some(Fact {
        attribute: attribute.into(),
        value: value.to_owned(),
        statement,
        importance,
        default_ttl: None,
    })
}

fn temporary(mut f: Fact, ttl_days: i64) -> Option<Fact> {
    f.default_ttl = Some(crate::time::days(ttl_days));
    Some(f)
}

fn value<'a>(c: &'a Captures, name: &str) -> Option<&'a str> {
    let v = c
        .name(name)?
        .as_str()
        .trim()
        .trim_end_matches(['.', ',', '\'', '’'])
        .trim();
    let v = v
        .strip_prefix("the ")
        .filter(|_| name == "place")
        .unwrap_or(v);
    (!v.is_empty()).then_some(v)
}

fn rule(pattern: &str, build: fn(&Captures, &Ctx) -> Option<Fact>) -> Rule {
    let full = format!(
        "(?i){}",
        pattern.replace("{END}", END).replace("{I_AM}", I_AM)
    );
    Rule {
        pattern: Regex::new(&full).unwrap_or_else(|e| panic!("bad rule {full}: {e}")),
        build,
    }
}

fn is_name_like(v: &str, ctx: &Ctx) -> bool {
    let first = v.split_whitespace().next().unwrap_or("").to_lowercase();
    let stop = [
        "a", "an", "the", "my", "very", "really", "so", "not", "also", "still", "from", "in", "at",
        "called", "named",
    ];
    !stop.contains(&first.as_str())
        && (v.chars().next().is_some_and(char::is_uppercase)
            || ctx.clause.to_lowercase().contains("name")
            || ctx.clause.to_lowercase().contains("called"))
}

fn singular(word: &str) -> String {
    let w = word.to_lowercase();
    match w.as_str() {
        "children" | "kids" => "children".into(),
        "puppy" => "dog".into(),
        "kitten" => "cat".into(),
        "mum" | "mom" => "mother".into(),
        "dad" => "father".into(),
        "grandma" | "granny" => "grandmother".into(),
        "grandpa" => "grandfather".into(),
        _ => w
            .strip_suffix('s')
            .filter(|s| s.len() > 2)
            .map(str::to_owned)
            .unwrap_or(w),
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        // Name and identity.
        rule(
            &format!(
                r"\b(?:my name is|my name's|i am called|i'm called|call me|people call me|i go by)\s+{NAME}{{END}}"
            ),
            |c, ctx| {
                let v = value(c, "v")?;
                is_name_like(v, ctx).then_some(())?;
                fact("name", v, format!("User's name is {v}."), 0.9)
            },
        ),
        rule(
            r"\b{I_AM}\s+(?P<v>\d{1,3})\s*(?:years old|yrs old|years of age|y/o|yo)\b",
            |c, _| {
                let v = value(c, "v")?;
                fact("age", v, format!("User is {v} years old."), 0.6)
            },
        ),
        rule(
            r"\bmy birthday is (?:on )?(?P<v>[\p{L}\p{N} ]{3,25}?){END}",
            |c, _| {
                let v = value(c, "v")?;
                fact("birthday", v, format!("User's birthday is {v}."), 0.7)
            },
        ),
        // Where one lives, moves, comes from, is staying, is going.
        rule(
            &format!(
                r"\b(?:i|we)(?:\s+have|'ve)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)(?:\s+back)?\s+(?:to|into)\s+{PLACE}{{END}}"
            ),
            lives_in,
        ),
        rule(
            &format!(
                r"\b(?:(?:i|we)\s+(?:now\s+|currently\s+)?(?:live|reside)|(?:{{I_AM}}|we\s+are|we're)\s+(?:now\s+|currently\s+)?(?:living|based))\s+in\s+{PLACE}{{END}}"
            ),
            |c, ctx| {
                let v = value(c, "v")?;
                let f = Fact {
                    attribute: "location.city".into(),
                    value: v.into(),
                    statement: format!("User lives in {v}."),
                    importance: 0.8,
                    default_ttl: None,
                };
                // "I live in Lisbon until Friday" is a stay, not a home.
                if has_time_bound(ctx.clause) {
                    return temporary(
                        Fact {
                            attribute: "location.current".into(),
                            statement: format!("User is staying in {v}."),
                            ..f
                        },
                        7,
                    );
                }
                Some(f)
            },
        ),
        rule(
            &format!(r"\b{{I_AM}}\s+(?:originally\s+)?from\s+{PLACE}{{END}}"),
            |c, _| {
                let v = value(c, "v")?;
                fact("origin", v, format!("User is from {v}."), 0.6)
            },
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:currently\s+|now\s+)?(?:in|staying in|visiting|staying at)\s+{PLACE}\s+(?:until|till|til|for|this|today|tonight|tomorrow|through)\b"
            ),
            |c, _| {
                let v = value(c, "v")?;
                temporary(
                    Fact {
                        attribute: "location.current".into(),
                        value: v.into(),
                        statement: format!("User is staying in {v}."),
                        importance: 0.5,
                        default_ttl: None,
                    },
                    7,
                )
            },
        ),
        rule(
            &format!(
                r"\b(?:{{I_AM}}|i will be|i'll be|we're|we are)\s+(?:travel+ing|going|flying|heading|driving|off)\s+to\s+{PLACE}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                // "going to keep trying" is a plan to do, not a trip: a place
                // is a name or a determined noun ("the coast", "my parents'").
                let first = v.split_whitespace().next().unwrap_or("");
                let named = first.chars().next().is_some_and(char::is_uppercase);
                let determined = ["the", "a", "an", "my", "our", "his", "her", "their"]
                    .contains(&first.to_lowercase().as_str());
                if !named && !determined {
                    return None;
                }
                temporary(
                    Fact {
                        attribute: "plan.travel".into(),
                        value: v.into(),
                        statement: format!("User is travelling to {v}."),
                        importance: 0.5,
                        default_ttl: None,
                    },
                    14,
                )
            },
        ),
        rule(
            r"\b(?:i am|i'm|im|i will be|i'll be)\s+(?P<v>on (?:holiday|vacation|leave|a trip|parental leave|sick leave)|off work|away|out of (?:the )?office)\b",
            |c, _| {
                let v = value(c, "v")?;
                temporary(
                    Fact {
                        attribute: "status.availability".into(),
                        value: v.into(),
                        statement: format!("User is {v}."),
                        importance: 0.5,
                        default_ttl: None,
                    },
                    7,
                )
            },
        ),
        // Employer and role.
        rule(
            &format!(
                r"\b(?:i|we)\s+(?:now\s+|currently\s+)?(?:work|am working|'m working)\s+(?:at|for)\s+{THING}{{END}}"
            ),
            employer,
        ),
        rule(
            &format!(
                r"\bi(?:\s+have|'ve)?\s+(?:just\s+|recently\s+)?(?:joined|started (?:a new job |working )?(?:at|with|for)|got a job (?:at|with)|was hired by|got hired (?:at|by))\s+{THING}{{END}}"
            ),
            employer,
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:currently\s+|now\s+|still\s+)?employed\s+(?:at|by)\s+{THING}{{END}}"
            ),
            employer,
        ),
        rule(
            r"\b(?:i work as|i'm working as|i am working as|my job is|my role is|my job title is|i have a job as)\s+(?:an?\s+)?(?P<v>[\p{L} \-]{2,40}?){END}",
            role,
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:an?\s+)(?P<v>(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS}))\b"
            ),
            role,
        ),
        // The usual introduction: "I'm Bob, a data scientist at Netflix".
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?P<n>[\p{{Lu}}][\p{{L}}'’\-]*),\s+an?\s+(?P<v>(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS}))\b"
            ),
            |c, ctx| {
                is_name_like(value(c, "n")?, ctx).then_some(())?;
                role(c, ctx)
            },
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?P<v>[\p{{Lu}}][\p{{L}}'’\-]*),\s+an?\s+(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS})\b"
            ),
            |c, ctx| {
                let v = value(c, "v")?;
                is_name_like(v, ctx).then_some(())?;
                fact("name", v, format!("User's name is {v}."), 0.8)
            },
        ),
        rule(
            &format!(
                r"(?:\b(?:{{I_AM}}|i\s+work\s+as|i'm\s+working\s+as|i\s+am\s+working\s+as)\s+|,\s*)an?\s+(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS})\s+(?:at|for|with)\s+{THING}{{END}}"
            ),
            employer,
        ),
        // "I work at Siemens as a software engineer", "I joined Stripe as a designer".
        rule(
            r"\b(?:i|we)\s+(?:now\s+|currently\s+|just\s+|recently\s+)?(?:work|am working|'m working|joined|started)\s+(?:at|for|with)?\s*[\p{L}\p{N}&.'\- ]{1,60}?\s+as\s+(?:an?\s+)?(?P<v>[\p{L} \-]{2,40}?){END}",
            role,
        ),
        // "My daughter Emma starts school…": a relative named in passing.
        rule(
            &format!(
                r"\bmy\s+(?:(?:older|younger|little|big|baby|twin|eldest|youngest)\s+)?(?P<rel>{RELATIONS}),?\s+(?P<v>(?-i:[A-Z])[\p{{L}}'’\-]+)(?:,|\s+(?:is|was|has|had|starts|started|lives|works|just|will|who|and|turned|turns|\p{{Ll}}+s)\b)"
            ),
            family_name,
        ),
        // "…, she is 6": the age of the relative named before it.
        rule(
            &format!(
                r"\bmy\s+(?:(?:older|younger|little|big|baby|twin|eldest|youngest)\s+)?(?P<rel>{RELATIONS})\b[^.!?]{{0,80}}?\b(?:she|he|they)(?:\s+is|'s|\s+turned|\s+turns|\s+just\s+turned)\s+(?P<v>\d{{1,3}})\b"
            ),
            |c, _| {
                let rel = singular(c.name("rel")?.as_str());
                let v = value(c, "v")?;
                fact(
                    format!("family.{}.age", slug(&rel)),
                    v,
                    format!("User's {rel} is {v} years old."),
                    0.5,
                )
            },
        ),
        // Likes, dislikes, preferences, favourites.
        rule(
            &format!(
                r"\bi\s+(?:really\s+|absolutely\s+|totally\s+|just\s+|also\s+)?(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy|do not enjoy|no longer like|don't care for)\s+{THING}{{END}}"
            ),
            dislikes,
        ),
        rule(
            &format!(
                r"\b(?:{{I_AM}}\s+not\s+(?:a\s+|really\s+a\s+)?(?:big\s+)?fan of)\s+{THING}{{END}}"
            ),
            dislikes,
        ),
        rule(
            &format!(
                r"\bi\s+(?:really\s+|absolutely\s+|totally\s+|just\s+|also\s+|still\s+)?(?:love|like|enjoy|adore)\s+{THING}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                let lower = v.to_lowercase();
                if lower.starts_with("to think")
                    || lower.starts_with("it ")
                    || lower == "it"
                    || lower == "that"
                    || lower == "this"
                {
                    return None;
                }
                fact(
                    format!("likes.{}", slug(v)),
                    "likes",
                    format!("User likes {v}."),
                    0.5,
                )
            },
        ),
        rule(
            &format!(
                r"\b(?:{{I_AM}}\s+(?:really\s+)?(?:into|a (?:big |huge )?fan of|passionate about|obsessed with))\s+{THING}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("likes.{}", slug(v)),
                    "likes",
                    format!("User likes {v}."),
                    0.5,
                )
            },
        ),
        rule(
            &format!(
                r"\bmy\s+(?:all-time\s+)?favou?rite\s+(?P<what>[\p{{L}} ]{{2,30}}?)\s+(?:is|are)\s+{THING}{{END}}"
            ),
            |c, _| {
                let what = value(c, "what")?;
                let v = value(c, "v")?;
                fact(
                    format!("favorite.{}", slug(what)),
                    v,
                    format!("User's favourite {what} is {v}."),
                    0.6,
                )
            },
        ),
        rule(
            &format!(
                r"\b(?:i|i'd|i\s+would)\s+(?:much\s+|really\s+|generally\s+|usually\s+)?(?:prefer|rather have)\s+{THING}(?:\s+(?:over|to|instead of|rather than)\s+(?P<o>[\p{{L}}\p{{N}} \-]{{1,40}}?))?{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                let statement = match value(c, "o") {
                    Some(o) => format!("User prefers {v} over {o}."),
                    None => format!("User prefers {v}."),
                };
                fact(format!("preference.{}", slug(v)), v, statement, 0.6)
            },
        ),
        // Diet and allergies.
        rule(
            r"\b(?:i am|i'm|im)\s+(?:a\s+|an\s+|now\s+|strictly\s+|strict\s+|mostly\s+)*(?P<v>vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|flexitarian|halal|kosher)\b",
            |c, _| {
                let v = value(c, "v")?.to_lowercase();
                fact(
                    "diet",
                    &v,
                    format!("User is {}.", with_article_diet(&v)),
                    0.8,
                )
            },
        ),
        rule(
            &format!(
                r"\bi\s+(?:don't|do not|never|can't|cannot|can not|no longer|won't)\s+eat\s+{THING}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("diet.avoids.{}", slug(v)),
                    v,
                    format!("User does not eat {v}."),
                    0.8,
                )
            },
        ),
        rule(
            &format!(
                r"\b(?:{{I_AM}}\s+(?:severely\s+|very\s+|mildly\s+)?allergic\s+to|i\s+have\s+an?\s+allergy\s+to)\s+{THING}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("allergy.{}", slug(v)),
                    v,
                    format!("User is allergic to {v}."),
                    0.9,
                )
            },
        ),
        rule(
            r"\bi\s+have\s+(?:an?\s+)?(?:severe\s+|mild\s+)?(?P<v>[\p{L}]+)\s+allergy\b",
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("allergy.{}", slug(v)),
                    v,
                    format!("User is allergic to {v}."),
                    0.9,
                )
            },
        ),
        // Family.
        rule(
            &format!(
                r"\bmy\s+(?:(?:older|younger|little|big|baby|twin|eldest|youngest)\s+)?(?P<rel>{RELATIONS})(?:'s\s+name)?\s+is\s+(?:called\s+|named\s+)?{NAME}{{END}}"
            ),
            family_name,
        ),
        rule(
            &format!(
                r"\bi\s+have\s+(?:an?\s+)?(?:(?:older|younger|little|big|twin)\s+)?(?P<rel>{RELATIONS})\s+(?:called|named)\s+{NAME}{{END}}"
            ),
            family_name,
        ),
        rule(
            r"\bi\s+have\s+(?P<n>\d+|one|two|three|four|five|six|no)\s+(?P<rel>kids|children|sons|daughters|brothers|sisters|siblings|grandchildren)\b",
            |c, _| {
                let n = c.name("n")?.as_str().to_lowercase();
                let rel = singular(c.name("rel")?.as_str());
                fact(
                    format!("family.{}.count", slug(&rel)),
                    &n,
                    format!("User has {n} {}.", c.name("rel")?.as_str().to_lowercase()),
                    0.6,
                )
            },
        ),
        rule(
            r"\b(?:i am|i'm|im)\s+(?:now\s+|happily\s+|recently\s+|just\s+|newly\s+)?(?P<v>married|single|divorced|engaged|widowed|separated)\b",
            |c, _| {
                let v = value(c, "v")?.to_lowercase();
                fact("relationship.status", &v, format!("User is {v}."), 0.6)
            },
        ),
        // Pets.
        rule(
            &format!(
                r"\bmy\s+(?P<sp>{SPECIES})(?:'s\s+name)?\s+is\s+(?:called\s+|named\s+)?{NAME}{{END}}"
            ),
            pet_name,
        ),
        rule(
            &format!(
                r"\b(?:i|we)\s+(?:have|have got|got|adopted)\s+(?:an?|one|two|three|\d+)\s+(?:\p{{L}}+\s+)?(?P<sp>{SPECIES})(?:e?s)?\s+(?:called|named)\s+{NAME}{{END}}"
            ),
            pet_name,
        ),
        rule(
            &format!(
                r"\b(?:i|we)\s+(?:have|have got|own|got|adopted)\s+(?P<n>an?|one|two|three|four|\d+)\s+(?:(?:\p{{L}}+\s+)?)(?P<sp>{SPECIES})(?:e?s)?\b"
            ),
            |c, ctx| {
                if ctx.clause.to_lowercase().contains("called")
                    || ctx.clause.to_lowercase().contains("named")
                {
                    return None; // the named-pet rule covers it
                }
                let sp = singular(c.name("sp")?.as_str());
                let n = c.name("n")?.as_str().to_lowercase();
                let statement = if n == "a" || n == "an" || n == "one" {
                    format!("User has a {sp}.")
                } else {
                    format!("User has {n} {sp}s.")
                };
                fact(format!("pet.{}", slug(&sp)), &n, statement, 0.5)
            },
        ),
        // Projects, tools, learning, languages.
        rule(
            &format!(
                r"\b(?:{{I_AM}}|we're|we are)\s+(?:currently\s+|still\s+|now\s+)?(?:working on|building|developing|writing|making)\s+{THING}{{END}}"
            ),
            project,
        ),
        rule(
            &format!(r"\bmy\s+(?:current\s+|main\s+|side\s+)?project\s+is\s+{THING}{{END}}"),
            project,
        ),
        rule(
            &format!(
                r"\b(?:i|we)\s+(?:mostly\s+|mainly\s+|usually\s+|now\s+)?(?:use|am using|'m using|code in|program in|write code in|develop in|switched to)\s+{THING}(?:\s+for\s+(?P<p>[\p{{L}}\p{{N}} \-]{{1,40}}?))?{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                let statement = match value(c, "p") {
                    Some(p) => format!("User uses {v} for {p}."),
                    None => format!("User uses {v}."),
                };
                fact(format!("tool.{}", slug(v)), v, statement, 0.5)
            },
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:currently\s+|now\s+)?(?:learning|studying|taking (?:a course|classes) in)\s+{THING}{{END}}"
            ),
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("learning.{}", slug(v)),
                    v,
                    format!("User is learning {v}."),
                    0.5,
                )
            },
        ),
        rule(
            &format!(r"\b(?:i\s+(?:also\s+)?speak|{{I_AM}}\s+fluent\s+in)\s+{THING}{{END}}"),
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    format!("language.{}", slug(v)),
                    v,
                    format!("User speaks {v}."),
                    0.5,
                )
            },
        ),
    ]
});

fn project(c: &Captures, _: &Ctx) -> Option<Fact> {
    let v = value(c, "v")?;
    fact(
        format!("project.{}", slug(v)),
        v,
        format!("User is working on {v}."),
        0.6,
    )
}

fn role(c: &Captures, _: &Ctx) -> Option<Fact> {
    let v = value(c, "v")?;
    fact(
        "role",
        v,
        format!("User works as {}.", with_article(v)),
        0.7,
    )
}

fn employer(c: &Captures, _: &Ctx) -> Option<Fact> {
    let v = value(c, "v")?;
    fact("employer", v, format!("User works at {v}."), 0.7)
}

fn dislikes(c: &Captures, _: &Ctx) -> Option<Fact> {
    let v = value(c, "v")?;
    fact(
        format!("likes.{}", slug(v)),
        "dislikes",
        format!("User dislikes {v}."),
        0.5,
    )
}

fn lives_in(c: &Captures, _: &Ctx) -> Option<Fact> {
    let v = value(c, "v")?;
    fact("location.city", v, format!("User lives in {v}."), 0.8)
}

/// "my sister is Ana", "I have a brother named Tom".
fn family_name(c: &Captures, ctx: &Ctx) -> Option<Fact> {
    let rel = singular(c.name("rel")?.as_str());
    let v = value(c, "v")?;
    is_name_like(v, ctx).then_some(())?;
    fact(
        format!("family.{}.name", slug(&rel)),
        v,
        format!("User's {rel} is named {v}."),
        0.7,
    )
}

/// "my cat's name is Miso", "we adopted a puppy called Biscuit".
fn pet_name(c: &Captures, ctx: &Ctx) -> Option<Fact> {
    let sp = singular(c.name("sp")?.as_str());
    let v = value(c, "v")?;
    is_name_like(v, ctx).then_some(())?;
    fact(
        format!("pet.{}.name", slug(&sp)),
        v,
        format!("User has a {sp} named {v}."),
        0.6,
    )
}

fn has_time_bound(text: &str) -> bool {
    expiry_hint(text, Utc::now()).is_some()
}

fn with_article(v: &str) -> String {
    let lower = v.to_lowercase();
    if lower.starts_with("a ") || lower.starts_with("an ") {
        return v.to_owned();
    }
    let article = if lower.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {v}")
}

fn with_article_diet(v: &str) -> String {
    match v {
        "vegetarian" | "vegan" | "pescatarian" | "pescetarian" | "flexitarian" => with_article(v),
        _ => v.to_owned(),
    }
}

static SENTENCE_BREAK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?;]+(?:\s+|$)|\n+").unwrap_or_else(|e| panic!("{e}")));

/// Splits a message into sentences, each with its closing punctuation (so
/// a question still ends with `?`). A stop ends a sentence only before a
/// space or the end, so "Python 3.11" and "example.com" stay whole.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in SENTENCE_BREAK.find_iter(text) {
        out.push(&text[start..m.end()]);
        start = m.end();
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

static CLAUSE_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:[.!?;]+(?:\s+|$)|\n+\s*|\s+[-–—]\s+|,?\s+(?:and|but|so|also|plus)\s+(?P<p>i\b|i'm|i've|im\b|my\b|we\b|we're)|,\s+(?P<q>i\b|i'm|my\b)|,\s+(?P<r>(?:should|would|could|can|do|does|did|is|are|am|was|were|what|where|when|why|how|shall|will|or)\b))")
        .unwrap_or_else(|e| panic!("{e}"))
});

/// Splits a text into clauses: sentences, "… and I …" joins, and a
/// question tagged on ("…, should I …"). Each is a slice of `text`.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for c in CLAUSE_BREAK.captures_iter(text) {
        let whole = c.get(0).map(|m| m.range()).unwrap_or(0..0);
        let next = c
            .name("p")
            .or_else(|| c.name("q"))
            .or_else(|| c.name("r"))
            .map_or(whole.end, |m| m.start());
        out.push(&text[start..whole.start]);
        start = next;
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Extracts facts with patterns; stateless and deterministic.
#[derive(Debug, Default, Clone, Copy)]
pub struct RulesExtractor;

/// "Hi, I'm Carol": a greeting then a name (a name alone after "I'm" is
/// too often an adjective: "I'm Italian", "I'm tired").
static INTRODUCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?:\s+there)?[,!.]*\s+(?:i'm|i am|im|this is|it's)\s+(?P<v>(?-i:[A-Z])[\p{L}'\-]+)\s*(?:[.!,]|$)")
        .unwrap_or_else(|e| panic!("{e}"))
});

impl RulesExtractor {
    pub fn extract_sync(&self, messages: &[InputMessage]) -> Vec<Candidate> {
        let mut out = Vec::new();
        for (index, m) in messages.iter().enumerate() {
            if m.role != Role::User {
                continue;
            }
            let text = m.content.replace(['’', '‘'], "'");
            if let Some(v) = INTRODUCTION
                .captures(&text)
                .and_then(|c| c.name("v"))
                .map(|v| v.as_str().to_owned())
            {
                if let Some(f) = fact("name", &v, format!("User's name is {v}."), 0.8) {
                    out.push(candidate(f, index, None, FactAction::Assert));
                }
            }
            let parts: Vec<(&str, &str)> = sentences(&text)
                .into_iter()
                .flat_map(|s| clauses(s).into_iter().map(move |c| (s, c)))
                .collect();
            // Where the previous clause's candidates start in `out`.
            let mut previous = out.len();
            let mut i = 0;
            while i < parts.len() {
                let (sentence, clause) = parts[i];
                // "Scratch that, I work at Acme …" / "I live in Oslo. Scratch
                // that.": a bare "that" points at the next clause of its
                // sentence, or else at the one before.
                if statement::forget_pointer(clause) {
                    match parts.get(i + 1).filter(|(s, _)| *s == sentence) {
                        Some((_, next)) => {
                            out.extend(forget(next, index));
                            i += 2;
                        }
                        None => {
                            for c in &mut out[previous..] {
                                if c.action == FactAction::Assert {
                                    c.action = FactAction::Forget;
                                }
                            }
                            i += 1;
                        }
                    }
                    previous = out.len();
                    continue;
                }
                previous = out.len();
                out.extend(read_clause(sentence, clause, index, m.created_at));
                i += 1;
            }
        }
        // One candidate per attribute and action (the first, most specific).
        let mut seen = std::collections::HashSet::new();
        out.retain(|c| {
            seen.insert((
                c.message_index,
                c.attribute.clone(),
                c.value.clone(),
                c.action,
            ))
        });
        out
    }
}

fn candidate(
    f: Fact,
    index: usize,
    expires_at: Option<DateTime<Utc>>,
    action: FactAction,
) -> Candidate {
    Candidate {
        statement: f.statement,
        kind: MemoryKind::Semantic,
        subject: "user".into(),
        attribute: f.attribute,
        value: f.value,
        importance: f.importance,
        confidence: 0.9,
        sensitivity: None,
        expires_at,
        stated: true,
        message_index: index,
        action,
    }
}

/// Negation before a fact in its clause ("It is not true that I am a
/// pilot"): the fact is denied, not stated.
static NEGATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:not|never|no\s+longer|n't|false|untrue|nor)\b|n't\b")
        .unwrap_or_else(|e| panic!("{e}"))
});

/// What one clause says: facts the user asserts, facts they take back, or
/// what they ask to be forgotten.
fn read_clause(
    sentence: &str,
    clause: &str,
    index: usize,
    said_at: DateTime<Utc>,
) -> Vec<Candidate> {
    match statement::forget(clause) {
        Some(statement::ForgetRequest::Everything) => {
            let f = Fact {
                attribute: super::FORGET_EVERYTHING.into(),
                value: String::new(),
                statement: "everything about the user".into(),
                importance: 0.5,
                default_ttl: None,
            };
            return vec![candidate(f, index, None, FactAction::Forget)];
        }
        Some(statement::ForgetRequest::Thing(thing)) => return forget(&thing, index),
        None => {}
    }
    let mut asserted = Vec::new();
    let mut denied = false;
    for (at, f) in rule_facts(clause) {
        match statement::stance(sentence, clause, at) {
            Stance::Own if NEGATED.is_match(&clause[..at]) => denied = true,
            Stance::Own => {
                let expires_at = f.default_ttl.map(|ttl| {
                    expiry_hint(clause, said_at).unwrap_or(crate::time::add(said_at, ttl))
                });
                asserted.push(candidate(f, index, expires_at, FactAction::Assert));
            }
            // Questions, hypotheses and other people's words state nothing.
            _ => return Vec::new(),
        }
    }
    if !asserted.is_empty() && !denied {
        return asserted;
    }
    // A denial or retraction: read the assertion it takes back, and retire
    // what that would have stated.
    if statement::is_question(sentence, clause) {
        return asserted;
    }
    let Some(positive) = statement::taken_back(clause) else {
        return asserted;
    };
    let mut out = asserted;
    for part in clauses(&positive) {
        for (_, f) in rule_facts(part) {
            out.push(candidate(retracted(f), index, None, FactAction::Retract));
        }
    }
    out
}

/// A fact taken back names the attribute, and the value only where it
/// identifies the fact ("works at Siemens"), not where it counts ("a dog").
fn retracted(mut f: Fact) -> Fact {
    let counting = [
        "a", "an", "one", "two", "three", "four", "five", "likes", "dislikes",
    ];
    if counting.contains(&f.value.to_lowercase().as_str())
        || f.value.chars().all(|c| c.is_ascii_digit())
    {
        f.value.clear();
    }
    f
}

/// Every fact the rules read in `clause`, with where its match starts; the
/// first rule to speak for an attribute wins.
fn rule_facts(clause: &str) -> Vec<(usize, Fact)> {
    let ctx = Ctx { clause };
    let mut found: Vec<(usize, Fact)> = Vec::new();
    for rule in RULES.iter() {
        for caps in rule.pattern.captures_iter(clause) {
            let Some(f) = (rule.build)(&caps, &ctx) else {
                continue;
            };
            if found.iter().any(|(_, g)| g.attribute == f.attribute) {
                continue;
            }
            let at = caps.get(0).map_or(0, |m| m.start());
            found.push((at, f));
        }
    }
    found
}

/// What a forget request names, as candidates: the facts the rules read in
/// it ("that I live in Berlin"), else the attribute its words name ("where
/// I work", "my dog"), else its words alone, to be matched by meaning.
fn forget(thing: &str, index: usize) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for part in clauses(thing) {
        for (_, f) in rule_facts(part) {
            out.push(candidate(retracted(f), index, None, FactAction::Forget));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let attribute = topic(thing);
    let words = thing.split_whitespace().count();
    // One word names something only when it is a name or a number
    // ("forget Berlin"), matched against what is held by its value.
    let named = words == 1
        && thing
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    if attribute.is_none() && words < 2 && !named {
        return out; // "forget it": nothing named
    }
    let f = Fact {
        attribute: attribute.unwrap_or_default(),
        value: if named {
            thing
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_owned()
        } else {
            String::new()
        },
        statement: thing.to_owned(),
        importance: 0.5,
        default_ttl: None,
    };
    vec![candidate(f, index, None, FactAction::Forget)]
}

/// The attribute (or attribute prefix) a phrase names: "where I live" →
/// `location`, "my sister's name" → `family.sister.name`, "my dog" →
/// `pet.dog`.
fn topic(phrase: &str) -> Option<String> {
    static TOPICS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        let t = |p: &str, a| {
            (
                Regex::new(&format!("(?i)^(?:{p})\\b")).unwrap_or_else(|e| panic!("{e}")),
                a,
            )
        };
        vec![
            t(
                r"where i (?:live|am based|stay|reside)|my (?:address|home|city|location|hometown|whereabouts)",
                "location",
            ),
            t(
                r"where i work|who i work for|my (?:job|employer|workplace|company|work|office)",
                "employer",
            ),
            t(
                r"what i do(?: for a living)?|my (?:role|job title|profession|occupation|position)",
                "role",
            ),
            t(r"my age|how old i am", "age"),
            t(r"my (?:full |first |last )?name", "name"),
            t(r"my (?:birthday|date of birth|birth date)", "birthday"),
            t(r"my diet|what i (?:eat|don't eat)", "diet"),
            t(r"my allerg(?:y|ies)|what i'm allergic to", "allergy"),
            t(
                r"my (?:relationship|marital status|partner situation)",
                "relationship.status",
            ),
        ]
    });
    static PET: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?i)^my\s+(?P<sp>{SPECIES})(?:e?s)?(?P<n>'s\s+name)?\b"
        ))
        .unwrap_or_else(|e| panic!("{e}"))
    });
    static FAMILY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?i)^my\s+(?P<rel>{RELATIONS})(?P<n>'s\s+name)?\b"
        ))
        .unwrap_or_else(|e| panic!("{e}"))
    });
    static FAVOURITE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^my\s+favou?rite\s+(?P<w>[\p{L} ]{2,30})")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let phrase = phrase.trim().trim_end_matches(['.', '!', '?']);
    if let Some((_, a)) = TOPICS.iter().find(|(r, _)| r.is_match(phrase)) {
        return Some((*a).to_owned());
    }
    let named = |c: &Captures, key: &str, prefix: &str| {
        let head = format!("{prefix}.{}", slug(&singular(c.name(key)?.as_str())));
        Some(if c.name("n").is_some() {
            format!("{head}.name")
        } else {
            head
        })
    };
    if let Some(c) = PET.captures(phrase) {
        return named(&c, "sp", "pet");
    }
    if let Some(c) = FAMILY.captures(phrase) {
        return named(&c, "rel", "family");
    }
    FAVOURITE
        .captures(phrase)
        .and_then(|c| c.name("w"))
        .map(|w| format!("favorite.{}", slug(w.as_str())))
}

#[async_trait]
impl Extractor for RulesExtractor {
    fn id(&self) -> &str {
        "rules"
    }

    async fn extract(&self, messages: &[InputMessage]) -> Result<Vec<Candidate>, ExtractError> {
        Ok(self.extract_sync(messages))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_keep_decimals_and_domains_whole() {
        assert_eq!(
            clauses("I prefer Python 3.11 for stability. I use example.com!Ok"),
            ["I prefer Python 3.11 for stability", "I use example.com!Ok"]
        );
    }

    fn facts(text: &str) -> Vec<(String, String)> {
        let said = chrono::Utc::now();
        RulesExtractor
            .extract_sync(&[InputMessage {
                role: crate::extract::Role::User,
                content: text.into(),
                created_at: said,
            }])
            .into_iter()
            .map(|c| (c.attribute, c.value))
            .collect()
    }

    #[test]
    fn an_introduction_gives_name_role_and_employer() {
        let got = facts("Hi! I'm Bob, a data scientist at Netflix.");
        for want in [
            ("name", "Bob"),
            ("role", "data scientist"),
            ("employer", "Netflix"),
        ] {
            assert!(
                got.iter().any(|(a, v)| a == want.0 && v == want.1),
                "{want:?} in {got:?}"
            );
        }
        assert!(facts("I'm Tired, a bit").iter().all(|(a, _)| a != "name"));
    }

    #[test]
    fn values_keep_their_decimals() {
        let got = facts("I prefer Python 3.11 for stability.");
        assert!(got.iter().any(|(_, v)| v == "Python 3.11"), "{got:?}");
    }

    #[test]
    fn clauses_split_on_sentences_and_first_person_joins() {
        assert_eq!(
            clauses("I live in Leeds and I work at Acme. I like tea and biscuits!"),
            [
                "I live in Leeds",
                "I work at Acme",
                "I like tea and biscuits"
            ]
        );
        assert_eq!(
            clauses("My cat is Tom, my dog is Rex"),
            ["My cat is Tom", "my dog is Rex"]
        );
    }
}
