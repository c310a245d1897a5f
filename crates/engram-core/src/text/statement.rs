//! What a statement does before what it says: whether a clause is the
//! user's own assertion, a question, a hypothesis or plan, someone else's
//! words, a denial or retraction, or a request to forget. Rules (and the
//! LLM's output, checked the same way) only turn the user's own assertions
//! into facts; denials and retractions retire facts, and forget requests
//! retire memories (docs/EXTRACTION.md, *What counts as a statement*).
//!
//! Pure functions over text, a clause at a time: a sentence is split into
//! clauses by `rules::clauses`, and each reading looks at the clause and at
//! what comes before it in its sentence.

use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("bad pattern {p}: {e}"))
}

/// How a clause stands, before any fact is read from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stance {
    /// The user's own assertion: facts may be read.
    Own,
    /// A question ("Should I work at Google?").
    Question,
    /// A hypothesis, wish, plan or hedge ("If I moved to Paris…", "I might…").
    Tentative,
    /// Someone else's words ("My brother told me: I live in Berlin"), a
    /// quoted example, or a line pasted from another speaker.
    Reported,
    /// Not meant: sarcasm or a joke ("Yeah right, I work at NASA").
    Insincere,
}

/// Auxiliaries and wh-words that open a question.
static QUESTION_OPENER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:and|but|so|or|also|then|hey|hi|ok|okay|well),?\s+)?(?:am|is|are|was|were|do|does|did|can|could|should|would|will|shall|may|might|must|have|has|had|what|where|when|why|how|who|whom|whose|which)\b",
    )
});

/// Words that make what follows a hypothesis, wish, plan or hedge.
static TENTATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:if|unless|suppose|supposing|imagine|imagining|assuming|maybe|perhaps|possibly|probably|might|would|could|should|wish(?:es|ed)?|hope(?:s|d)?\s+to|hoping|wants?\s+to|wanted\s+to|wanna|would\s+like|'d\s+(?:like|love|rather|prefer)|i'd|thinking\s+(?:about|of)|considering|contemplating|planning\s+(?:to|on)|plans?\s+to|someday|some\s+day|one\s+day|in\s+case|i\s+(?:think|guess|suppose|believe|reckon|doubt)|not\s+sure|dreaming\s+of|dream\s+of)\b",
    )
});

/// Verbs that report someone's words or belief.
static REPORTING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?P<who>\w+(?:'s)?)?\s*\b(?:told\s+me|tells\s+me|telling\s+me|told\s+us|said|says|say|saying|wrote|writes|writing|texted|messaged|thinks|thought|thinking|claims|claimed|claiming|reckons|believes|insists|insisting|heard|asked|mentioned|mentions|convinced|assumes|assumed|assuming|jokes|joked|joking|suspects|suspected|imagines|states|stated|lists|listed|reports|reported|alleges|alleged|swears|guesses|figures|rumou?rs?)\b|\baccording\s+to\b|\bquot(?:e|ed|ing)\b|\bthere(?:'s|\s+is|\s+are)\s+(?:a\s+)?(?:rumou?r|talk|gossip|story)\b",
    )
});

/// A quoted example or a text to work on, not the user's statement.
static EXAMPLE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:for\s+example|for\s+instance|e\.g\.|such\s+as|example\s+sentence|sample|something\s+like|translate|translation\s+of|test\s+sentence|a\s+line\s+like|the\s+phrase|the\s+sentence|the\s+example|as\s+an\s+example)\b",
    )
});

/// A line pasted from another speaker ("Assistant: you live in Oslo").
static OTHER_SPEAKER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?im)^\s*(?:assistant|ai|bot|chatbot|chatgpt|gpt|claude|gemini|copilot|system|model|agent|support|customer\s+service|user\s*2|interviewer|narrator|him|her|he|she|they|q|a)\s*:\s*",
    )
});

/// Sarcasm and jokes: what makes a sentence not meant.
static INSINCERE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:yeah\s+right|ya\s+right|yeah,?\s+sure|as\s+if|just\s+kidding|only\s+kidding|kidding|jk|j/k|lol|lmao|rofl|haha+|hehe+|",
        r"said\s+no\s+one\s+ever|in\s+my\s+dreams|dream\s+on|not!|ja\s+klar|klar\s+doch|na\s+klar|sí,\s+claro|oui,\s+bien\s+sûr|",
        r"and\s+i'?m\s+the\s+(?:queen|king|pope|president)|and\s+pigs\s+(?:can\s+)?fly|obviously\s+not|totally\s+not)\b|",
        r"(?:^|\s)/s\b|\.\.\.\s*not\b|,\s*not\.|😂|🤣|🙄|😜|😉|😏|🙃|\boh\s+totally\b|\bsure,\s+(?:i|my)\b.*\band\s+i'?m\b"
    ))
});

/// Words that make what follows a condition or a scenario rather than
/// something that is so ("When I work at Initech", "Hypothetically, …",
/// "In this story, …").
static SCENARIO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:when|whenever|once|provided|providing|in\s+the\s+event|in\s+case|hypothetically|theoretically|pretend|pretending|role-?play(?:ing)?|imagine|imagining|let's\s+say|say\s+that|what\s+if|in\s+(?:this|the|my|a)\s+(?:story|game|novel|scenario|dream|book|film|movie|script|simulation)|for\s+the\s+(?:game|story|exercise|scenario|sake\s+of\s+argument)|as\s+a\s+joke|wenn|falls|angenommen|cuando|si|supongamos|imagina|quand|lorsque|imaginons|quando|se\s+immaginiamo)\b",
    )
});

/// A question without its question mark: an auxiliary opening the
/// sentence before the user ("do I live in Berlin"), or asking whether.
static QUESTION_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:and|but|so|or|also|then|hey|hi|ok|okay|well|wait),?\s+)?(?:am|is|are|was|were|do|does|did|can|could|should|would|will|shall|have|has|had)\s+(?:i|my|me|we|our)\b|\b(?:is\s+it\s+true|whether|wonder(?:ing)?\s+(?:if|whether)|not\s+sure\s+(?:if|whether)|check\s+(?:if|whether)|tell\s+me\s+(?:if|whether)|do\s+you\s+know\s+(?:if|whether)|any\s+idea\s+(?:if|whether))\b",
    )
});

/// Where a contrast starts a statement of its own ("…, but I live in Austin").
static CONTRAST: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:but|however|although|though|whereas|actually|in fact)\b"));

const QUOTES: [char; 6] = ['"', '“', '”', '«', '»', '„'];

/// The stance of the text at `at` (a byte offset into `clause`), which is
/// part of `sentence`: the words before it in the clause decide hypotheses,
/// and the words before the clause in the sentence decide reported speech.
pub fn stance(sentence: &str, clause: &str, at: usize) -> Stance {
    let before = clause.get(..at).unwrap_or(clause);
    if is_question(sentence, clause)
        || QUESTION_WORDS.is_match(sentence)
        || super::frames::tag_question(sentence)
    {
        return Stance::Question;
    }
    // Read from a text or a template, or set in a game's or a story's world.
    if super::frames::from_a_text(sentence) {
        return Stance::Reported;
    }
    if super::frames::in_a_world(sentence) {
        return Stance::Tentative;
    }
    if INSINCERE.is_match(sentence) {
        return Stance::Insincere;
    }
    if OTHER_SPEAKER.is_match(sentence) && !sentence.trim_start().starts_with(['I', 'i']) {
        return Stance::Reported;
    }
    if TENTATIVE.is_match(before) {
        return Stance::Tentative;
    }
    // What the sentence says before this point, from its last contrast on.
    let offset = clause.as_ptr() as usize - sentence.as_ptr() as usize;
    let prefix = sentence
        .get(..(offset + at).min(sentence.len()))
        .unwrap_or(sentence);
    let prefix = match CONTRAST.find_iter(prefix).last() {
        Some(m) => &prefix[m.end()..],
        None => prefix,
    };
    if SCENARIO.is_match(prefix) {
        return Stance::Tentative;
    }
    if EXAMPLE.is_match(sentence) || in_single_quotes(sentence, offset + at) {
        return Stance::Reported;
    }
    let reported = REPORTING.captures_iter(prefix).any(|c| {
        // "I told you I work at …" is the user's own earlier statement.
        let who = c.name("who").map_or("", |w| w.as_str()).to_lowercase();
        !matches!(who.as_str(), "i" | "i've" | "i'd")
    });
    // Inside double quotation marks: a quoted sentence is someone's words.
    // (Single quotes cannot be counted: they are also apostrophes.)
    let quoted = prefix.chars().filter(|c| QUOTES.contains(c)).count() % 2 == 1;
    if reported || quoted {
        return Stance::Reported;
    }
    Stance::Own
}

