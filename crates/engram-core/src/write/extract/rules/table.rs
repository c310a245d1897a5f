//! The rule table: one pattern per kind of first-person statement ("I
//! live in …", "my sister's name is …", "I'm allergic to …") and how each
//! builds its fact. The engine (`super`) decides which clauses the table
//! may read at all; adding a kind of fact is adding a row here.

use std::sync::LazyLock;

use chrono::{Duration, Utc};
use regex::{Captures, Regex};

use crate::extract::slug;
use crate::timephrase::expiry_hint;

/// Where a captured value ends: a time phrase, a new clause, or punctuation.
const END: &str = r"(?:\s+(?:until|till|til|since|for|with|in|next|last|this|these|today|tonight|tomorrow|now|because|but|and|so|as|when|while|after|before|anymore|any more|too|again|recently|fluently|well|a bit|a little|right now|at the moment|every|each|on|originally|instead|these days|nowadays)\b|\s*[,!?;:)(]|\s*\.(?:\s|$)|\s*$)";
const PLACE: &str = r"(?P<v>[\p{L}][\p{L}\p{N}'’\-. \x{E000}]{0,40}?)";
const THING: &str = r"(?P<v>[\p{L}\p{N}][\p{L}\p{N}'’\-+#. &/\x{E000}]{0,60}?)";

/// What stands for the space after an abbreviation's stop while the rules
/// read ("St. Mary's"), so the stop ends neither the sentence nor a value
/// (`super::protect_abbreviations`); a value gets its space back.
pub(super) const ABBREVIATION_GAP: char = '\u{E000}';
const NAME: &str = r"(?P<v>[\p{L}][\p{L}'’\-]*(?:\s+[\p{L}][\p{L}'’\-]*){0,2}?)";
const I_AM: &str = r"(?:i\s+am|i'm|im)";
const PROFESSIONS: &str = r"engineer|developer|programmer|teacher|nurse|doctor|physician|designer|manager|lawyer|attorney|student|consultant|accountant|scientist|writer|author|chef|cook|analyst|architect|researcher|artist|journalist|pharmacist|dentist|electrician|plumber|mechanic|pilot|photographer|professor|lecturer|freelancer|intern|founder|co-founder|ceo|cto|cfo|coo|director|product owner|data scientist|sysadmin|devops|tester|translator|therapist|veterinarian|vet|firefighter|police officer|paramedic|farmer|musician|editor|economist|librarian|carpenter|barista|waiter|waitress|salesperson|recruiter|entrepreneur|surgeon|midwife|social worker|tutor|lead|supervisor|coordinator|specialist|technician|coach|trainer|instructor|counsell?or|psychologist|receptionist|secretary|cashier|driver|caregiver|nanny";
pub(super) const RELATIONS: &str = r"wife|husband|partner|boyfriend|girlfriend|son|daughter|brother|sister|mother|mom|mum|father|dad|grandmother|grandfather|grandma|grandpa|granny|uncle|aunt|cousin|niece|nephew|fianc[eé]e?|best friend|roommate|flatmate|boss|manager|ex-wife|ex-husband|ex-partner|ex-boyfriend|ex-girlfriend|ex";
pub(super) const SPECIES: &str = r"dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|fish|goldfish|turtle|tortoise|snake|lizard|gecko|bird|budgie|guinea pig|ferret|chicken|pony";

pub(super) struct Rule {
    pub(super) pattern: Regex,
    pub(super) build: fn(&Captures, &Ctx) -> Option<Fact>,
}

/// What a rule found, before it becomes a [`Candidate`].
pub(super) struct Fact {
    pub(super) attribute: String,
    pub(super) value: String,
    pub(super) statement: String,
    pub(super) importance: f32,
    /// Temporary facts expire by default after this long when the text gives no bound.
    pub(super) default_ttl: Option<Duration>,
}

pub(super) struct Ctx<'a> {
    pub(super) clause: &'a str,
}

