//! A model's candidates with the rules' beside them. A small model misses
//! what the rules read reliably (a forget request, "I quit smoking", a
//! plain "I live in Oslo") and may contradict itself; the rules never
//! see past their patterns. Together: the model's facts, then each rules
//! candidate the model has nothing on, and no retraction of what the same
//! answer asserts. Pure, so it is tested here and used by every model.

use super::{
    same_value, slug, Candidate, FactAction, InputMessage, Role, RulesExtractor, OTHERS_KEYS,
};
use crate::policy::unread_language;
use crate::text::statement::{
    asks_to_forget, asserts_plainly, denies_in_any_language, first_person, given_up, said_of,
    takes_back_anything, users_person,
};
use crate::text::words::{folded, says};

/// A model's retractions and forget requests checked against the words
/// of their message. A retraction of what the message plainly asserts is
/// the assertion it is: small models copy a retraction from their prompt's
/// example onto "Sorry, I meant Graz, not Salzburg" (Graz). In English, a
/// retraction from a message that takes nothing back, or a forget request
/// from one that asks for nothing to be forgotten, was copied, not read,
/// and goes ("I'm Priya, I work at Infosys" gave "retract employer"); in
/// another language, one from a message with no word of denial goes, or
/// becomes the assertion of the value the message holds ("Ich arbeite bei
/// der Telekom" gave "retract Telekom"). Forget requests are read in the
/// languages `statement::forget` knows.
pub fn as_said(mut model: Vec<Candidate>, messages: &[InputMessage]) -> Vec<Candidate> {
    model.retain_mut(|c| {
        let said = messages
            .get(c.message_index)
            .map_or("", |m| m.content.as_str());
        let english = unread_language(said).is_none();
        let held = says(said, &c.value);
        let made = match c.action {
            FactAction::Retract
                if asserts_plainly(said, &c.value)
                    || (!english && held && !denies_in_any_language(said)) =>
            {
                c.action = FactAction::Assert;
                return true;
            }
            FactAction::Retract if english => takes_back_anything(said),
            FactAction::Retract => denies_in_any_language(said),
            FactAction::Forget => asks_to_forget(said),
            FactAction::Assert => {
                ended_instead(c, said, english);
                return true;
            }
        };
        made || asserted_instead(c, said, english)
    });
    model
}

/// A model's assertion that the user gave something up ("User has quit
/// playing the violin.") from an English message that takes something
/// back: the retraction it is, by the words of what ended, so the fact
/// held before goes rather than living beside its end.
fn ended_instead(c: &mut Candidate, said: &str, english: bool) {
    if !english || !takes_back_anything(said) {
        return;
    }
    let Some(thing) = crate::text::statement::first_person(&c.statement)
        .and_then(|s| given_up(&s).or_else(|| crate::text::statement::no_longer(&s)))
    else {
        return;
    };
    if !crate::text::words::names_all(&thing, said) {
        return;
    }
    c.action = FactAction::Retract;
    c.attribute = String::new();
    c.value = thing;
}

/// A retraction or forget request its message does not make, read as the
/// assertion its statement makes: a 0.5B model answers "Vivo en Sevilla y
/// mi perro se llama Toby" with the city, then "retract" for the second
/// fact, as its prompt's example did ("User's pet Toby is a dog.", "User is
/// a doctor."). Its value is the one it named, else the rules' reading of
/// its statement, else the statement's predicate. In English the message
/// must hold that value (else the model copied it); in another language
/// the statement may translate it, and the fact counts as inferred.
/// `false` when nothing is asserted (a label such as "User's cat's name.").
fn asserted_instead(c: &mut Candidate, said: &str, english: bool) -> bool {
    let in_message = |v: &str| says(said, v) || crate::text::words::names_all(v, said);
    let predicate = super::predicate_of(&c.statement);
    // A label names nothing; a denied predicate ("does not need a visa")
    // asserts nothing.
    static DENIED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(?:not|never|no\s+longer)\b|n't\b")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    if predicate.is_empty() || super::is_label(&predicate) || DENIED.is_match(&predicate) {
        return false;
    }
    let (attribute, value) = if !c.value.trim().is_empty() {
        (c.attribute.clone(), c.value.trim().to_owned())
    } else if let Some(r) = read_back(&c.statement) {
        (r.attribute, r.value)
    } else {
        (c.attribute.clone(), predicate)
    };
    let stated = in_message(&value);
    if english && !stated {
        return false;
    }
    c.action = FactAction::Assert;
    c.attribute = attribute;
    c.value = value;
    c.stated = stated;
    c.confidence = if stated { 0.9 } else { 0.6 };
    true
}