/// Whether byte `at` of `sentence` lies inside single quotation marks used
/// as quotes (opened after a space or the start, closed before a space,
/// punctuation or the end), which apostrophes are not.
fn in_single_quotes(sentence: &str, at: usize) -> bool {
    static QUOTED: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?:^|[\s(])['‘]([^'’]+)['’](?:$|[\s.,;:!?)])"));
    QUOTED
        .captures_iter(sentence)
        .any(|c| c.get(1).is_some_and(|m| m.start() <= at && at < m.end()))
}

/// A question: its sentence ends with `?`, and the clause is the last one
/// before it or opens with an auxiliary or a wh-word ("Should I…", "What
/// if I…"). `clause` is a slice of `sentence`.
pub fn is_question(sentence: &str, clause: &str) -> bool {
    if !sentence.trim_end().ends_with('?') {
        return false;
    }
    let start = (clause.as_ptr() as usize).saturating_sub(sentence.as_ptr() as usize);
    let rest = sentence.get(start + clause.len()..).unwrap_or("");
    let last = rest
        .chars()
        .all(|c| c.is_whitespace() || "?!.;\"'”)".contains(c));
    last || QUESTION_OPENER.is_match(clause)
}

/// Openers of a clause that are not part of its statement.
static DISCOURSE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:no|nope|yes|yeah|well|actually|honestly|oh|so|ok|okay|hmm|correction|update|to be (?:honest|clear)|for the record|by the way|btw)\b[,!.:]?\s*)+",
    )
});

/// Denials and retractions, as (pattern, replacement): each turns the clause
/// into the assertion it takes back. Tried in order; all that match apply.
static AFFIRM: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    vec![
        (
            re(
                r"(?i)^\s*it(?:'s|\s+is|\s+was)\s+(?:not\s+true|false|untrue|wrong|a\s+lie|not\s+the\s+case)\s+that\s+",
            ),
            "",
        ),
        (re(r"(?i)\b(?:i|we)\s+(?:have\s+)?never\s+been\s+"), "I am "),
        (re(r"(?i)\bnever\s+(?:worked|work)\b"), "work"),
        (re(r"(?i)\bnever\s+(?:lived|live)\b"), "live"),
        (re(r"(?i)\b(?:stopped|quit|gave\s+up)\s+being\b"), "am"),
        (
            re(
                r"(?i)\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+)?(?:quit|resigned\s+from|walked\s+out\s+of|left)\s+(?:my\s+(?:job|position|role|work)|the\s+(?:company|firm))\s+(?:at|with|in)\s+(?P<org>(?-i:[A-Z])[\p{L}\p{N}&.'\- ]*)",
            ),
            "I work at $org",
        ),
        (
            re(
                r"(?i)\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+)?(?:quit|resigned\s+from|walked\s+out\s+of)\s+(?P<org>(?-i:[A-Z])[\p{L}\p{N}&.'\- ]*)",
            ),
            "I work at $org",
        ),
        (
            re(
                r"(?i)\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+)?moved\s+(?:away\s+)?(?:out\s+of|from)\s+(?P<place>(?-i:[A-Z])[\p{L}'\-]*(?:\s+(?:(?:de|da|do|del|la|le|am|upon|sur|of)\s+)?(?-i:[A-Z])[\p{L}'\-]*)*)",
            ),
            "I live in $place",
        ),
        // "I left X": a job or a place; both are taken back, and only the
        // one held is retired.
        (
            re(
                r"(?i)\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+)?left\s+(?P<x>(?-i:[A-Z])[\p{L}\p{N}&.'\- ]*)",
            ),
            "I work at $x. I live in $x",
        ),
        (re(r"(?i)\bno\s+longer\s+"), ""),
        (
            re(r"(?i)\b(?:do|does|did)\s+not\s+|\b(?:don't|doesn't|didn't|dont)\s+"),
            "",
        ),
        (re(r"(?i)\b(am|'m|is|are|was|were)\s+not\b"), "$1"),
        (re(r"(?i)\b(?:i'm|im)\s+not\b"), "I'm"),
        (re(r"(?i)\b(isn't|aren't|wasn't|weren't)\b"), "is"),
        (re(r"(?i)\bnever\s+"), ""),
        (re(r"(?i)\s*\b(?:any\s?more|any\s+longer)\b"), ""),
    ]
});

