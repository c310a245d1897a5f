//! The rules extractor: deterministic patterns for common first-person
//! statements, the default when no LLM is configured. What it does not
//! recognise it does not invent. The engine is here (which clauses may be
//! read, negation, retraction, forgetting); the patterns are in `table`.

mod table;

use std::sync::LazyLock;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use regex::{Captures, Regex};

use super::{slug, Candidate, ExtractError, Extractor, FactAction, InputMessage, Role};
use crate::text::statement::{self, Stance};
use crate::text::{clauses, sentences};
use crate::timephrase::expiry_hint;
use crate::MemoryKind;
use table::{fact, singular, Ctx, Fact, ABBREVIATION_GAP, RELATIONS, RULES, SPECIES};

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
            let text = protect_abbreviations(&m.content.replace(['’', '‘'], "'"));
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
                for said in elided(sentence, clause) {
                    out.extend(read_clause(&said, &said, index, m.created_at));
                }
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

/// "St. Mary's" with its stop kept from ending the sentence or the value:
/// the space after a title's or a street's abbreviation stands as
/// `ABBREVIATION_GAP` while the rules read (a `candidate` gets it back).
fn protect_abbreviations(text: &str) -> String {
    static ABBREVIATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?P<a>Mr|Mrs|Ms|Dr|St|Mt|Prof|Jr|Sr|Ave|Rd)\. (?P<n>\p{Lu})")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    ABBREVIATION
        .replace_all(text, format!("$a.{ABBREVIATION_GAP}$n").as_str())
        .into_owned()
}

fn candidate(
    f: Fact,
    index: usize,
    expires_at: Option<DateTime<Utc>>,
    action: FactAction,
) -> Candidate {
    let restored = |t: String| t.replace(ABBREVIATION_GAP, " ");
    Candidate {
        statement: restored(f.statement),
        kind: MemoryKind::Semantic,
        subject: "user".into(),
        attribute: f.attribute,
        value: restored(f.value),
        importance: f.importance,
        confidence: 0.9,
        sensitivity: None,
        expires_at,
        stated: true,
        message_index: index,
        action,
        replaces: None,
    }
}

