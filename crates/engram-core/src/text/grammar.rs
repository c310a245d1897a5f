//! English grammar words by class: the closed classes (pronouns,
//! determiners, prepositions, conjunctions, auxiliaries, degree adverbs)
//! that tell a noun phrase from a fragment of a sentence, and the nouns
//! that point at the conversation rather than at the world ("that idea",
//! "the sound of it"). Closed classes do not grow with the data: a new
//! sentence is made of these same words.

/// Pronouns, demonstratives and quantifier pronouns: a value that is one,
/// or begins with one, names nothing on its own ("them", "this bill",
/// "anything", "her songs").
pub const POINTING: &[&str] = &[
    "it",
    "its",
    "it's",
    "this",
    "that",
    "these",
    "those",
    "them",
    "they",
    "their",
    "theirs",
    "he",
    "him",
    "his",
    "she",
    "her",
    "hers",
    "you",
    "your",
    "yours",
    "i",
    "me",
    "us",
    "one",
    "ones",
    "anything",
    "everything",
    "something",
    "nothing",
    "anyone",
    "everyone",
    "someone",
    "anybody",
    "everybody",
    "somebody",
    "all",
    "both",
    "either",
    "neither",
    "each",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "whatever",
    "whichever",
    "here",
    "there",
    "such",
    "same",
    "other",
    "others",
    "another",
];

/// Subject pronouns and their contractions: inside a value, a clause
/// ("skiing it's my favorite sport", "I started watching it because he").
pub const SUBJECTS: &[&str] = &[
    "i", "you", "he", "she", "we", "they", "it's", "that's", "i'm", "i've", "i'd", "i'll",
    "you're", "we're", "they're", "he's", "she's", "there's", "what's", "it'll", "we've",
    "they've", "you've",
];

/// Words that open a subordinate clause inside a value, the wh-words of
/// an embedded question among them ("how it looks", "why it works").
pub const SUBORDINATORS: &[&str] = &[
    "because", "whenever", "when", "while", "if", "unless", "although", "though", "since",
    "whereas", "where", "how", "why",
];

/// Object pronouns and demonstratives: a value that ends with one points
/// back at the conversation ("bananas 2 of the recipes use them", "a blue
/// one").
pub const OBJECTS: &[&str] = &[
    "it", "them", "him", "her", "me", "us", "you", "this", "that", "these", "those", "one", "ones",
    "there",
];

/// Nouns for a conversation itself: a thing whose head is one is where
/// something was said, not what the user has or does ("a WhatsApp group
/// chat").
pub const CONVERSATION_NOUNS: &[&str] = &[
    "chat",
    "chats",
    "conversation",
    "conversations",
    "message",
    "messages",
    "thread",
    "threads",
    "forum",
    "forums",
    "subreddit",
    "subreddits",
    "channel",
    "channels",
];

/// Light verbs, as their -ing form: they mean little without what follows
/// ("making this cake", "going on road trips", "getting lost"), so a liking
/// of the verb alone, or with only a participle, was cut short.
pub const LIGHT_VERBS: &[&str] = &[
    "doing", "making", "going", "getting", "having", "taking", "giving", "coming", "putting",
    "keeping", "letting", "setting", "trying", "using", "being", "finding", "seeing", "bringing",
];

/// Prepositions: a value that begins with one is an adverbial ("for
/// school", "in Unity"), one that ends with one is cut off ("more of").
pub const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "for", "from", "with", "by", "about", "into", "onto", "of", "to", "over",
    "under", "through", "during", "after", "before", "around", "near", "between", "without",
    "within", "across", "toward", "towards", "upon", "like", "than", "via", "per", "off", "out",
];

/// Articles, possessives and other determiners: a value that ends with one
/// is cut off ("establishing a better", "their no").
pub const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "no", "some", "any",
    "every", "each", "this", "that", "these", "those",
];

/// Conjunctions: a value that begins or ends with one is a fragment.
pub const CONJUNCTIONS: &[&str] = &["and", "or", "but", "nor", "so", "yet", "plus"];

/// Auxiliaries and copulas: a value that begins with one is a predicate
/// ("is called Blue Rider"), not a thing.
pub const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does",
    "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must",
];

/// Degree, focus and frequency adverbs: a value that begins with one is
/// not a thing ("quite exciting", "also visiting", "more than 10 years").
pub const ADVERBS: &[&str] = &[
    "more",
    "most",
    "less",
    "least",
    "quite",
    "just",
    "also",
    "very",
    "really",
    "so",
    "too",
    "even",
    "only",
    "still",
    "yet",
    "always",
    "never",
    "sometimes",
    "usually",
    "often",
    "actually",
    "especially",
    "maybe",
    "probably",
    "definitely",
    "already",
    "almost",
    "rather",
    "pretty",
    "not",
    "again",
    "then",
    "now",
];

/// Nouns that name something said in the conversation rather than in the
/// world: a liking of "that idea", "the sound of it" or "tip number 5" is a
/// reaction to a reply, not a fact about the user.
pub const DISCOURSE_NOUNS: &[&str] = &[
    "idea",
    "ideas",
    "suggestion",
    "suggestions",
    "recommendation",
    "recommendations",
    "option",
    "options",
    "tip",
    "tips",
    "advice",
    "sound",
    "look",
    "looks",
    "way",
    "vibe",
    "vibes",
    "sense",
    "feel",
    "following",
    "rest",
    "most",
    "part",
    "point",
    "points",
    "thought",
    "thoughts",
    "answer",
    "answers",
    "response",
    "list",
    "example",
    "examples",
    "plan",
    "approach",
    "version",
    "draft",
    "one",
];

/// Whether `word` (lower case) is in `class`.
pub fn is(class: &[&str], word: &str) -> bool {
    class.contains(&word)
}