/// The assertion a denial or retraction takes back ("I no longer work at
/// Siemens" → "I work at Siemens"), or `None` when the clause denies nothing.
pub fn taken_back(clause: &str) -> Option<String> {
    let mut text = DISCOURSE.replace(clause, "").into_owned();
    let mut changed = false;
    for (pattern, with) in AFFIRM.iter() {
        if pattern.is_match(&text) {
            text = pattern.replace_all(&text, *with).into_owned();
            changed = true;
        }
    }
    changed.then(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Requests to forget, each with what it names (`inner`): in English (with
/// the common wordings and misspellings of "forget"), German, Spanish,
/// French, Italian, Portuguese, Dutch, Swedish, Danish, Norwegian, Polish,
/// Russian, Chinese and Japanese. A verb that also deletes other things
/// ("remove", "delete") counts only with a memory in view ("… from your
/// memory", "what I told you", "the fact that", "the … thing").
static FORGET: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    const LEAD: &str = r"(?i)^\s*(?:(?:please|pls|plz|kindly|hey|ok|okay|now|also|and|oh|so|actually)[,\s]+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would\s+like)\s+you\s+to\s+|i'd\s+like\s+you\s+to\s+|you\s+can\s+|you\s+may\s+|just\s+)?(?:please\s+)?";
    const FORGET_VERB: &str = r"(?:forget|forgt|forgett|foget|frget|forgeet|unremember|unlearn|don'?t\s+remember|do\s+not\s+remember|stop\s+remembering|don'?t\s+(?:keep|store|save|record|memori[sz]e|log|note\s+down|hold\s+on\s+to)|do\s+not\s+(?:keep|store|save|record|memori[sz]e)|stop\s+(?:storing|keeping|saving|recording))";
    const DELETE_VERB: &str = r"(?:delete|erase|remove|wipe|scrub|drop|purge|clear|get\s+rid\s+of)";
    const OBJECT: &str = r"(?:about\s+)?(?:the\s+fact\s+)?(?:that\s+)?";
    let en = |p: &str| re(&format!("{LEAD}{p}"));
    vec![
        en(&format!(r"{FORGET_VERB}\s+{OBJECT}(?P<inner>.+?)[\s.!?]*$")),
        en(&format!(
            r"{DELETE_VERB}\s+(?:(?:what|everything|anything|all)\s+i\s+(?:said|told\s+you|mentioned|wrote)\s+(?:about|regarding|on)\s+|the\s+fact\s+that\s+|that\s+)(?P<inner>.+?)[\s.!?]*$"
        )),
        en(&format!(
            r"(?:{DELETE_VERB}|{FORGET_VERB})\s+(?:what|everything|anything|all)\s+(?:that\s+)?you\s+(?:know|have|remember|stored?|keep|kept|hold|learned|learnt)\s+(?:about|regarding|on)\s+(?P<inner>.+?)[\s.!?]*$"
        )),
        en(&format!(
            r"{DELETE_VERB}\s+(?P<inner>.+?)\s+(?:from|out\s+of)\s+(?:your\s+|the\s+)?(?:memory|memories|notes|records|brain|mind)\b.*$"
        )),
        en(&format!(
            r"{DELETE_VERB}\s+the\s+(?:part|bit|stuff|info|information|detail|details)\s+(?:about|on|regarding)\s+(?P<inner>.+?)(?:\s+from\s+.*)?[\s.!?]*$"
        )),
        en(&format!(
            r"{DELETE_VERB}\s+the\s+(?P<inner>.+?)\s+(?:thing|stuff|part|bit|info)[\s.!?]*$"
        )),
        // "Can you erase my address?": a thing of the user's, named in a few
        // words and nothing after it ("remove my name from the draft" is a
        // task, not a request to forget).
        en(&format!(
            r"{DELETE_VERB}\s+(?P<mine>(?:my|our)\s+[\p{{L}}'-]+(?:\s+[\p{{L}}'-]+){{0,3}}?)(?:\s+(?:as\s+well|too|for\s+good|for\s+me|now))?(?:[,\s]+(?:please|pls|thanks|thank\s+you))?[\s.!?]*$"
        )),
        re(
            r"(?i)^\s*(?:please\s+)?i\s+(?:don'?t|do\s+not)\s+want\s+you\s+to\s+(?:remember|keep|store|know|save)\s+(?:that\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        // "You no longer need to know that I live in Oslo, forget it."
        re(
            r"(?i)^\s*you\s+(?:no\s+longer|don'?t|do\s+not|needn'?t|shouldn'?t)\s+(?:need\s+to\s+|have\s+to\s+)?(?:know|remember|keep|store)\s+(?:anymore\s+)?(?:that\s+|about\s+)?(?P<inner>.+?)(?:\s+any\s*more)?(?:[,;]\s*(?:so\s+)?(?:forget|delete|drop)\s+(?:it|that|this))?[\s.!?]*$",
        ),
        en(&format!(
            r"(?:{DELETE_VERB}|{FORGET_VERB})\s+(?:everything|anything|all)\s+(?:about|regarding|on)\s+(?P<inner>.+?)[\s.!?]*$"
        )),
        re(
            r"(?i)^\s*i'?d\s+rather\s+you\s+(?:didn'?t|did\s+not|don'?t)\s+(?:remember|keep|store|know|save)\s+(?:that\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*never\s*mind\s+(?:what\s+i\s+(?:said|told\s+you|mentioned)\s+)?(?:about\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*scratch\s+that[,:;]?\s+(?P<inner>.+?)(?:\s+is\s+not\s+something\s+to\s+keep)?[\s.!?]*$",
        ),
        // Other languages.
        re(
            r"(?i)^\s*(?:bitte\s+)?(?:vergiss|vergessen\s+sie|vergesst|lösche|lösch|entferne|streiche)(?:\s+bitte)?[,\s]+(?:das\s+mit\s+|dass\s+|was\s+ich\s+(?:über|zu)\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:por\s+favor[,\s]+)?(?:olvida|olvide|olvidá|olvídate\s+de|olvidate\s+de|borra|borre|elimina|no\s+recuerdes)(?:\s+por\s+favor)?[,\s]+(?:que\s+|lo\s+de\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:s'il\s+te\s+pla[iî]t[,\s]+)?(?:oublie|oubliez|efface|effacez|supprime|supprimez|ne\s+retiens\s+pas)[,\s]+(?:que\s+|qu'|le\s+fait\s+que\s+)?(?P<inner>.+?)(?:,\s*s'il\s+te\s+pla[iî]t)?[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:per\s+favore[,\s]+)?(?:dimentica|dimenticati\s+di|dimentichi|cancella|elimina)[,\s]+(?:che\s+|il\s+fatto\s+che\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:por\s+favor[,\s]+)?(?:esqueça|esqueca|esquece|apague|apaga|remova|elimine)[,\s]+(?:que\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:alsjeblieft[,\s]+)?(?:vergeet|verwijder|wis)[,\s]+(?:dat\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(r"(?i)^\s*(?:glöm|glom|glem|radera|slet)[,\s]+(?:att\s+|at\s+)?(?P<inner>.+?)[\s.!?]*$"),
        re(r"(?i)^\s*(?:zapomnij|usuń|zapomeň)[,\s]+(?:że\s+|že\s+)?(?P<inner>.+?)[\s.!?]*$"),
        re(
            r"(?i)^\s*(?:пожалуйста[,\s]+)?(?:забудь|забудьте|удали|сотри)[,\s]+(?:что\s+|о\s+том,?\s+что\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        // The languages kept verbatim beyond these (issue 51): the verb
        // first where the language puts it first, last where it ends the
        // sentence (Japanese, Korean, Turkish, Hindi).
        re(
            r"^\s*(?:请|麻烦你?|帮我)?(?:忘记|忘掉|删除|删掉|别记住|不要记住|不要记得)(?P<inner>.+?)(?:这件事|这个)?(?:吧)?[。！？.!?]*$",
        ),
        re(
            r"^\s*(?:请|麻烦你?)?把(?P<inner>.+?)(?:这件事)?(?:忘记|忘掉|删除|删掉)(?:吧)?[。！？.!?]*$",
        ),
        re(
            r"^\s*(?P<inner>.+?)(?:ということ|こと)?(?:を|のことを|は)(?:忘れて|削除して|消して)(?:ください|くれ|ね)?[。！？.!?]*$",
        ),
        re(
            r"^\s*(?P<inner>.+?)\s*(?:다는\s*(?:것|거)을|라는\s*(?:것|거)을|(?:것|거)을|을|를|은|는)?\s*(?:잊어\s*(?:줘|주세요|버려|버리세요)|지워\s*(?:줘|주세요)|삭제해\s*(?:줘|주세요))[.!?。]*\s*$",
        ),
        re(
            r"(?i)^\s*(?:lütfen\s+)?(?P<inner>.+?)\s+(?:bilgisini\s+|bilgiyi\s+)?(?:unut|unutun|sil|silin)(?:\s+lütfen)?[\s.!?]*$",
        ),
        re(
            r"^\s*(?:من\s+فضلك[،,\s]+)?(?:انس|انسى|انسي|امسح|احذف)\s+(?:أن(?:ني|ي)?\s+|أنّي\s+)?(?P<inner>.+?)[\s.!?؟]*$",
        ),
        re(
            r"^\s*(?:कृपया\s+)?(?P<inner>.+?)\s*(?:वाली\s+बात\s+|की\s+बात\s+|को\s+)?(?:भूल\s+जा(?:ओ|इए|एं|ो)|भूल\s+जाना|मिटा\s+दो|मिटा\s+दीजिए|हटा\s+दो|हटा\s+दीजिए|डिलीट\s+कर\s+दो)[\s।.!?]*$",
        ),
        re(
            r"^\s*(?:कृपया\s+)?(?:भूल\s+जा(?:ओ|इए|एं)|मिटा\s+(?:दो|दीजिए)|हटा\s+(?:दो|दीजिए))\s+कि\s+(?P<inner>.+?)[\s।.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:tolong\s+|mohon\s+)?(?:lupakan|hapus|hapuskan)\s+(?:bahwa\s+|kalau\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:làm\s+ơn\s+|hãy\s+|xin\s+)?(?:quên|xóa|xoá)\s+(?:đi\s+)?(?:việc\s+|chuyện\s+)?(?:rằng\s+|là\s+)?(?P<inner>.+?)(?:\s+đi)?[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:σε\s+παρακαλώ[,\s]+|παρακαλώ[,\s]+)?(?:ξέχασε|ξεχάστε|ξέχνα|διέγραψε|διαγράψτε|σβήσε)\s+(?:ότι\s+|πως\s+)?(?P<inner>.+?)[\s.!?;]*$",
        ),
        re(
            r"^\s*(?:ช่วย|กรุณา)?(?:ลืม|ลบ)(?:ว่า|เรื่องที่|ที่)?(?P<inner>.+?)(?:ด้วย|ที|นะ)?(?:ครับ|ค่ะ|คะ)?[\s.!?]*$",
        ),
        re(
            r"^\s*(?:בבקשה\s+)?(?:תשכח|תשכחי|שכח|מחק|תמחק|תמחקי)\s+(?:ש|את\s+זה\s+ש)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:будь\s+ласка[,\s]+)?(?:забудь|забудьте|видали|зітри)[,\s]+(?:що\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:ole\s+hyvä\s+ja\s+)?(?:unohda|poista)\s+(?:että\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
        re(
            r"(?i)^\s*(?:pozhaluysta[,\s]+)?(?:zabud'?|zabudte|udali)[,\s]+(?:chto\s+)?(?P<inner>.+?)[\s.!?]*$",
        ),
    ]
});

/// Asking to forget everything about the user, in the same languages.
static FORGET_ALL: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^\s*(?:(?:please|pls|ok|okay|now)[,\s]+)*(?:(?:can|could|would)\s+you\s+(?:please\s+)?)?",
        r"(?:(?:forget|delete|erase|remove|wipe|clear|purge)\s+(?:everything|all|anything)\s+(?:(?:that\s+)?you\s+(?:know|have|remember|stored|saved|kept)|you've\s+got|there\s+is)?\s*(?:about|on|of|regarding)\s+me|",
        r"(?:forget|delete|erase|remove|wipe|clear|purge)\s+all\s+(?:about\s+me|my\s+(?:data|information|info|memories|details|facts))|",
        r"(?:forget|erase|delete)\s+me|",
        r"vergiss\s+alles(?:\s+(?:über|von)\s+mich|,?\s+was\s+du\s+über\s+mich\s+weißt)|lösche\s+alles\s+über\s+mich|",
        r"olvida\s+todo\s+(?:sobre|de)\s+mí|olvida\s+todo\s+lo\s+que\s+sabes\s+de\s+mí|borra\s+todo\s+(?:sobre|de)\s+mí|",
        r"oublie\s+tout\s+(?:sur|de)\s+moi|oublie\s+tout\s+ce\s+que\s+tu\s+sais\s+(?:sur|de)\s+moi|efface\s+tout\s+(?:sur|de)\s+moi|",
        r"dimentica\s+tutto\s+(?:di|su\s+di)\s+me|esqueça\s+tudo\s+(?:sobre|de)\s+mim|esquece\s+tudo\s+(?:sobre|de)\s+mim|",
        r"vergeet\s+alles\s+over\s+mij|glöm\s+allt\s+om\s+mig|zapomnij\s+wszystko\s+o\s+mnie|забудь\s+вс[её]\s+обо\s+мне)",
        r"(?:\s+(?:from|out\s+of)\s+(?:your\s+)?(?:memory|memories))?[\s.!?]*$|^\s*忘记关于我的一切|^\s*私のことを全部忘れて"
    ))
});

/// What a forget request names, if the clause is one: `Everything`, or the
/// thing ("that I live in Berlin" → "I live in Berlin"; "what I said about
/// my dog" → "my dog").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForgetRequest {
    Thing(String),
    Everything,
}