/// The parts of a first-person list that leave their subject out, said
/// in full: "I live in Pune, work at Infosys and have a cat named Biscuit"
/// → "I work at Infosys.", "I have a cat named Biscuit."; "I'm 41, from
/// Kenya" → "I'm from Kenya.". Only where the clause is the user's own
/// statement (a question, plan or someone else's words lends none).
fn elided(sentence: &str, clause: &str) -> Vec<String> {
    static LEAD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:(?:and|so|also|well|oh|hi|hey|yes|ok|okay)[,\s]+)*(?P<s>i'm|i am|im|i|we're|we are|we)\s")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    static JOIN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i),\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    static BARE_VERB: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:(?:now|also|currently|still|mostly|mainly|usually)\s+)?(?:work|live|have|speak|teach|use|love|like|enjoy|hate|study|own|play|drive|code|run|moved|started|joined|prefer|go|attend|volunteer|practi[cs]e|write|cook|deploy|grew\s+up)\b")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    static ADVERB: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:now|also|currently|still|mostly|mainly|usually)\s+")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    static BARE_STATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:from\s|an?\s|allergic\s|\d{1,3}(?:\s+years?\s+old)?$|vegetarian|vegan|married|single|divorced|learning\s|working\s|studying\s|based\s)")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    let Some(lead) = LEAD.captures(clause).and_then(|c| c.name("s")) else {
        return Vec::new();
    };
    if statement::stance(sentence, clause, clause.len()) != statement::Stance::Own {
        return Vec::new();
    }
    let subject = lead.as_str().to_lowercase();
    let (doer, being) = match subject.as_str() {
        "we" | "we're" | "we are" => ("We", "We're"),
        _ => ("I", "I'm"),
    };
    let is_being = matches!(subject.as_str(), "i'm" | "i am" | "im" | "we're" | "we are");
    JOIN.split(clause)
        .skip(1)
        .map(|part| part.trim().trim_end_matches(['.', '!']).trim())
        .filter_map(|part| {
            if BARE_VERB.is_match(part) {
                // "… and now work as an architect" → "I work as an architect."
                let part = ADVERB.replace(part, "");
                Some(format!("{doer} {part}."))
            } else if is_being && BARE_STATE.is_match(part) {
                Some(format!("{being} {part}."))
            } else {
                None
            }
        })
        .collect()
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
    if statement::is_question(sentence, clause)
        || statement::stance(sentence, clause, clause.len()) != Stance::Own
    {
        return if denied { Vec::new() } else { asserted };
    }
    // What a correction says was wrong ("I meant Graz, not Salzburg") and
    // what a change leaves ("I switched from Android to an iPhone") go, by
    // their words: the rules cannot tell their key.
    let wrong = statement::corrected_from(sentence);
    let left: Vec<Candidate> = wrong
        .clone()
        .into_iter()
        .chain(statement::changed_from(clause))
        .map(|thing| by_words(&thing, index))
        .collect();
    // A correction that names the right value but no predicate ("I meant
    // Graz, not Salzburg") asserts it under the key of what it replaces.
    if asserted.is_empty() && !denied {
        if let (Some(wrong), Some(right)) = (wrong, statement::corrected_to(sentence)) {
            return vec![correction(&right, &wrong, index)];
        }
    }
    let mut out = asserted;
    if !out.is_empty() && !denied {
        out.extend(left);
        return out;
    }
    // A denial or retraction: read the assertion it takes back, and retire
    // what that would have stated.
    if let Some(positive) = statement::taken_back(clause) {
        for part in clauses(&positive) {
            for (_, f) in rule_facts(part) {
                out.push(candidate(retracted(f), index, None, FactAction::Retract));
            }
        }
    }
    // One the rules cannot key ("I quit smoking", "we sold the boat", "I
    // don't play chess any more") names its fact by its words.
    if !out.iter().any(|c| c.action == FactAction::Retract) {
        if let Some(thing) = statement::given_up(clause).or_else(|| statement::no_longer(clause)) {
            out.push(by_words(&thing, index));
        }
    }
    // A correction the rules keyed ("I'm not from Porto, I'm from Lisbon")
    // needs no retraction by words beside it.
    if !out.iter().any(|c| c.action == FactAction::Retract) {
        out.extend(left);
    }
    out
}

/// A correction's right value, with no key until `decide` finds the fact
/// that holds the wrong one.
fn correction(right: &str, wrong: &str, index: usize) -> Candidate {
    let f = Fact {
        attribute: String::new(),
        value: right.to_owned(),
        statement: format!("User: {right}, not {wrong}."),
        importance: 0.6,
        default_ttl: None,
    };
    let mut c = candidate(f, index, None, FactAction::Assert);
    c.replaces = Some(wrong.to_owned());
    c
}