/// The parts of a message in another language that none of the model's
/// facts from it covers (by value, or by a word of its statement): a small
/// model often reads only the first part ("Moro em Curitiba e sou
/// professora" gave the job alone; "Ik woon in Utrecht en ik ben leraar"
/// the city alone). Each is worth asking about on its own. English is left
/// to the rules, which read beside the model. A part of one word in a Latin
/// script ("sí", "ok") is not worth a question.
pub fn unread_parts(messages: &[InputMessage], facts: &[Candidate]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m.role != Role::User || unread_language(&m.content).is_none() {
            continue;
        }
        let words_of = |c: &Candidate| -> Vec<String> {
            folded(&c.statement)
                .split(|ch: char| !ch.is_alphanumeric())
                .filter(|w| w.chars().count() >= 4 && *w != "user")
                .map(str::to_owned)
                .collect()
        };
        let read: Vec<(String, Vec<String>)> = facts
            .iter()
            .filter(|c| c.message_index == i)
            .map(|c| (folded(c.value.trim()), words_of(c)))
            .collect();
        for part in crate::text::parts(&m.content) {
            let other_script = part
                .chars()
                .filter(|c| {
                    c.is_alphabetic() && !c.is_ascii() && !('\u{c0}'..='\u{24f}').contains(c)
                })
                .count();
            if part.split_whitespace().count() < 2 && other_script < 2 {
                continue;
            }
            let seen = folded(part);
            let covered = read.iter().any(|(value, words)| {
                (value.chars().count() >= 2 && seen.contains(value.as_str()))
                    || words.iter().any(|w| seen.contains(w.as_str()))
            });
            if !covered {
                out.push((i, part.to_owned()));
            }
        }
    }
    out
}

/// What the rules read in a model's statement said back in the first
/// person (nothing when it is not about the user).
fn read_statement(statement: &str, at: chrono::DateTime<chrono::Utc>) -> Vec<Candidate> {
    first_person(statement).map_or_else(Vec::new, |said| {
        RulesExtractor.extract_sync(&[InputMessage {
            role: Role::User,
            content: said,
            created_at: at,
        }])
    })
}

/// The one assertion the rules read in a model's statement, for a fact
/// the model gave no value: "User lives in Porto." → `location.city` =
/// Porto. `None` when they read none, or more than one.
pub fn read_back(statement: &str) -> Option<Candidate> {
    let mut read = read_statement(statement, chrono::Utc::now());
    read.retain(|r| r.action == FactAction::Assert && !r.value.trim().is_empty());
    (read.len() == 1).then(|| read.remove(0))
}

/// A model's keys checked against its own words: each statement is said
/// back in the first person and read by the rules; where they read the
/// same value under another key, their key is taken. Small models pick a
/// key from the prompt's list almost at random ("User works at Infosys"
/// under `location.current`), and a wrong key means an update supersedes
/// the wrong fact, or nothing, and a forget request misses it.
pub fn rekeyed(mut model: Vec<Candidate>, messages: &[InputMessage]) -> Vec<Candidate> {
    for c in &mut model {
        let value = slug(&c.value);
        if value.is_empty() {
            continue;
        }
        let at = messages
            .get(c.message_index)
            .map_or_else(chrono::Utc::now, |m| m.created_at);
        let read = read_statement(&c.statement, at);
        let same = read.iter().find(|r| {
            let v = slug(&r.value);
            !v.is_empty() && (v == value || v.contains(&value) || value.contains(&v))
        });
        if let Some(r) = same {
            c.attribute.clone_from(&r.attribute);
        }
    }
    // A fact about one of the user's people is kept under them: "User's
    // brother lives in Denver." under `location.city` would supersede
    // the user's own city. One the model gave the user from a clause about
    // one of their people ("My brother lives in Denver" → "User lives in
    // Denver.") is given back to that person.
    for c in &mut model {
        let family = c.attribute.split('.').next().unwrap_or("");
        if OTHERS_KEYS.contains(&family) || c.action != FactAction::Assert {
            continue;
        }
        let who = users_person(&c.statement).or_else(|| {
            let said = messages.get(c.message_index)?;
            let who = said_of(&said.content, &c.value)??;
            let rest = c.statement.trim().strip_prefix("User ")?.to_owned();
            c.statement = format!("User's {} {rest}", who.replace('_', " "));
            Some(who)
        });
        if let Some(who) = who {
            c.attribute = super::bounded_key(&format!("family.{who}.{}", c.attribute), 80);
        }
    }
    model
}