/// A clause that asks to forget what is next to it without naming it
/// ("scratch that", "forget that", "never mind that").
pub fn forget_pointer(clause: &str) -> bool {
    static POINTER: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^\s*(?:(?:oh|ok|okay|wait|no|sorry|actually|please)[,\s]+)*(?:scratch\s+that|forget\s+(?:that|it|this)|never\s*mind(?:\s+that)?|delete\s+that|strike\s+that|ignore\s+that|disregard\s+that|don'?t\s+(?:store|keep|save|remember)\s+(?:that|it|this)|vergiss\s+das|olvida\s+eso|oublie\s+(?:ça|ca)|dimentica(?:lo)?|esquece\s+isso)[\s.!,]*$",
        )
    });
    POINTER.is_match(clause)
}

/// The request to forget a clause makes, if it makes one.
pub fn forget(clause: &str) -> Option<ForgetRequest> {
    // The request may follow a label or a remark: "GDPR request: remove
    // my location data", "That's private, delete that I live in Oslo".
    lead_ins(clause).find_map(|c| {
        if FORGET_ALL.is_match(c) {
            return Some(ForgetRequest::Everything);
        }
        forget_request(c).map(ForgetRequest::Thing)
    })
}

/// The clause, then what follows each ": " or ", " in it.
fn lead_ins(clause: &str) -> impl Iterator<Item = &str> {
    std::iter::once(clause).chain(
        clause
            .match_indices([':', ',', '،', '，', '：'])
            .map(move |(i, sep)| clause[i + sep.len()..].trim_start())
            .filter(|rest| !rest.is_empty()),
    )
}

/// What a forget request leaves of the thing to forget.
static FORGET_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:what|everything|anything|all)\s+(?:i\s+(?:said|told\s+you|mentioned|wrote)\s+)?(?:about|regarding|on)\s+|^(?:i\s+(?:told\s+you|said|mentioned)\s+(?:that\s+)?)|^(?:that\s+)",
    )
});

/// The thing a forget request names ("that I live in Berlin" → "I live in
/// Berlin"; "what I said about my dog" → "my dog"), if the clause is one.
pub fn forget_request(clause: &str) -> Option<String> {
    // A thing of the user's ("my address") is a few words with no
    // preposition: "clear my calendar for Friday" is a task.
    static PREPOSITION: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\s(?:for|from|on|at|to|with|by|into|off|out|about)\s"));
    let c = FORGET.iter().find_map(|p| {
        p.captures(clause).filter(|c| {
            c.name("mine")
                .is_none_or(|m| !PREPOSITION.is_match(&format!("{} ", m.as_str())))
        })
    })?;
    let mut inner = c
        .name("inner")
        .or_else(|| c.name("mine"))?
        .as_str()
        .trim()
        .to_owned();
    while let Some(m) = FORGET_LEAD.find(&inner) {
        if m.end() == 0 {
            break;
        }
        inner = inner[m.end()..].trim().to_owned();
    }
    // "…, please": a courtesy, not part of the thing.
    static COURTESY: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)(?:[,\s]+(?:please|pls|plz|thanks|thank\s+you|bitte|por\s+favor|s'il\s+te\s+plaît|per\s+favore))+[\s.!?]*$",
        )
    });
    let inner = COURTESY.replace(&inner, "").trim().to_owned();
    (!inner.is_empty()).then_some(inner)
}

/// Why a candidate fact is not borne out by the message it came from:
/// the clause that holds its value is a question, a hypothesis, someone
/// else's words, or denies it. The same check for every extractor, so a
/// model that turns "Should I work at Google?" into a fact is caught too.
/// `None` when the message bears it out (or its value is not found in it,
/// and some sentence of the message is a plain statement).
pub fn unsupported(message: &str, value: &str) -> Option<&'static str> {
    let lower = message.to_lowercase();
    let needle = value.trim().to_lowercase();
    let sentences = super::sentences(message);
    if !needle.is_empty() {
        for sentence in &sentences {
            for clause in super::clauses(sentence) {
                let Some(at) = clause.to_lowercase().find(&needle) else {
                    continue;
                };
                return match stance(sentence, clause, at) {
                    Stance::Question => Some("the user asked a question"),
                    Stance::Tentative => Some("the user spoke of a possibility, not a fact"),
                    Stance::Reported => Some("someone else said it, or it was quoted"),
                    Stance::Insincere => Some("the user was joking or sarcastic"),
                    Stance::Own if NEGATION.is_match(&clause[..at]) => {
                        Some("the user said it is not so")
                    }
                    // A value that opens with its own hedge ("might get a
                    // puppy next year", read off a model's statement).
                    Stance::Own if TENTATIVE.find(&needle).is_some_and(|m| m.start() == 0) => {
                        Some("the user spoke of a possibility, not a fact")
                    }
                    Stance::Own => None,
                };
            }
        }
        if lower.contains(&needle) {
            return None;
        }
    }
    let plain = sentences.iter().any(|s| {
        super::clauses(s)
            .iter()
            .any(|c| stance(s, c, c.len()) == Stance::Own)
    });
    (!plain).then_some("nothing in the message is a plain statement")
}

/// Words that change or deny a fact before it ("not", "quit", "sold").
static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:not|never|no|nor|quit|quitting|stopped|stop|gave\s+up|give\s+up|sold|left|leaving|moved\s+(?:out|away|from)|used\s+to|former(?:ly)?|ex|divorced|broke\s+up|retired|longer|without)\b|n't\b",
    )
});
/// Words that end a fact after it ("any more").
static AFTER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:any\s?more|any\s+longer|no\s+more)\b"));