pub(super) fn fact(
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

/// Capitalised words after "I'm" that are not names: nationalities,
/// languages, faiths and a few words people capitalise.
fn is_demonym(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "american",
        "mexican",
        "german",
        "korean",
        "cuban",
        "italian",
        "indian",
        "canadian",
        "australian",
        "brazilian",
        "russian",
        "nigerian",
        "kenyan",
        "egyptian",
        "iranian",
        "syrian",
        "ukrainian",
        "norwegian",
        "hungarian",
        "belgian",
        "austrian",
        "croatian",
        "serbian",
        "romanian",
        "bulgarian",
        "colombian",
        "peruvian",
        "argentinian",
        "argentine",
        "chilean",
        "venezuelan",
        "moroccan",
        "algerian",
        "tunisian",
        "ethiopian",
        "ghanaian",
        "jamaican",
        "haitian",
        "dominican",
        "filipino",
        "filipina",
        "thai",
        "greek",
        "dutch",
        "french",
        "swiss",
        "czech",
        "slovak",
        "israeli",
        "iraqi",
        "pakistani",
        "saudi",
        "emirati",
        "afghan",
        "nepali",
        "bangladeshi",
        "asian",
        "african",
        "european",
        "latino",
        "latina",
        "hispanic",
        "arab",
        "persian",
        "christian",
        "muslim",
        "jewish",
        "hindu",
        "sikh",
        "buddhist",
        "atheist",
        "agnostic",
        "catholic",
        "protestant",
        "mormon",
        "orthodox",
        "european",
        "scottish",
        "welsh",
        "irish",
        "english",
        "british",
        "american",
        "canadian",
        "sorry",
        "back",
        "here",
        "home",
        "done",
        "fine",
        "good",
        "ok",
        "okay",
        "ready",
        "new",
        "not",
        "so",
        "also",
        "just",
        "really",
        "still",
        "sure",
        "in",
        "out",
        "tired",
        "happy",
    ];
    let w = word.to_lowercase();
    WORDS.contains(&w.as_str()) || w.ends_with("ese") || w.ends_with("ish") || w.ends_with("ian")
}