/// Whether two candidates are about the same fact: the same attribute
/// (and value, when both name one), or the same value under another key.
fn same_fact(a: &Candidate, b: &Candidate) -> bool {
    let (va, vb) = (a.value.trim().to_lowercase(), b.value.trim().to_lowercase());
    (a.attribute == b.attribute && (va.is_empty() || vb.is_empty() || va == vb))
        || (!va.is_empty() && !generic(&va) && va == vb)
}

/// A value that names no fact, whose key does ("likes", a flag).
fn generic(value: &str) -> bool {
    matches!(slug(value).as_str(), "likes" | "dislikes" | "true" | "yes")
}

/// Whether a model's assertion reads the same fact as the rules' `rule`:
/// the same value, or, where the value names no fact ("likes", a flag),
/// a statement that names the thing the rules' key names ("User loves
/// horror films." and `likes.horror_films`).
fn same_reading(m: &Candidate, rule: &Candidate) -> bool {
    if generic(&rule.value) {
        let thing = rule
            .attribute
            .rsplit('.')
            .next()
            .unwrap_or("")
            .replace('_', " ");
        crate::text::words::names_all(&thing, &m.statement)
    } else {
        same_value(&rule.value, &m.value)
    }
}

/// Whether the model asserted what the rules' assertion `rule` says: an
/// assertion of the same fact, or one whose words hold its value. A
/// retraction covers nothing: "I moved to Lyon" read as "retract the city"
/// would otherwise keep the rules' Lyon out.
fn covered(rule: &Candidate, model: &[Candidate]) -> bool {
    let value = rule.value.trim().to_lowercase();
    model.iter().any(|m| {
        m.action == FactAction::Assert
            && m.message_index == rule.message_index
            && (same_fact(m, rule)
                || same_reading(m, rule)
                || (!value.is_empty()
                    && !generic(&value)
                    && m.statement.to_lowercase().contains(&value)))
    })
}