/// Whether an English message takes anything back: a denial, a change or
/// a correction somewhere in it. A model's retraction of a message that
/// does none was copied from its prompt, not read.
pub fn takes_back_anything(message: &str) -> bool {
    static CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:actually|meant|correction|wrong|mistake|typo|instead|died|passed\s+away|lost|sold|switched|changed|moved|now)\b",
        )
    });
    CHANGE.is_match(message)
        || AFTER.is_match(message)
        || CORRECTION.is_match(message)
        || super::sentences(message)
            .iter()
            .flat_map(|s| super::clauses(s))
            .any(|c| taken_back(c).is_some())
}

/// Whether a message asks for anything to be forgotten, in any clause or
/// any part of one after a comma or "and" ("…, and please forget my cat").
pub fn asks_to_forget(message: &str) -> bool {
    static JOIN: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)[,;:]\s*|\s+(?:and|but|also|so|then)\s+"));
    let asks = |c: &str| forget(c).is_some() || forget_pointer(c);
    super::sentences(message)
        .iter()
        .flat_map(|s| super::clauses(s))
        .any(|c| asks(c) || JOIN.split(c).any(|part| asks(part.trim())))
}

/// People in the user's life a clause can be about.
const PEOPLE: &str = r"wife|husband|partner|boyfriend|girlfriend|son|daughter|kids?|children|child|brother|sister|mother|mom|mum|father|dad|parents|grandmother|grandfather|grandma|grandpa|uncle|aunt|cousin|niece|nephew|fianc[eé]e?|friend|best\s+friend|roommate|flatmate|housemate|boss|manager|colleague|co-?worker|neighbou?r|classmate|teammate";

/// Whether a phrase names one of the user's people or someone by name
/// ("my sister's address", "Tom's phone"): not the user's own.
pub fn names_a_person(phrase: &str) -> bool {
    static PERSON: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i)\b(?:{PEOPLE})(?:s|'s|’s)?\b|\b(?-i:\p{{Lu}})\p{{L}}+(?:'s|’s)\b"
        ))
    });
    static OWN: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:user|it|that|what|there|here|who)(?:'s|’s)"));
    PERSON.find_iter(phrase).any(|m| !OWN.is_match(m.as_str()))
}

/// The person a model's statement is about when it is one of the user's
/// people ("User's brother lives in Denver." → "brother").
pub fn users_person(statement: &str) -> Option<String> {
    static HEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i)^\s*(?:the\s+)?(?:user(?:'s|’s)|my)\s+(?:(?:older|younger|little|big|twin|eldest|youngest|best)\s+)?(?P<who>{PEOPLE})\b(?:\s+(?-i:[A-Z])[\p{{L}}'’\-]+)?\s*,?\s+(?:is|was|has|had|lives|lived|works|worked|moved|studies|teaches|likes|loves|hates|plays|speaks|goes|owns|drives|got|just|will|can|does|doesn't|isn't)\b"
        ))
    });
    HEAD.captures(statement).map(|c| {
        c["who"]
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("_")
    })
}

/// Whom the clause of `message` that holds `value` is about, when it is
/// someone else: it opens with one of the user's people ("my brother",
/// "our neighbour" → `Some(Some("brother"))`), a pronoun for them or a name
/// doing something ("Tom is a dentist" → `Some(None)`), with no "I", "me"
/// or "we" in it. `None` when it is the user's own (or no clause holds it).
pub fn said_of(message: &str, value: &str) -> Option<Option<String>> {
    static OTHER: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"^\s*(?:(?i:and|but|so|also|oh|well|btw|anyway)[,\s]+)*(?:(?i:my|our)\s+(?:(?i:older|younger|little|big|twin|eldest|youngest|best|new|old)\s+)?(?P<who>(?i:{PEOPLE}))\b|(?i:he|she|they|his|her|their)\b|(?:[A-Z][\p{{L}}'’\-]+)\s+(?i:is|was|has|lives|lived|works|worked|moved|studies|teaches|speaks|owns)\b)"
        ))
    });
    static SELF: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:i|i'm|im|i've|i'd|me|we|we're|we've|us)\b"));
    // "Green is my favourite colour", "Rex is my dog's name": a subject
    // named by what it is of the user's, not someone doing something.
    static NAMES_MINE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^\s*(?:[A-Z][\p{L}'’\-]+\s+){1,3}(?i:is|was|are)\s+(?i:my|our)\s+(?i:favou?rite|fave|go-to|usual|main|first|home|dog|cat|pet|car|phone|city|job|name|hometown)\b",
        )
    });
    let needle = value.trim().to_lowercase();
    if needle.is_empty() {
        return None;
    }
    for sentence in super::sentences(message) {
        for clause in super::clauses(sentence) {
            if !clause.to_lowercase().contains(&needle) {
                continue;
            }
            if SELF.is_match(clause) || NAMES_MINE.is_match(clause) {
                return None;
            }
            let c = OTHER.captures(clause)?;
            return Some(c.name("who").map(|w| {
                w.as_str()
                    .to_lowercase()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join("_")
            }));
        }
    }
    None
}

/// Whether the clause of `message` that holds `value` says it of someone
/// else ([`said_of`]). A fact the user's own ("User lives in Denver") read
/// from it was misattributed.
pub fn said_of_another(message: &str, value: &str) -> bool {
    said_of(message, value).is_some()
}

/// Words that deny or end a fact in the languages the forget requests are
/// read in ("nicht mehr", "ne … plus", "ya no", "не", "不再").
pub fn denies_in_any_language(message: &str) -> bool {
    static DENIAL: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:nicht|kein(?:e|en|er)?|nie(?:mals)?|mehr|ne|n'|pas|plus|jamais|no|nunca|ya|más|não|nem|mais|non|niente|più|niet|geen|niet\s+meer|nooit|inte|ikke|ikkje|aldrig|nigdy|już|не|нет|больше|никогда)\b|不|没|沒|再也|もう|ない|ません",
        )
    });
    DENIAL.is_match(message) || CHANGE.is_match(message)
}

/// Whether an English message plainly asserts `value` as the user's own:
/// the first clause holding it is the user's statement ("I", "we": "my
/// brother lives in Denver" is the brother's),
/// with no denial or change before the value ("not", "quit", "sold", "used
/// to", "no longer") and no "any more" after it. A model that calls such a
/// fact a retraction ("Sorry, I meant Graz, not Salzburg" → retract Graz)
/// misread it; what follows "not" ("not Salzburg") is not asserted.
pub fn asserts_plainly(message: &str, value: &str) -> bool {
    static FIRST_PERSON: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:i|i'm|im|i've|i'd|we|we're|we've)\b"));
    // "My cat's actually called Miso": a thing of the user's is theirs (one
    // of their people is not: `said_of`).
    static MY_THING: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^\s*(?:(?:and|but|so|oh|sorry|actually)[,\s]+)*(?:my|our)\s"));
    let needle = value.trim().to_lowercase();
    if needle.is_empty() {
        return false;
    }
    for sentence in super::sentences(message) {
        for clause in super::clauses(sentence) {
            let Some(at) = clause.to_lowercase().find(&needle) else {
                continue;
            };
            return stance(sentence, clause, at) == Stance::Own
                && (FIRST_PERSON.is_match(clause)
                    || (MY_THING.is_match(clause) && said_of(message, value).is_none()))
                && !CHANGE.is_match(clause.get(..at).unwrap_or(""))
                && !AFTER.is_match(clause.get(at..).unwrap_or(""));
        }
    }
    false
}