pub(super) fn singular(word: &str) -> String {
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

pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
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
        // A number alone after "I'm", ending its clause, is an age ("I'm 41,
        // from Kenya", "Actually I'm 34, not 43"); one with a unit after it
        // is not ("I'm 5 minutes away").
        rule(
            r"^\s*(?:(?:actually|well|so|and|ok|okay|no)[,\s]+)*{I_AM}\s+(?:now\s+)?(?P<v>\d{1,3})\s*(?:[,.;!]|$|\s+(?:now|today|this\s+year)\b)",
            |c, _| {
                let v = value(c, "v")?;
                let n: u32 = v.parse().ok()?;
                (1..=120).contains(&n).then_some(())?;
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
                r"\b(?:i|we)(?:\s+have|'ve)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)(?:\s+back)?(?:\s+(?:away\s+)?from\s+[^,;]+?)?\s+(?:to|into)\s+{PLACE}{{END}}"
            ),
            lives_in,
        ),
        rule(
            &format!(
                r"\b(?:(?:i|we)\s+(?:now\s+|currently\s+)?(?:live|reside)|(?:{{I_AM}}|we\s+are|we're)\s+(?:now\s+|currently\s+)?(?:living|based))\s+(?:in|(?:just\s+)?(?:outside(?:\s+of)?|near|close\s+to|on\s+the\s+outskirts\s+of))\s+{PLACE}{{END}}"
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
            r"\b(?:i (?:now |currently |still )?work as|i'm working as|i am working as|i've (?:been )?work(?:ed|ing) as|i have (?:been )?work(?:ed|ing) as|my job is|my role is|my job title is|i have a job as)\s+(?:an?\s+)?(?P<v>[\p{L} \-]{2,40}?){END}",
            role,
        ),
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:now\s+|currently\s+)?(?:an?\s+|the\s+)(?P<v>(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS}))\b"
            ),
            role,
        ),
        // "I'm Priya, I live in Pune": a name alone after "I'm" ending its
        // clause, when it is not a nationality, language or faith ("I'm
        // Italian, …").
        rule(
            r"^\s*(?:(?:so|well|ok|okay|yes|and)[,\s]+)*{I_AM}\s+(?P<v>(?-i:\p{Lu})[\p{L}'’\-]+)\s*(?:[,.!]|$)",
            |c, ctx| {
                let v = value(c, "v")?;
                (is_name_like(v, ctx) && !is_demonym(v)).then_some(())?;
                fact("name", v, format!("User's name is {v}."), 0.8)
            },
        ),
        // "I'm a dentist in Bristol": where the user works as one is where
        // they live, for a place named with a capital.
        rule(
            &format!(
                r"\b{{I_AM}}\s+(?:now\s+)?an?\s+(?:[\p{{L}}\-]+\s+){{0,3}}(?:{PROFESSIONS})\s+in\s+(?P<v>(?-i:\p{{Lu}})[\p{{L}}'’\-]*(?:\s+(?-i:\p{{Lu}})[\p{{L}}'’\-]*){{0,2}}){{END}}"
            ),
            lives_in,
        ),
        // "I teach maths": a teacher of it.
        rule(
            r"\b(?:i|i\s+currently|i\s+still)\s+teach\s+(?P<v>[\p{L}][\p{L}\- ]{1,30}?){END}",
            |c, _| {
                let v = value(c, "v")?;
                fact(
                    "role",
                    &format!("{v} teacher"),
                    format!("User teaches {v}."),
                    0.7,
                )
            },
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
                r"\bmy\s+(?:(?:older|younger|little|big|baby|twin|eldest|youngest)\s+)?(?P<rel>{RELATIONS}),?\s+(?P<v>(?-i:[A-Z])[\p{{L}}'’\-]+)(?:,|\s*$|\s+(?:is|was|has|had|starts|started|lives|works|just|will|who|and|turned|turns|\p{{Ll}}+s)\b)"
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
        // "Green is my favourite colour": the same, said the other way round.
        rule(
            r"^\s*(?P<v>[\p{L}\p{N}][\p{L}\p{N}'&\- ]{0,40}?)\s+(?:is|are)\s+(?:still\s+)?my\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<what>[\p{L} ]{2,30}?){END}",
            |c, _| {
                let v = value(c, "v")?;
                let what = value(c, "what")?;
                const POINTERS: &[&str] = &[
                    "it", "this", "that", "these", "those", "he", "she", "they", "which", "what",
                    "there", "here",
                ];
                if POINTERS.contains(&v.to_lowercase().as_str()) {
                    return None;
                }
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
                r"\bmy\s+(?:(?:older|younger|little|big|baby|twin|eldest|youngest)\s+)?(?P<rel>{RELATIONS})(?:(?:'s\s+name)?\s+is\s+(?:actually\s+|really\s+)?(?:called\s+|named\s+)?|'s\s+(?:actually\s+|really\s+)?(?:called|named)\s+){NAME}{{END}}"
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
        // "I got married in June", "we got engaged".
        rule(
            r"\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?got\s+(?P<v>married|divorced|engaged|separated)\b",
            |c, _| {
                let v = value(c, "v")?.to_lowercase();
                fact("relationship.status", &v, format!("User is {v}."), 0.6)
            },
        ),
        // "Paul and I divorced last year", "my wife and I split up", "we
        // separated": the couple is the user.
        rule(
            // (A clause starts at "and I": "Paul and I divorced" is read
            // from "I divorced".)
            r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?(?:just\s+|recently\s+|finally\s+|officially\s+)?(?P<v>divorced|separated|split\s+up|broke\s+up)(?:\s+(?:last|in|this|two|three|a|an|some|recently|years|months|after)\b|\s*[.,!;]|\s*$)",
            |c, _| {
                let v = match value(c, "v")?.to_lowercase().as_str() {
                    "divorced" => "divorced",
                    _ => "separated",
                };
                fact("relationship.status", v, format!("User is {v}."), 0.6)
            },
        ),
        // A fact about one of the user's people is theirs, under them: "My
        // brother lives in Denver", "My wife works at the BBC", "My friend
        // Tom is a dentist".
        rule(
            &format!(r"{THEIR}\s+(?:lives|is\s+living|lives\s+now)\s+in\s+{PLACE}{{END}}"),
            |c, _| their(c, "location.city", "lives in"),
        ),
        rule(
            &format!(r"{THEIR}\s+(?:works|is\s+working)\s+(?:at|for)\s+{THING}{{END}}"),
            |c, _| their(c, "employer", "works at"),
        ),
        rule(
            &format!(
                r"{THEIR}\s+is\s+(?:an?\s+)(?P<v>(?:[\p{{L}}\-]+\s+){{0,2}}(?:{PROFESSIONS}))\b"
            ),
            |c, _| their(c, "role", "is"),
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
                r"\bmy\s+(?P<sp>{SPECIES})(?:(?:'s\s+name)?\s+is\s+(?:actually\s+|really\s+)?(?:called\s+|named\s+)?|'s\s+(?:actually\s+|really\s+)?(?:called|named)\s+){NAME}{{END}}"
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
                r"\b(?:i|we)\s+(?:mostly\s+|mainly\s+|usually\s+|now\s+)?(?:use|am using|'m using|code in|program in|write code in|develop in|deploy on|deploy to|host on|switched(?:\s+over)?(?:\s+from\s+[^,;]+?)?\s+to)\s+{THING}(?:\s+for\s+(?P<p>[\p{{L}}\p{{N}} \-]{{1,40}}?))?{{END}}"
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
                r"\b(?:{{I_AM}}|i've\s+been|i\s+have\s+been|(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|recently\s+|now\s+)?(?:started|began|begun|took\s+up|taken\s+up))\s+(?:currently\s+|now\s+)?(?:learning|studying|taking (?:a course|classes) in)\s+{THING}{{END}}"
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

/// One of the user's people at the start of a clause, and their name if
/// given ("my friend Tom").
const THEIR: &str = r"^\s*(?:(?:and|also|oh|btw)[,\s]+)*my\s+(?P<rel>wife|husband|partner|boyfriend|girlfriend|son|daughter|brother|sister|mother|mom|mum|father|dad|grandmother|grandfather|grandma|grandpa|granny|uncle|aunt|cousin|niece|nephew|fianc[eé]e?|best friend|roommate|flatmate|boss|friend|neighbou?r|colleague|coworker|co-worker)(?:\s+(?P<n>(?-i:\p{Lu})[\p{L}'’\-]*))?";

/// A fact of one of the user's people, keyed under them: relatives as the
/// family rules key them (`family.brother.location.city`), others by name
/// (`friend.tom.role`).
fn their(c: &Captures, key: &str, verb: &str) -> Option<Fact> {
    let rel = singular(c.name("rel")?.as_str());
    let name = c.name("n").map(|n| n.as_str());
    let who = name.map_or_else(|| rel.clone(), |n| format!("{rel} {n}"));
    let base = match rel.as_str() {
        "friend" | "neighbour" | "neighbor" | "colleague" | "coworker" | "co-worker" => {
            match name {
                Some(n) => format!("friend.{}", slug(n)),
                None if rel == "friend" => "friend".to_owned(),
                None => format!("friend.{}", slug(&rel)),
            }
        }
        _ => format!("family.{}", slug(&rel)),
    };
    let v = value(c, "v")?;
    let said = if key == "role" {
        with_article(v)
    } else {
        v.to_owned()
    };
    fact(
        format!("{base}.{key}"),
        v,
        format!("User's {who} {verb} {said}."),
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