/// A retraction with no attribute that names what goes by its words
/// (`decide` retires the user's facts that hold them all).
fn by_words(thing: &str, index: usize) -> Candidate {
    let f = Fact {
        attribute: String::new(),
        value: thing.to_owned(),
        statement: format!("User: {thing}."),
        importance: 0.5,
        default_ttl: None,
    };
    candidate(f, index, None, FactAction::Retract)
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
    // In a script written without spaces, two characters are a word's worth.
    let words = thing.split_whitespace().count().max(
        thing
            .chars()
            .filter(|c| crate::text::words::unspaced(*c))
            .count()
            / 2,
    );
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

    fn reads_any_language(&self) -> bool {
        false
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

    fn read(text: &str) -> Vec<(FactAction, String, String)> {
        RulesExtractor
            .extract_sync(&[InputMessage {
                role: crate::extract::Role::User,
                content: text.into(),
                created_at: chrono::Utc::now(),
            }])
            .into_iter()
            .map(|c| (c.action, c.attribute, c.value))
            .collect()
    }

    #[test]
    fn changes_corrections_and_things_given_up() {
        use FactAction::{Assert, Retract};
        let s = |x: &str| x.to_owned();
        // A move from one city to another is the new city (it supersedes
        // the old one), never a retraction of "Oslo to Bergen".
        assert_eq!(
            read("We moved from Oslo to Bergen in March."),
            [(Assert, s("location.city"), s("Bergen"))]
        );
        // A switch leaves what it switched from, by its words.
        let switched = read("I switched from Android to an iPhone last week.");
        assert!(
            switched.contains(&(Retract, s(""), s("Android"))),
            "{switched:?}"
        );
        assert!(
            switched
                .iter()
                .any(|(a, k, v)| *a == Assert && k.starts_with("tool.") && v.contains("iPhone")),
            "{switched:?}"
        );
        // Given up, sold, lost, no longer: by their words.
        for (text, thing) in [
            ("I quit smoking last year.", "smoking"),
            ("I stopped learning German.", "learning German"),
            ("I gave up coffee a month ago.", "coffee"),
            ("We sold the boat.", "boat"),
            ("Our rabbit Clover died last week.", "rabbit Clover"),
            ("I don't play chess anymore.", "play chess"),
            ("I'm no longer a member of the gym.", "member of the gym"),
            ("Sold the Golf; these days I cycle.", "Golf"),
        ] {
            assert_eq!(read(text), [(Retract, s(""), s(thing))], "{text}");
        }
        // What was given up, then what came next.
        assert_eq!(
            read("I stopped Spanish and started learning Japanese instead."),
            [
                (Retract, s(""), s("Spanish")),
                (Assert, s("learning.japanese"), s("Japanese"))
            ]
        );
        // A retraction the rules can key keeps its key.
        assert_eq!(
            read("I'm no longer vegetarian."),
            [(Retract, s("diet"), s("vegetarian"))]
        );
        // A correction asserts the right value in place of the wrong one
        // (`decide` lends it the wrong one's key).
        let fixed = RulesExtractor.extract_sync(&[InputMessage {
            role: crate::extract::Role::User,
            content: "Sorry, I meant Graz, not Salzburg.".into(),
            created_at: chrono::Utc::now(),
        }]);
        assert_eq!(fixed.len(), 1, "{fixed:?}");
        assert_eq!((fixed[0].action, fixed[0].value.as_str()), (Assert, "Graz"));
        assert_eq!(fixed[0].replaces.as_deref(), Some("Salzburg"));
        let wrong = read("No wait, it's Deloitte I work for, not KPMG.");
        assert_eq!(wrong, [(Assert, s(""), s("Deloitte"))]);
        // One that names no right value retires the wrong one by its words.
        assert_eq!(
            read("Sorry, that was wrong, not Salzburg at all."),
            [(Retract, s(""), s("Salzburg at all"))]
        );
        // A new role said with "now the".
        assert_eq!(
            read("I'm now the team lead."),
            [(Assert, s("role"), s("team lead"))]
        );
        // A bare number after "I'm" ending its clause is an age.
        assert_eq!(
            read("Actually I'm 34, not 43."),
            [(Assert, s("age"), s("34"))]
        );
        assert!(read("I'm 5 minutes away.").is_empty());
        let kenya = read("I'm 41, from Kenya.");
        assert!(kenya.contains(&(Assert, s("age"), s("41"))), "{kenya:?}");
        // A name alone after "I'm" ending its clause; not a nationality.
        let priya =
            read("I'm Priya, I live in Pune, work at Infosys and have a cat named Biscuit.");
        assert!(
            priya.contains(&(Assert, s("name"), s("Priya"))),
            "{priya:?}"
        );
        assert_eq!(priya.len(), 4, "{priya:?}");
        assert!(read("I'm Italian, and I live in Rome.")
            .iter()
            .all(|(_, k, _)| k != "name"));
        assert!(read("I'm Japanese.").is_empty());
        // A fact of one of the user's people is theirs.
        assert_eq!(
            read("My brother lives in Denver."),
            [(Assert, s("family.brother.location.city"), s("Denver"))]
        );
        assert_eq!(
            read("My friend Tom is a dentist."),
            [(Assert, s("friend.tom.role"), s("dentist"))]
        );
        assert_eq!(
            read("My wife works at the BBC."),
            [(Assert, s("family.wife.employer"), s("the BBC"))]
        );
        // A profession in a place; teaching a subject; a wedding.
        let bristol = read("I'm a dentist in Bristol.");
        assert!(
            bristol.contains(&(Assert, s("location.city"), s("Bristol"))),
            "{bristol:?}"
        );
        assert!(read("I teach maths in Nairobi.").contains(&(
            Assert,
            s("role"),
            s("maths teacher")
        )));
        assert!(read("I got married in June.").contains(&(
            Assert,
            s("relationship.status"),
            s("married")
        )));
        // "My cat's called …", "my son's actually named …".
        assert_eq!(
            read("My cat's actually called Miso."),
            [(Assert, s("pet.cat.name"), s("Miso"))]
        );
        assert_eq!(
            read("My son's named Felix."),
            [(Assert, s("family.son.name"), s("Felix"))]
        );
        // A job held for a while.
        assert_eq!(
            read("I've worked as a florist since 2019."),
            [(Assert, s("role"), s("florist"))]
        );
        // A favourite said the other way round; a pointer names nothing.
        assert_eq!(
            read("Green is my favourite colour."),
            [(Assert, s("favorite.colour"), s("Green"))]
        );
        assert!(read("That is my favourite song!").is_empty());
        // A couple's end is the user's status; someone else's is not.
        for (text, status) in [
            ("Paul and I divorced last year.", "divorced"),
            ("My wife and I split up.", "separated"),
            ("We separated in May.", "separated"),
        ] {
            assert_eq!(
                read(text),
                [(Assert, s("relationship.status"), s(status))],
                "{text}"
            );
        }
        for text in [
            "My parents divorced when I was five.",
            "I split up the money.",
        ] {
            assert!(read(text).is_empty(), "{text}: {:?}", read(text));
        }
        // Lists: "deploy on", "and now work as".
        let stack = read("I use Neovim, code in Python and deploy on Fly.io.");
        assert!(
            stack.iter().any(|(_, k, _)| k == "tool.fly_io"),
            "{stack:?}"
        );
        let moved = read("Born in 1990, I moved to Toronto in 2015 and now work as an architect.");
        assert!(
            moved.contains(&(Assert, s("role"), s("architect"))),
            "{moved:?}"
        );
        // An abbreviation ends no value.
        let nurse = read("I work as a nurse at St. Mary's hospital.");
        assert!(
            nurse
                .iter()
                .any(|(_, k, v)| k == "employer" && v.starts_with("St. Mary")),
            "{nurse:?}"
        );
        // "but" joins a list too; "I've been learning" is learning.
        let food = read("I hate coriander but love spicy food.");
        assert_eq!(food.len(), 2, "{food:?}");
        let japanese = read("I've been learning Japanese for two years.");
        assert_eq!(japanese, [(Assert, s("learning.japanese"), s("Japanese"))]);
        // Not the user's, or not said: nothing.
        for text in [
            "My brother quit smoking.",
            "Should I sell the boat?",
            "If I gave up coffee, would I sleep better?",
            "I don't have time.",
            "I like tea, not coffee.",
        ] {
            assert!(
                read(text).iter().all(|(a, _, _)| *a != Retract),
                "{text}: {:?}",
                read(text)
            );
        }
    }

    #[test]
    fn a_list_that_leaves_its_subject_out_is_read_in_full() {
        let got = facts("I live in Pune, work at Infosys and have a cat named Biscuit.");
        for want in [
            ("location.city", "Pune"),
            ("employer", "Infosys"),
            ("pet.cat.name", "Biscuit"),
        ] {
            assert!(got.contains(&(want.0.into(), want.1.into())), "{got:?}");
        }
        let got = facts("My husband Mark and I live in Leeds.");
        assert!(
            got.contains(&("family.husband.name".into(), "Mark".into())),
            "{got:?}"
        );
        let got = facts("I'm 41, from Kenya, and I speak Swahili.");
        assert!(got.contains(&("origin".into(), "Kenya".into())), "{got:?}");
        // A question, a plan or someone else's words lend no subject.
        for text in [
            "Should I move to Pune, work at Infosys and have a cat?",
            "If I lived in Pune, work at Infosys would be easy.",
            "My brother said I live in Pune, work at Infosys.",
        ] {
            let got = facts(text);
            assert!(!got.iter().any(|(k, _)| k == "employer"), "{text}: {got:?}");
        }
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