/// A model's third-person statement said back in the first person, so the
/// rules can read which key it is under: "User works at Infosys." → "I
/// work at Infosys.", "User's sister is named Ana." → "My sister is named
/// Ana.". `None` when it is not about the user.
pub fn first_person(statement: &str) -> Option<String> {
    static HEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^\s*(?:the\s+)?user(?:'s|’s)?\b\s*((?:(?:now|no\s+longer|also|currently|still|recently|often|usually|always|never|mostly|really|just|actually)\s+)*)([\p{L}'’]+)?(.*)$",
        )
    });
    let c = HEAD.captures(statement.trim())?;
    let whole = c.get(0)?.as_str().trim_start();
    let possessive = whole
        .get(
            ..whole
                .find(|ch: char| ch.is_whitespace())
                .unwrap_or(whole.len()),
        )
        .is_some_and(|head| head.ends_with("'s") || head.ends_with("’s"));
    let adverbs = c.get(1).map_or("", |m| m.as_str());
    let word = c.get(2).map_or("", |m| m.as_str());
    let rest = c.get(3).map_or("", |m| m.as_str());
    if possessive {
        return Some(format!("My {adverbs}{word}{rest}"));
    }
    let lower = word.to_lowercase();
    let verb = match lower.as_str() {
        "is" => "am".to_owned(),
        "isn't" | "isn’t" => "am not".to_owned(),
        "has" => "have".to_owned(),
        "hasn't" | "hasn’t" => "haven't".to_owned(),
        "does" => "do".to_owned(),
        "doesn't" | "doesn’t" => "don't".to_owned(),
        w if w.ends_with("ies") && w.len() > 4 => format!("{}y", &w[..w.len() - 3]),
        w if ["ches", "shes", "sses", "xes", "zes", "oes"]
            .iter()
            .any(|e| w.ends_with(e)) =>
        {
            w[..w.len() - 2].to_owned()
        }
        w if w.ends_with('s') && !w.ends_with("ss") && w.len() > 2 => w[..w.len() - 1].to_owned(),
        w => w.to_owned(),
    };
    let text = format!("I {adverbs}{verb}{rest}");
    static LATER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:the\s+)?user(?:'s|’s)"));
    Some(LATER.replace_all(&text, "my").into_owned())
}

/// A time phrase ending a clause ("last year", "a month ago", "in
/// March"), or punctuation: where a thing named before it ends.
static TIME_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\s+(?:last|this|next)\s+\w+|\s+(?:a|an|one|two|three|few|some|\d+)\s+(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago|\s+(?:yesterday|today|recently|already|earlier|for\s+good|at\s+last|in\s+(?:\d{4}|january|february|march|april|may|june|july|august|september|october|november|december|the\s+\w+))|\s+(?:any\s?more|any\s+longer|now))+\s*$|[\s.!?,;:]+$",
    )
});

/// `thing` without a time phrase at its end, or a leading article or
/// possessive ("the boat last week" → "boat").
fn bare_thing(thing: &str) -> Option<String> {
    static LEAD: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:(?:the|my|our|a|an|being|with|on)\s+)+"));
    let mut t = thing.trim().to_owned();
    loop {
        let cut = TIME_TAIL.replace(&t, "").trim().to_owned();
        if cut == t {
            break;
        }
        t = cut;
    }
    let t = LEAD.replace(&t, "").trim().to_owned();
    (!t.is_empty() && t.split_whitespace().count() <= 6).then_some(t)
}

/// What a clause says the user has given up or lost, in its own words,
/// for a retraction the rules cannot key: "I quit smoking last year" →
/// "smoking"; "I stopped learning German" → "learning German"; "We sold the
/// boat" → "boat"; "Our rabbit Clover died" → "rabbit Clover".
pub fn given_up(clause: &str) -> Option<String> {
    static GAVE_UP: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^\s*(?:(?:so|and|but|well|actually|also)[,\s]+)*(?:(?:i|we)\s+(?:have\s+|'ve\s+|had\s+)?)?(?:just\s+|recently\s+|finally\s+|already\s+|officially\s+)?(?P<verb>stopped|quit|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|sold|got\s+rid\s+of|cancell?ed|dropped\s+out\s+of|ended|ditched)\s+(?P<x>.+)$",
        )
    });
    static LOST: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:my|our)\s+(?:(?:old|dear|beloved|poor)\s+)?(?P<x>(?:dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|fish|goldfish|turtle|tortoise|snake|lizard|gecko|bird|budgie|guinea\s+pig|ferret|pony)(?:\s+(?-i:[A-Z])[\p{L}'\-]*)?)\s+(?:has\s+)?(?:died|passed\s+away|was\s+put\s+down|ran\s+away|is\s+dead|is\s+gone)\b",
        )
    });
    // "Stopped by the bakery" and "ended up in Paris" give nothing up.
    static NOT_GIVING_UP: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:stopped\s+(?:by|in|at|off|over|to|for|on)|ended\s+up)$"));
    // "I haven't played the violin in years": an end said by its length.
    static NOT_IN_YEARS: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^\s*(?:(?:so|and|but|well|actually|honestly)[,\s]+)*(?:i|we)\s+(?:haven't|have\s+not|'ve\s+not|hadn't|had\s+not)\s+(?:really\s+|even\s+)?(?P<x>.+?)\s+(?:in|for)\s+(?:years|ages|months|decades|a\s+(?:long\s+)?while|a\s+long\s+time|forever|a\s+decade)\b",
        )
    });
    // "… and started learning Japanese" is the next thing, not part of
    // what was given up.
    static NEXT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i),|;|\s+(?:and|but)\s+(?:then\s+|now\s+|instead\s+)?(?:started|began|took\s+up|switched|moved|joined|got|bought|adopted|picked\s+up|now|i\b|we\b)|\s+instead\b|\s+these\s+days\b",
        )
    });
    let c = GAVE_UP
        .captures(clause)
        .or_else(|| LOST.captures(clause))
        .or_else(|| NOT_IN_YEARS.captures(clause))?;
    let x = c.name("x")?.as_str();
    let x = NEXT.find(x).map_or(x, |m| &x[..m.start()]);
    // "Quit your job": an order to someone, not the user's own.
    if x.to_lowercase().starts_with("your ") {
        return None;
    }
    if let Some(verb) = c.name("verb") {
        let first = x.split_whitespace().next().unwrap_or("");
        if NOT_GIVING_UP.is_match(&format!("{} {first}", verb.as_str())) {
            return None;
        }
    }
    bare_thing(x)
}

/// What an English clause that takes something back names, when the
/// rules read no fact in what it takes back: its assertion without the
/// subject and its verb of being or having ("I'm no longer a member of the
/// gym" → "a member of the gym" → "member of the gym"; "I don't play chess
/// any more" → "play chess"). Only a clause that says the fact has ended
/// ("no longer", "any more"), not any denial: "I don't have time" names
/// nothing the user held.
pub fn no_longer(clause: &str) -> Option<String> {
    static ENDED: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\bno\s+longer\b|\bany\s?more\b|\bany\s+longer\b"));
    static SUBJECT: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^\s*(?:i|we)(?:'m|'re|'ve|\s+am|\s+are|\s+have|\s+has)?\s+"));
    if !ENDED.is_match(clause) {
        return None;
    }
    let positive = taken_back(clause)?;
    let rest = SUBJECT.find(&positive)?;
    bare_thing(&positive[rest.end()..])
}

/// In a correction, the value it says was wrong: "Sorry, I meant Graz, not
/// Salzburg" → "Salzburg"; "No wait, it's Deloitte I work for, not KPMG" →
/// "KPMG"; "Not Berlin, I live in Bern" → "Berlin". Only with a word of
/// correction in the sentence ("I like tea, not coffee" corrects nothing).
pub fn corrected_from(sentence: &str) -> Option<String> {
    static CUE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:sorry|oops|meant|actually|correction|no\s+wait|wait|typo|mistake|wrong|i\s+misspoke|my\s+bad|rather|make\s+that)\b|^\s*not\s",
        )
    });
    static NOT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)(?:,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+|\s+(?P<prev>[\p{L}\p{N}'’]+)\s+)not\s+(?P<y>[^,.;!?]{1,40}?)\s*(?:[.!?]+\s*$|$)|^\s*not\s+(?P<z>[^,.;!?]{1,40}?)\s*,",
        )
    });
    if !CUE.is_match(sentence) {
        return None;
    }
    // "I do not have a dog" denies; "Graz not Salzburg" corrects.
    static AUXILIARY: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:i|we|do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should|must|may|might|'m|i'm|it's|that's|just|really|certainly|definitely|probably|actually|absolutely|also|still|yet|maybe|perhaps|sure|why|or)$",
        )
    });
    let c = NOT.captures(sentence)?;
    if c.name("prev")
        .is_some_and(|p| AUXILIARY.is_match(p.as_str()))
    {
        return None;
    }
    let y = c.name("y").or_else(|| c.name("z"))?.as_str();
    // A number alone names nothing to retire ("I'm 34, not 43": the new age
    // supersedes the old one under its key).
    bare_thing(y)
        .filter(|y| y.split_whitespace().count() <= 4 && y.chars().any(char::is_alphabetic))
}