/// The model's candidates and the rules' assertions it missed, without
/// repeats. Retractions and forget requests the rules read replace the
/// model's of the same kind on that message: the rules name what goes in
/// the words memories are matched by, where a model's key may miss it.
/// No retraction or forget request survives beside an assertion of the
/// same fact that its message bears out (`borne`: a retraction needs words
/// of its own, the rules read them; an assertion the message denies, as a
/// model's "User works at Initech." from "I don't work at Initech any
/// more", is no reason to drop the rules' retraction).
pub fn with_rules(
    mut model: Vec<Candidate>,
    rules: Vec<Candidate>,
    borne: impl Fn(&Candidate) -> bool,
) -> Vec<Candidate> {
    // Where the rules read a value the model also gave, their key is taken
    // (they read it from the message, the model guessed: "I work at
    // Initech" as the model's `location.city`, "my son's name is Theo" as
    // its `name`). And what the user said wins over what the model
    // inferred: "I started a new job at Shopify" gave the model "shopify
    // worker", in no message, which cannot replace a stated employer; the
    // rules' "Shopify" can.
    model.retain(|m| {
        m.action != FactAction::Assert
            || !rules.iter().any(|r| {
                r.action == FactAction::Assert
                    && r.stated
                    && r.message_index == m.message_index
                    && if same_reading(m, r) {
                        r.attribute != m.attribute
                    } else {
                        !m.stated
                            && (r.attribute == m.attribute
                                || m.statement.to_lowercase().contains(&r.value.to_lowercase()))
                    }
            })
    });
    let ruled = |c: &Candidate| {
        rules
            .iter()
            .any(|r| r.action == c.action && r.message_index == c.message_index)
    };
    let mut all: Vec<Candidate> = model
        .iter()
        .filter(|m| m.action == FactAction::Assert || !ruled(m))
        .cloned()
        .collect();
    all.extend(
        rules
            .iter()
            .filter(|r| r.action != FactAction::Assert || !covered(r, &model))
            .cloned(),
    );
    let mut out: Vec<Candidate> = Vec::new();
    for c in &all {
        let contradicted = c.action != FactAction::Assert
            && all.iter().any(|a| {
                a.action == FactAction::Assert
                    && a.message_index == c.message_index
                    && same_fact(a, c)
                    && borne(a)
            });
        let repeated = out
            .iter()
            .any(|o| o.action == c.action && o.attribute == c.attribute && o.value == c.value);
        if !contradicted && !repeated {
            out.push(c.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{InputMessage, Role, RulesExtractor};

    fn candidate(attribute: &str, value: &str, action: FactAction) -> Candidate {
        Candidate {
            statement: format!("User {attribute} {value}."),
            kind: crate::MemoryKind::Semantic,
            subject: "user".into(),
            attribute: attribute.into(),
            value: value.into(),
            importance: 0.5,
            confidence: 0.9,
            sensitivity: None,
            expires_at: None,
            stated: true,
            message_index: 0,
            action,
            replaces: None,
        }
    }

    fn rules(text: &str) -> Vec<Candidate> {
        RulesExtractor.extract_sync(&[InputMessage {
            role: Role::User,
            content: text.into(),
            created_at: chrono::Utc::now(),
        }])
    }

    #[test]
    fn a_key_the_model_got_wrong_is_the_rules_reading_of_its_statement() {
        let said = |text: &str| {
            vec![InputMessage {
                role: Role::User,
                content: text.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let mut works = candidate("location.current", "Infosys", FactAction::Assert);
        works.statement = "User works at Infosys.".into();
        let mut cat = candidate("location.city", "Biscuit", FactAction::Assert);
        cat.statement = "User has a cat named Biscuit.".into();
        let mut gone = candidate("location", "Siemens", FactAction::Retract);
        gone.statement = "User no longer works at Siemens.".into();
        let out = rekeyed(
            vec![works, cat, gone],
            &said("I work at Infosys and have a cat named Biscuit; I left Siemens."),
        );
        let keys: Vec<&str> = out.iter().map(|c| c.attribute.as_str()).collect();
        assert_eq!(keys[0], "employer", "{out:?}");
        assert!(keys[1].starts_with("pet.cat"), "{out:?}");
        assert_eq!(keys[2], "employer", "{out:?}");
        // A key the rules cannot check stays the model's; so does a
        // reading of another value.
        let mut odd = candidate("hobby.climbing", "climbing", FactAction::Assert);
        odd.statement = "User goes bouldering twice a week.".into();
        let mut other = candidate("role", "nurse", FactAction::Assert);
        other.statement = "User lives in Leeds.".into();
        let out = rekeyed(vec![odd, other], &said("I climb; I'm a nurse in Leeds."));
        assert_eq!(out[0].attribute, "hobby.climbing");
        assert_eq!(out[1].attribute, "role");
        // The brother's city is his.
        let mut his = candidate("location.city", "Denver", FactAction::Assert);
        his.statement = "User's brother lives in Denver.".into();
        let out = rekeyed(vec![his], &said("My brother lives in Denver."));
        assert_eq!(out[0].attribute, "family.brother.location.city", "{out:?}");
        // So is the one the model gave the user.
        let mut mine = candidate("location.city", "Denver", FactAction::Assert);
        mine.statement = "User lives in Denver.".into();
        let out = rekeyed(vec![mine], &said("My brother lives in Denver."));
        assert_eq!(out[0].attribute, "family.brother.location.city", "{out:?}");
        assert_eq!(out[0].statement, "User's brother lives in Denver.");
    }

    #[test]
    fn a_copied_retraction_or_forget_request_goes_but_one_the_words_bear_stays() {
        let said = |text: &str| {
            vec![InputMessage {
                role: Role::User,
                content: text.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let retract = candidate("employer", "", FactAction::Retract);
        let forget = candidate("pet.cat.name", "", FactAction::Forget);
        let plain =
            said("I'm Priya, I live in Pune, work at Infosys and have a cat named Biscuit.");
        assert!(as_said(vec![retract.clone(), forget.clone()], &plain).is_empty());
        let out = as_said(
            vec![retract.clone(), forget.clone()],
            &said("I no longer work at Initech, and please forget my cat's name."),
        );
        assert_eq!(out.len(), 2, "{out:?}");
        // Another language: a retraction stands with a word of denial; a
        // copied one of a value the message holds is its assertion.
        let out = as_said(
            vec![retract.clone()],
            &said("Ich arbeite nicht mehr bei der Telekom."),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        let telekom = candidate("employer", "Telekom", FactAction::Retract);
        let out = as_said(
            vec![telekom, retract],
            &said("Ich wohne in Köln und arbeite bei der Telekom."),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].action, FactAction::Assert);
    }

    #[test]
    fn a_models_retraction_keeps_no_assertion_of_the_rules_out() {
        // A 0.5B model read "I moved to Lyon" as "retract the city".
        let text = "I moved to Lyon last week.";
        let model = vec![candidate("location.city", "", FactAction::Retract)];
        let both = with_rules(model, rules(text), |_| true);
        assert!(
            both.iter()
                .any(|c| c.action == FactAction::Assert && c.value == "Lyon"),
            "{both:?}"
        );
        assert!(
            both.iter().all(|c| c.action == FactAction::Assert),
            "{both:?}"
        );
        // A statement with no value is read back by the rules.
        let read = read_back("User lives in Porto.").unwrap_or_else(|| panic!("unread"));
        assert_eq!(
            (read.attribute.as_str(), read.value.as_str()),
            ("location.city", "Porto")
        );
        let lead = read_back("User is now the team lead.").unwrap_or_else(|| panic!("unread"));
        assert_eq!(
            (lead.attribute.as_str(), lead.value.as_str()),
            ("role", "team lead")
        );
        assert!(read_back("User (2026-12-05)").is_none());
    }

    #[test]
    fn a_retraction_the_message_does_not_make_is_the_assertion_of_its_statement() {
        let said = |text: &str| {
            vec![InputMessage {
                role: Role::User,
                content: text.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let stated = |attribute: &str, statement: &str| {
            let mut c = candidate(attribute, "", FactAction::Retract);
            c.statement = statement.into();
            c
        };
        // Another language: a translated fact stays, as inferred.
        let out = as_said(
            vec![
                stated("location.city", "User lives in Shanghai."),
                stated("role", "User is a doctor."),
            ],
            &said("我住在上海，我是医生。"),
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out
            .iter()
            .all(|c| c.action == FactAction::Assert && !c.stated));
        assert_eq!(
            (out[1].attribute.as_str(), out[1].value.as_str()),
            ("role", "doctor")
        );
        // One in the user's words is stated.
        let out = as_said(
            vec![stated("age", "User is infirmière.")],
            &said("J'habite à Lyon et je suis infirmière."),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].value, "infirmière");
        assert!(out[0].stated);
        // English: only what the message holds; a label never.
        let out = as_said(
            vec![
                stated("employer", "User works at Infosys."),
                stated("location.city", "User lives in Tromsø."),
                stated("pet.cat.name", "User's cat's name."),
            ],
            &said("I'm Priya and I work at Infosys."),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(
            (out[0].action, out[0].value.as_str()),
            (FactAction::Assert, "Infosys")
        );
    }

    #[test]
    fn an_assertion_the_message_denies_keeps_no_retraction_out() {
        let text = "I don't work at Initech any more.";
        let mut model = candidate("employer", "Initech", FactAction::Assert);
        model.statement = "User works at Initech.".into();
        let borne = |c: &Candidate| crate::text::statement::unsupported(text, &c.value).is_none();
        let both = with_rules(vec![model.clone()], rules(text), borne);
        assert!(
            both.iter()
                .any(|c| c.action == FactAction::Retract && c.attribute == "employer"),
            "{both:?}"
        );
        // Borne out, it does (a model that asserts and retracts one fact).
        let both = with_rules(vec![model], rules(text), |_| true);
        assert!(
            both.iter().all(|c| c.action == FactAction::Assert),
            "{both:?}"
        );
    }

    #[test]
    fn the_rules_key_a_value_they_read_over_the_models_guess() {
        let text = "Correction: my son's name is Theo, not Leo.";
        let mut model = candidate("name", "Theo", FactAction::Assert);
        model.statement = "User's name is Theo.".into();
        let both = with_rules(vec![model], rules(text), |_| true);
        let theo: Vec<&Candidate> = both.iter().filter(|c| c.value == "Theo").collect();
        assert_eq!(theo.len(), 1, "{both:?}");
        assert_eq!(theo[0].attribute, "family.son.name");
        // "likes" names no fact, its key does: a model's likes of another
        // thing stand beside the rules', one of the same thing takes the
        // rules' key ("horror films", not the model's "horror").
        let mut tea = candidate("likes.green_tea", "likes", FactAction::Assert);
        tea.statement = "User likes green tea.".into();
        let both = with_rules(vec![tea], rules("I like coffee and green tea."), |_| true);
        assert!(
            both.iter().any(|c| c.attribute == "likes.green_tea"),
            "{both:?}"
        );
        assert!(
            both.iter().any(|c| c.attribute == "likes.coffee"),
            "{both:?}"
        );
        let mut horror = candidate("likes.horror", "true", FactAction::Assert);
        horror.statement = "User loves horror films.".into();
        let both = with_rules(vec![horror], rules("I love horror films."), |_| true);
        let keys: Vec<&str> = both.iter().map(|c| c.attribute.as_str()).collect();
        assert_eq!(keys, ["likes.horror_films"], "{both:?}");
    }

    #[test]
    fn the_parts_of_another_language_the_model_left_out_are_found() {
        let said = |text: &str| {
            vec![InputMessage {
                role: Role::User,
                content: text.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let fact = |attribute: &str, value: &str, statement: &str| {
            let mut c = candidate(attribute, value, FactAction::Assert);
            c.statement = statement.into();
            c
        };
        let job = fact("role", "professor", "User is a professor.");
        assert_eq!(
            unread_parts(&said("Moro em Curitiba e sou professora."), &[job]),
            [(0, "Moro em Curitiba".to_owned())]
        );
        let city = fact("location.city", "Köln", "User lives in Köln.");
        let firm = fact("employer", "Telekom", "User works at Telekom.");
        let german = said("Ich wohne in Köln und arbeite bei der Telekom.");
        assert!(unread_parts(&german, &[city.clone(), firm]).is_empty());
        assert_eq!(
            unread_parts(&german, &[city]),
            [(0, "arbeite bei der Telekom".to_owned())]
        );
        // Translated away, a part in another script is asked about again.
        let shanghai = fact("location.city", "Shanghai", "User lives in Shanghai.");
        assert_eq!(
            unread_parts(&said("我住在上海，我是医生。"), &[shanghai]).len(),
            2
        );
        // English is the rules' to read beside the model; a word alone is
        // not worth a question.
        assert!(unread_parts(&said("I live in Oslo and I'm a nurse."), &[]).is_empty());
        assert!(unread_parts(&said("Hola."), &[]).is_empty());
    }

    #[test]
    fn what_the_user_said_wins_over_what_the_model_inferred() {
        let text = "I started a new job at Shopify.";
        let mut model = candidate("employer", "shopify worker", FactAction::Assert);
        model.statement = "User started a new job at Shopify.".into();
        model.stated = false;
        let both = with_rules(vec![model.clone()], rules(text), |_| true);
        assert_eq!(both.len(), 1, "{both:?}");
        assert_eq!(both[0].value, "Shopify");
        assert!(both[0].stated);
        // A stated model fact is kept over the rules' reading of it.
        model.stated = true;
        model.value = "Shopify".into();
        let both = with_rules(vec![model], rules(text), |_| true);
        assert_eq!(both.len(), 1, "{both:?}");
        assert_eq!(both[0].statement, "User started a new job at Shopify.");
    }

    #[test]
    fn what_the_model_missed_the_rules_add() {
        // The model read the city but not the forget request.
        let text = "I live in Oslo. Please forget where I work.";
        let model = vec![candidate("location.city", "Oslo", FactAction::Assert)];
        let both = with_rules(model, rules(text), |_| true);
        assert!(
            both.iter().any(|c| c.action == FactAction::Forget),
            "{both:?}"
        );
        // The rules' own reading of the city is not added twice.
        let cities = both.iter().filter(|c| c.value.contains("Oslo")).count();
        assert_eq!(cities, 1, "{both:?}");
        // A forget request both read is taken once, in the rules' words.
        let text = "Please forget where I live.";
        let model = vec![candidate("location", "", FactAction::Forget)];
        let alone = rules(text);
        let both = with_rules(model, alone.clone(), |_| true);
        assert_eq!(both.len(), alone.len(), "{both:?}");
        assert!(both.iter().all(|c| c.action == FactAction::Forget));
    }

    #[test]
    fn a_fact_the_model_keys_otherwise_is_not_added_again() {
        let text = "I've been learning Japanese for two years.";
        let model = vec![candidate("language", "Japanese", FactAction::Assert)];
        let both = with_rules(model, rules(text), |_| true);
        let japanese = both.iter().filter(|c| c.value.contains("Japanese")).count();
        assert_eq!(japanese, 1, "{both:?}");
    }

    #[test]
    fn an_answer_that_asserts_and_takes_back_one_fact_keeps_the_assertion() {
        let model = vec![
            candidate("language", "Japanese", FactAction::Assert),
            candidate("language", "japanese", FactAction::Retract),
            candidate("learning.japanese", "Japanese", FactAction::Forget),
            candidate("language", "Japanese", FactAction::Assert),
        ];
        let both = with_rules(model, Vec::new(), |_| true);
        assert_eq!(both.len(), 1, "{both:?}");
        assert_eq!(both[0].action, FactAction::Assert);
        // A retraction on its own stays, beside an unrelated assertion.
        let model = vec![
            candidate("employer", "Initech", FactAction::Retract),
            candidate("location.city", "Oslo", FactAction::Assert),
        ];
        assert_eq!(with_rules(model, Vec::new(), |_| true).len(), 2);
    }

    #[test]
    fn a_retraction_of_what_the_message_asserts_is_an_assertion() {
        let said = |t: &str| {
            vec![InputMessage {
                role: Role::User,
                content: t.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let model = vec![
            candidate("location.city", "Graz", FactAction::Retract),
            candidate("location.city", "Salzburg", FactAction::Retract),
        ];
        let read = as_said(model, &said("Sorry, I meant Graz, not Salzburg."));
        let actions: Vec<_> = read.iter().map(|c| c.action).collect();
        assert_eq!(actions, [FactAction::Assert, FactAction::Retract]);
        let quit = as_said(
            vec![candidate("habit", "smoking", FactAction::Retract)],
            &said("I quit smoking last year."),
        );
        assert_eq!(quit[0].action, FactAction::Retract);
        // "User has quit playing the violin." is the end of the violin.
        let mut ended = candidate("hobby.violin", "violin", FactAction::Assert);
        ended.statement = "User has quit playing the violin.".into();
        let read = as_said(
            vec![ended.clone()],
            &said("I haven't played the violin in years, I quit."),
        );
        assert_eq!(read[0].action, FactAction::Retract, "{read:?}");
        assert!(read[0].attribute.is_empty());
        assert!(read[0].value.contains("violin"), "{read:?}");
        // Not from a message that takes nothing back, nor of another thing.
        let plain = as_said(vec![ended.clone()], &said("I play the violin."));
        assert_eq!(plain[0].action, FactAction::Assert);
        let other = as_said(vec![ended], &said("I quit my job."));
        assert_eq!(other[0].action, FactAction::Assert);
    }

    #[test]
    fn with_nothing_from_the_model_the_rules_stand() {
        for text in [
            "I live in Oslo.",
            "I quit smoking last year.",
            "Should I move to Vienna?",
            "",
        ] {
            let alone = rules(text);
            let both = with_rules(Vec::new(), alone.clone(), |_| true);
            assert_eq!(both.len(), alone.len(), "{text}: {both:?}");
        }
    }
}
