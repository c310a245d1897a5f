//! Frames that make a first-person sentence something other than the
//! user's statement about their life: a tag question asking to confirm it,
//! a text or a form it was read from, a template, or a game or story it
//! happens in. `statement::stance` reads them.
//!
//! Why: "I work at Spotify, don't I", "The song goes: I work at the car
//! wash", "Template: I work at <COMPANY>" and "In Skyrim I live in
//! Whiterun" were each stored as the user's fact (issue 51). Each is a
//! class with a grammar: a tag is an auxiliary and a pronoun (or a
//! confirmation word) after a comma at the sentence's end; a text is a
//! noun of a kind of text as the sentence's subject or label; a template
//! holds a placeholder; a world is a name the sentence is set in.

use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("bad pattern {p}: {e}"))
}

/// A tag question: ", don't I", ", isn't it", ", right", ", no?" at the end.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i),\s*(?:",
        r"(?:do|does|did|is|are|am|was|were|have|has|had|can|could|will|would|should|shall|must|ai)(?:n['’]?t|\s+not)?\s+(?:i|you|we|they|he|she|it|there)",
        r"|right|correct|no|yes|yeah|innit|ok|okay|true|isn['’]t\s+that\s+so|am\s+i\s+right",
        r")\s*[?!.…]*\s*$"
    ))
});

/// Kinds of text a sentence can be read from or sung in.
const TEXTS: &str = r"(?:song|lyrics?|poem|verse|chorus|rhyme|template|form|script|quote|caption|prompt|sample|example|draft|placeholder|autofill|auto-fill|slogan|headline|line|riddle|joke|meme|ad|advert|advertisement|dialogue|transcript|story|novel|book|game|movie|film|show|character)";

/// A text as the sentence's label or subject: "Template: …", "The song
/// goes: …", "The caption reads: …", "The form auto-filled that …". A
/// reporting verb stands between the text and "that" (a relative "that"
/// follows the noun: "the movie script that I wrote"), and at most one word
/// before a colon
/// ("The game was called Counter-Strike: Global Offensive" names a game).
static FROM_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^\s*(?:(?:the|this|that|a|an|his|her|their|your|our|my)\s+)?(?:\w+\s+)?{TEXTS}s?\b(?:(?:\s+[\w'’-]+)?\s*:|\s+(?:[\w'’-]+ed|says|said|reads|read|shows|states|lists|claims|puts?|writes|wrote)(?:\s+in)?\s+that\b|\s+goes\b)"
    ))
});

/// A placeholder where a value goes: `<COMPANY>`, `{name}`, `[CITY]`, `XXX`.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    re(r"<[A-Za-z_ ]{2,30}>|\{\{?\s*[A-Za-z_]{2,30}\s*\}?\}|\[[A-Z_ ]{2,30}\]|\b(?:XXX+|xxx+|___+)")
});

/// A sentence set in a named world: "In Skyrim I live in Whiterun", "In
/// The Sims, I have a dog", "In my D&D campaign I …": what comes between
/// "In" and the user names something (a capital past its determiner).
/// A month, a year or a season sets a time, not a world ("In May I moved
/// to Oslo"), and "in my free time" names nothing.
static IN_A_WORLD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*[Ii]n\s+(?P<world>[^,.;:!?]{1,40}?)\s*,?\s+(?:I|my|we|our)\b"));

static TIME_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|spring|summer|autumn|fall|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|easter|\d{2,4}s?)\b",
    )
});

/// The sentence asks to confirm what it says ("…, don't I", "…, right").
pub fn tag_question(sentence: &str) -> bool {
    TAG.is_match(sentence.trim_end())
}

/// The sentence is read from a text, a form or a template, not said.
pub fn from_a_text(sentence: &str) -> bool {
    FROM_TEXT.is_match(sentence) || PLACEHOLDER.is_match(sentence)
}

/// The sentence is set in a named world (a game, a story), not the user's.
pub fn in_a_world(sentence: &str) -> bool {
    const DETERMINERS: &[&str] = &["The", "My", "Our", "This", "That", "A", "An", "Your"];
    let Some(world) = IN_A_WORLD.captures(sentence).and_then(|c| c.name("world")) else {
        return false;
    };
    let world = world.as_str();
    // A title capitalises its article ("In The Sims"); "in the Italian
    // cooking class" is a place in the user's life.
    if matches!(world.split_whitespace().next(), Some("the" | "a" | "an")) {
        return false;
    }
    let named = world
        .split_whitespace()
        .any(|w| w.starts_with(|c: char| c.is_uppercase()) && !DETERMINERS.contains(&w));
    named && !TIME_NAME.is_match(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_asks_to_confirm() {
        for s in [
            "I work at Spotify, don't I",
            "I live in Bergen, right",
            "I'm vegan, aren't I?",
            "My sister is a nurse, isn't she?",
            "I have two cats, no?",
            "I work at Acme, correct?",
        ] {
            assert!(tag_question(s), "{s}");
        }
        for s in [
            "I work at Spotify, and I love it.",
            "I live in Bergen, right by the harbour.",
            "I live in Bergen.",
            "Yes, I live in Bergen, I think it is lovely.",
        ] {
            assert!(!tag_question(s), "{s}");
        }
    }

    #[test]
    fn a_text_form_or_template_is_not_said() {
        for s in [
            "The song goes: I work at the car wash",
            "The form auto-filled that I live in Dover.",
            "Template: I work at <COMPANY>, I live in Gotham.",
            "Lyrics: I live in a yellow submarine",
            "My email template says I work at {company}.",
            "Sample line: I live in [CITY].",
            "The caption reads: I have a dog named Rex.",
        ] {
            assert!(from_a_text(s), "{s}");
        }
        for s in [
            "I live in Dover.",
            "I filled in the form and I live in Dover.",
            "Update: I work at Acme now.",
            "My book club meets on Tuesdays.",
            "I wrote a song about my dog Rex.",
            // Real chat sentences (LoCoMo, ShareGPT) the first version refused.
            "The game was called Counter-Strike: Global Offensive, and my team had a blast!",
            "Another movie script that I contributed to was shown last Sunday!",
            "Other books that left a lasting impression on me, I recently read Educated.",
        ] {
            assert!(!from_a_text(s), "{s}");
        }
    }

    #[test]
    fn a_named_world_is_not_the_users() {
        for s in [
            "In Skyrim I live in Whiterun.",
            "In The Sims, I have a dog named Rex.",
            "In Minecraft my house is on a hill.",
            "In my D&D campaign I am a wizard.",
        ] {
            assert!(in_a_world(s), "{s}");
        }
        for s in [
            "In May I moved to Oslo.",
            "In 2019, I started working at Acme.",
            "In the summer I work at a camp.",
            "I live in Skyrim Road.",
            "in my free time I play chess.",
            "In my new job I lead a team.",
            "In the Italian cooking class, I also learned how to prepare Osso Buco.",
        ] {
            assert!(!in_a_world(s), "{s}");
        }
    }
}