/// In a correction, the value it says is right, when the sentence names it
/// without a predicate the rules read: "Sorry, I meant Graz, not Salzburg"
/// → "Graz"; "No wait, it's Deloitte I work for, not KPMG" → "Deloitte".
/// A few words alone, else the first name-like words.
pub fn corrected_to(sentence: &str) -> Option<String> {
    static LEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:\s*(?:sorry|oops|no|nope|wait|actually|correction|typo|my\s+bad|i\s+mean|i\s+meant|i\s+said|rather|it's|it\s+is|it\s+was|that's|that\s+is|that\s+was|make\s+that)\b[,:;!.]*)+\s*",
        )
    });
    static NOT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i),?\s+(?:and\s+|but\s+)?not\s+"));
    corrected_from(sentence)?;
    let before = &sentence[..NOT.find(sentence)?.start()];
    let rest = LEAD.replace(before, "");
    let rest = rest
        .trim()
        .trim_end_matches([',', '.', '!', ';', ':'])
        .trim();
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    // What says a thing was wrong names no value.
    static NO_VALUE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:(?:a|my|the|that|this|it)\s+)?(?:wrong|right|true|false|correct|incorrect|mistake|typo|error|it|that|this|so|ok|okay|fine)$",
        )
    });
    if NO_VALUE.is_match(rest) {
        return None;
    }
    if words.len() <= 3 && !words.iter().any(|w| w.eq_ignore_ascii_case("i")) {
        return Some(rest.to_owned());
    }
    let named: Vec<&str> = words
        .iter()
        .skip_while(|w| !is_name_like(w))
        .take_while(|w| is_name_like(w))
        .copied()
        .collect();
    (!named.is_empty()).then(|| named.join(" "))
}

/// A word that starts with a capital and is not "I" (a name, a place, a
/// company).
fn is_name_like(word: &str) -> bool {
    word != "I" && !word.starts_with("I'") && word.chars().next().is_some_and(char::is_uppercase)
}

/// What a change "from X to Y" leaves ("I switched from Android to an
/// iPhone" → "Android"). Not a move: moving away from a city does not
/// change where one is from, and the new city supersedes the old.
pub fn changed_from(clause: &str) -> Option<String> {
    static FROM: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|recently\s+|finally\s+)?(?:switched|changed|upgraded|converted|migrated|went|moved\s+over)(?:\s+over)?\s+from\s+(?P<x>[^,.;!?]{1,40}?)\s+to\s+\S",
        )
    });
    bare_thing(FROM.captures(clause)?.name("x")?.as_str())
}

/// Negation before a value in its clause.
static NEGATION: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:not|never|no\s+longer|false|untrue)\b|n't\b"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_given_up_lost_or_corrected_is_named_in_its_own_words() {
        for (clause, thing) in [
            ("I quit smoking last year.", "smoking"),
            ("I stopped learning German.", "learning German"),
            ("I gave up coffee a month ago.", "coffee"),
            ("We sold the boat.", "boat"),
            ("Our rabbit Clover died last week.", "rabbit Clover"),
            ("So I finally cancelled my gym membership", "gym membership"),
            // No subject, a next thing after it, an end told by its length.
            ("Sold the Golf", "Golf"),
            ("Ditched my Kindle last year", "Kindle"),
            (
                "I stopped Spanish and started learning Japanese instead",
                "Spanish",
            ),
            ("We sold the flat, now we rent", "flat"),
            ("I haven't played the violin in years", "played the violin"),
            ("We haven't owned a car for a long time", "owned a car"),
        ] {
            assert_eq!(given_up(clause).as_deref(), Some(thing), "{clause}");
        }
        for clause in [
            "I live in Oslo.",
            "My sister quit her job.",
            "I stop by on Fridays.",
            "I stopped by the bakery yesterday.",
            "We ended up in Paris.",
            "Quit your job and travel.",
            "Stopped by the bakery on the way.",
            "I haven't decided yet.",
        ] {
            assert_eq!(given_up(clause), None, "{clause}");
        }
        for (clause, thing) in [
            ("I don't play chess anymore.", "play chess"),
            ("I'm no longer a member of the gym.", "member of the gym"),
        ] {
            assert_eq!(no_longer(clause).as_deref(), Some(thing), "{clause}");
        }
        assert_eq!(no_longer("I don't have time."), None);
        for (sentence, wrong) in [
            ("Sorry, I meant Graz, not Salzburg.", "Salzburg"),
            ("No wait, it's Deloitte I work for, not KPMG.", "KPMG"),
            ("Not Berlin, I live in Bern.", "Berlin"),
        ] {
            assert_eq!(
                corrected_from(sentence).as_deref(),
                Some(wrong),
                "{sentence}"
            );
        }
        for (sentence, right) in [
            ("Sorry, I meant Graz, not Salzburg.", Some("Graz")),
            (
                "No wait, it's Deloitte I work for, not KPMG.",
                Some("Deloitte"),
            ),
            ("Oops, make that Lisbon not Porto!", Some("Lisbon")),
            ("Sorry, I meant I live in Graz, not Linz.", Some("Graz")),
            ("I like tea, not coffee.", None),
        ] {
            assert_eq!(corrected_to(sentence).as_deref(), right, "{sentence}");
        }
        assert_eq!(corrected_from("I like tea, not coffee."), None);
        assert_eq!(corrected_from("Actually I'm 34, not 43."), None);
        assert_eq!(corrected_from("Actually, I do not have a dog."), None);
        assert_eq!(corrected_from("Sorry, I'm not from Porto."), None);
        assert_eq!(
            corrected_from("Sorry, I meant Graz not Salzburg.").as_deref(),
            Some("Salzburg")
        );
        assert_eq!(
            changed_from("I switched from Android to an iPhone last week.").as_deref(),
            Some("Android")
        );
        assert_eq!(changed_from("We moved from Oslo to Bergen in March."), None);
    }

    #[test]
    fn a_models_statement_is_said_back_in_the_first_person() {
        for (statement, said) in [
            ("User works at Infosys.", "I work at Infosys."),
            ("User lives in Köln.", "I live in Köln."),
            ("The user is vegetarian.", "I am vegetarian."),
            ("User's sister is named Ana.", "My sister is named Ana."),
            (
                "User has a cat named Biscuit.",
                "I have a cat named Biscuit.",
            ),
            (
                "User no longer works at Siemens.",
                "I no longer work at Siemens.",
            ),
            ("User now teaches maths.", "I now teach maths."),
            ("User studies law.", "I study law."),
            ("User doesn't eat pork.", "I don't eat pork."),
            ("User moved to Porto.", "I moved to Porto."),
            ("User is the user's own boss.", "I am my own boss."),
        ] {
            assert_eq!(
                first_person(statement).as_deref(),
                Some(said),
                "{statement}"
            );
        }
        for other in ["Ana is a teacher.", "Username is bob.", "Users like tea."] {
            assert_eq!(first_person(other), None, "{other}");
        }
    }

    #[test]
    fn facts_said_of_someone_else_are_told_from_the_users() {
        for (message, value) in [
            ("My brother lives in Denver.", "Denver"),
            ("My friend Tom is a dentist.", "dentist"),
            ("My wife works at the BBC.", "BBC"),
            ("Tom is a dentist.", "dentist"),
            ("I like tea. She works at Google.", "Google"),
            ("Our neighbour is a firefighter.", "firefighter"),
        ] {
            assert!(said_of_another(message, value), "{message}");
        }
        for (message, value) in [
            ("I live in Denver.", "Denver"),
            ("My wife and I live in Leeds.", "Leeds"),
            ("My boss promoted me to senior engineer.", "senior engineer"),
            ("Berlin is where I live.", "Berlin"),
            ("My name is Ana.", "Ana"),
            ("My brother lives in Denver and I live in Austin.", "Austin"),
            ("Green is my favourite colour.", "Green"),
            ("Rex is my dog's name.", "Rex"),
        ] {
            assert!(!said_of_another(message, value), "{message}");
        }
        // A thing of the user's is asserted as theirs; a person's is not.
        assert!(asserts_plainly(
            "Sorry, my cat's actually called Miso, I typed it wrong.",
            "Miso"
        ));
        assert!(!asserts_plainly("My brother is called Miso.", "Miso"));
        assert!(!asserts_plainly("My cat is not called Miso.", "Miso"));
        for phrase in ["my sister's address", "Tom's phone", "my kids' school"] {
            assert!(names_a_person(phrase), "{phrase}");
        }
        for phrase in [
            "my address",
            "my cat's name",
            "my music taste",
            "User's job",
        ] {
            assert!(!names_a_person(phrase), "{phrase}");
        }
        assert_eq!(
            said_of("My brother lives in Denver.", "Denver"),
            Some(Some("brother".into()))
        );
        assert_eq!(said_of("Tom is a dentist.", "dentist"), Some(None));
        assert_eq!(said_of("I live in Denver.", "Denver"), None);
        assert!(denies_in_any_language(
            "Ich arbeite nicht mehr bei der Telekom."
        ));
        assert!(denies_in_any_language("Je ne travaille plus chez Renault."));
        assert!(!denies_in_any_language(
            "Ich wohne in Köln und arbeite bei der Telekom."
        ));
        assert!(!denies_in_any_language(
            "J'habite à Lyon et je suis infirmière."
        ));
        assert_eq!(
            users_person("User's brother lives in Denver.").as_deref(),
            Some("brother")
        );
        assert_eq!(
            users_person("My friend Tom is a dentist.").as_deref(),
            Some("friend")
        );
        assert_eq!(users_person("User's name is Ana."), None);
        assert_eq!(users_person("User lives in Denver."), None);
    }

    #[test]
    fn messages_that_take_back_or_forget_are_told_from_plain_ones() {
        for m in [
            "I no longer work at Initech.",
            "Sorry, I meant Graz, not Salzburg.",
            "I stopped learning German.",
            "We sold the boat.",
            "I quit smoking.",
        ] {
            assert!(takes_back_anything(m), "{m}");
        }
        for m in [
            "I'm Priya, I live in Pune, work at Infosys and have a cat named Biscuit.",
            "I love Thai food.",
        ] {
            assert!(!takes_back_anything(m), "{m}");
        }
        for m in [
            "Please forget where I live.",
            "Delete what you know about my employer.",
            "Can you forget my sister's name?",
            "Don't keep my dog's name.",
        ] {
            assert!(asks_to_forget(m), "{m}");
        }
        assert!(!asks_to_forget("I work at Infosys and have a cat."));
    }

    #[test]
    fn plain_assertions_are_told_from_retractions() {
        for (message, value) in [
            ("Sorry, I meant Graz, not Salzburg.", "Graz"),
            (
                "I said I was vegan earlier, but I'm vegetarian actually.",
                "vegetarian",
            ),
            ("I've been learning Japanese for two years.", "Japanese"),
        ] {
            assert!(asserts_plainly(message, value), "{message}");
        }
        for (message, value) in [
            ("Sorry, I meant Graz, not Salzburg.", "Salzburg"),
            ("I quit smoking last year.", "smoking"),
            ("I don't work at Initech any more.", "Initech"),
            ("I'm no longer vegetarian.", "vegetarian"),
            ("We sold the boat.", "boat"),
            ("I work at Initech no more.", "Initech"),
            ("Should I move to Vienna?", "Vienna"),
            ("Ich arbeite nicht mehr bei Siemens.", "Siemens"),
            ("My brother lives in Denver.", "Denver"),
            ("My wife works at the BBC.", "BBC"),
            ("I live in Oslo.", "Berlin"),
            ("I live in Oslo.", ""),
        ] {
            assert!(!asserts_plainly(message, value), "{message} / {value}");
        }
    }

    fn of(sentence: &str, clause: &str, at_word: &str) -> Stance {
        let c = sentence
            .find(clause)
            .map(|i| &sentence[i..i + clause.len()]);
        let c = c.unwrap_or_else(|| panic!("{clause} in {sentence}"));
        stance(sentence, c, c.find(at_word).unwrap_or(0))
    }

    #[test]
    fn stances() {
        assert_eq!(
            of(
                "Should I work at Google?",
                "Should I work at Google?",
                "I work"
            ),
            Stance::Question
        );
        assert_eq!(
            of(
                "I live in Austin, should I move?",
                "I live in Austin",
                "I live"
            ),
            Stance::Own
        );
        assert_eq!(
            of(
                "If I moved to Paris, I would miss it.",
                "If I moved to Paris",
                "I moved"
            ),
            Stance::Tentative
        );
        assert_eq!(
            of(
                "My brother told me: I live in Berlin.",
                "My brother told me: I live in Berlin.",
                "I live"
            ),
            Stance::Reported
        );
        assert_eq!(
            of(
                "According to my mom, I'm allergic to cats.",
                "I'm allergic to cats.",
                "I'm"
            ),
            Stance::Reported
        );
        assert_eq!(
            of(
                "I told you I work at Siemens.",
                "I told you I work at Siemens.",
                "I work"
            ),
            Stance::Own
        );
        assert_eq!(
            of(
                "Tom thinks I live in Oslo, but I live in Austin.",
                "but I live in Austin.",
                "I live"
            ),
            Stance::Own
        );
        assert_eq!(
            of(
                "She said, \"I am a nurse.\"",
                "She said, \"I am a nurse.\"",
                "I am"
            ),
            Stance::Reported
        );
        assert_eq!(
            of("I live in May Street.", "I live in May Street.", "I live"),
            Stance::Own
        );
    }

    #[test]
    fn denials_take_back_an_assertion() {
        for (said, meant) in [
            ("I no longer work at Siemens.", "I work at Siemens."),
            ("I am not vegetarian anymore.", "I am vegetarian."),
            ("Actually, I do not have a dog.", "I have a dog."),
            ("It is not true that I am a pilot.", "I am a pilot."),
            (
                "I quit my job at Siemens last week.",
                "I work at Siemens last week.",
            ),
            ("I have never been married.", "I am married."),
            ("I stopped being vegan last year.", "I am vegan last year."),
            ("No, I'm not from Porto.", "I'm from Porto."),
            ("I don't live in Austin anymore.", "I live in Austin."),
        ] {
            assert_eq!(taken_back(said).as_deref(), Some(meant), "{said}");
        }
        assert_eq!(taken_back("I live in Austin."), None);
    }

    #[test]
    fn forget_requests_name_their_object() {
        for (said, thing) in [
            ("Please forget that I live in Berlin.", "I live in Berlin"),
            ("Forget where I work.", "where I work"),
            (
                "Can you forget that I told you I work at Siemens?",
                "I work at Siemens",
            ),
            ("Delete what I said about my dog.", "my dog"),
            ("Please erase the fact that I'm a nurse.", "I'm a nurse"),
            ("Don't remember that I'm vegetarian.", "I'm vegetarian"),
        ] {
            assert_eq!(forget_request(said).as_deref(), Some(thing), "{said}");
        }
        assert_eq!(forget_request("I forgot my keys."), None);
    }

    #[test]
    fn facts_are_checked_against_their_message() {
        assert!(unsupported("Should I work at Google?", "Google").is_some());
        assert!(unsupported("If I moved to Paris, I would miss my friends.", "Paris").is_some());
        assert!(unsupported("My brother told me: I live in Berlin.", "Berlin").is_some());
        assert!(unsupported("It is not true that I am a pilot.", "pilot").is_some());
        assert_eq!(
            unsupported("I live in Berlin and I work at Acme.", "Acme"),
            None
        );
        assert_eq!(
            unsupported("Morning! Big news: new job at Acme.", "Initech"),
            None
        );
        assert!(unsupported("What if I worked there?", "Initech").is_some());
    }
}
