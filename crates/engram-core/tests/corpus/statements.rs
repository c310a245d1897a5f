//! What users say that is not a fact about themselves, what retracts or
//! forgets one, and plain statements; written before the statement
//! analysis (issue 16). The baseline profile these refer to: lives in
//! Austin, works at Initech (and Siemens), a nurse, vegetarian, has a dog,
//! a sister named Alice.

/// The profile the messages are read against: what a retirement could
/// wrongly take away.
pub const BASELINE: &[(&str, &str)] = &[
    ("location.city", "Austin"),
    ("employer", "Initech"),
    ("employer", "Siemens"),
    ("role", "nurse"),
    ("diet", "vegetarian"),
    ("pet.dog", "a"),
    ("pet.dog.name", "Rex"),
    ("family.sister.name", "Alice"),
    ("age", "34"),
];

/// One message and what it should do to a user whose profile holds the
/// baseline (Austin, Initech, nurse, vegetarian, a dog, Alice, Siemens...):
/// the facts about the user it states, and the facts it retires.
pub struct Case {
    pub text: &'static str,
    /// (attribute, value) the user states about themselves.
    pub facts: &'static [(&'static str, &'static str)],
    /// (attribute, value) it retires (a retraction or a forget request).
    pub retires: &'static [(&'static str, &'static str)],
}

pub const fn case(
    text: &'static str,
    facts: &'static [(&'static str, &'static str)],
    retires: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        text,
        facts,
        retires,
    }
}

/// Questions: no fact about the user.
pub const QUESTIONS: &[Case] = &[
    case("Should I work at Google?", &[], &[]),
    case("Do you think I should move to Paris?", &[], &[]),
    case("Would Berlin be a good place to live?", &[], &[]),
    case("Is it smart to become a pilot at my age?", &[], &[]),
    case(
        "Can I be vegetarian and still get enough protein?",
        &[],
        &[],
    ),
    case("Am I allergic to peanuts, or is it just a rash?", &[], &[]),
    case("Where do I live again?", &[], &[]),
    case("Should I get a dog named Rex?", &[], &[]),
    case("What if I worked at Netflix?", &[], &[]),
    case("Do I really like jazz?", &[], &[]),
    case("Shall I learn Japanese or Korean?", &[], &[]),
    case(
        "I live in Austin, should I move to Denver?",
        &[("location.city", "Austin")],
        &[],
    ),
];

/// Hypotheticals and tentative plans: no fact about the user.
pub const HYPOTHETICALS: &[Case] = &[
    case("If I moved to Paris, I would miss my friends.", &[], &[]),
    case("I might move to Denver next year.", &[], &[]),
    case("Maybe I'll work at Google someday.", &[], &[]),
    case("I'm thinking about becoming a teacher.", &[], &[]),
    case("I'm considering moving to Lisbon.", &[], &[]),
    case("I want to live in Tokyo one day.", &[], &[]),
    case("I'd love to work at SpaceX.", &[], &[]),
    case("I could be a pilot if I trained for it.", &[], &[]),
    case("Suppose I lived in Rome, what would rent cost?", &[], &[]),
    case("I wish I lived by the sea.", &[], &[]),
    case("I hope to adopt a dog called Biscuit.", &[], &[]),
    case("If I were vegan I'd cook more.", &[], &[]),
    case("I would work at Apple if they asked.", &[], &[]),
];

/// Reported speech: what someone else said is not the user's statement.
pub const REPORTED: &[Case] = &[
    case("My brother told me: I live in Berlin.", &[], &[]),
    case(
        "My boss said I work at Google now, which is wrong.",
        &[],
        &[],
    ),
    case("She said, \"I am a nurse.\"", &[], &[]),
    case("According to my mom, I'm allergic to cats.", &[], &[]),
    case("Tom thinks I live in Oslo.", &[], &[]),
    case("People say I'm a great cook.", &[], &[]),
    case(
        "The article says \"I moved to Austin last month\" is a common opener.",
        &[],
        &[],
    ),
    case("My friend wrote: 'I'm vegan now'.", &[], &[]),
];

/// Other people: never the user's attributes.
pub const OTHERS: &[Case] = &[
    case("My sister is a teacher at Lincoln High.", &[], &[]),
    case("Yesterday I saw a doctor at Mercy Hospital.", &[], &[]),
    case("My friend works at Google.", &[], &[]),
    case("My husband lives in Berlin for work.", &[], &[]),
    case("My dad is a pilot.", &[], &[]),
    case("Alice is vegetarian.", &[], &[]),
    case("My colleague just moved to Austin.", &[], &[]),
    case("I met a nurse from Oslo at the party.", &[], &[]),
    case("My boss is allergic to peanuts.", &[], &[]),
    case(
        "I talked to an engineer at Siemens about the job.",
        &[],
        &[],
    ),
    case("My neighbour has a dog named Rex.", &[], &[]),
    case("Our new hire is a designer at heart.", &[], &[]),
];

/// Denials: nothing stored as true; the denied fact is retired if it was
/// held (a correction), which is harmless when it was not.
pub const NEGATIONS: &[Case] = &[
    case(
        "It is not true that I am a pilot.",
        &[],
        &[("role", "pilot")],
    ),
    case("I am not a pilot.", &[], &[("role", "pilot")]),
    case(
        "I don't live in Berlin.",
        &[],
        &[("location.city", "Berlin")],
    ),
    case("I never worked at Google.", &[], &[("employer", "Google")]),
    case(
        "I'm not vegetarian, I just skip beef.",
        &[],
        &[("diet", "vegetarian")],
    ),
    case("No, I'm not from Porto.", &[], &[("origin", "Porto")]),
    case(
        "I have never been married.",
        &[],
        &[("relationship.status", "married")],
    ),
    case(
        "It's false that I work at Initech.",
        &[],
        &[("employer", "Initech")],
    ),
];

/// Retractions of what the baseline holds: the fact is retired, nothing new.
pub const RETRACTIONS: &[Case] = &[
    case(
        "I no longer work at Siemens.",
        &[],
        &[("employer", "Siemens")],
    ),
    case(
        "I quit my job at Siemens last week.",
        &[],
        &[("employer", "Siemens")],
    ),
    case(
        "I am not vegetarian anymore.",
        &[],
        &[("diet", "vegetarian")],
    ),
    case("Actually, I do not have a dog.", &[], &[("pet.dog", "")]),
    case("I don't have a dog any more.", &[], &[("pet.dog", "")]),
    case("I left Initech in March.", &[], &[("employer", "Initech")]),
    case(
        "I don't live in Austin anymore.",
        &[],
        &[("location.city", "Austin")],
    ),
    case("I'm no longer a nurse.", &[], &[("role", "nurse")]),
    case(
        "I stopped being vegan last year.",
        &[],
        &[("diet", "vegan")],
    ),
    case(
        "I'm not married anymore.",
        &[],
        &[("relationship.status", "married")],
    ),
];

/// Forget requests: the matching memories are retired, the request is not stored.
pub const FORGETS: &[Case] = &[
    case(
        "Please forget that I live in Berlin.",
        &[],
        &[("location.city", "Berlin")],
    ),
    case("Forget where I work.", &[], &[("employer", "")]),
    case(
        "Don't remember that I'm vegetarian.",
        &[],
        &[("diet", "vegetarian")],
    ),
    case("Delete what I said about my dog.", &[], &[("pet.dog", "")]),
    case(
        "Can you forget that I told you I work at Siemens?",
        &[],
        &[("employer", "Siemens")],
    ),
    case("Stop remembering my age.", &[], &[("age", "")]),
    case(
        "Please erase the fact that I'm a nurse.",
        &[],
        &[("role", "nurse")],
    ),
    case(
        "Forget my sister's name.",
        &[],
        &[("family.sister.name", "")],
    ),
];

/// Mixed messages: the sensitive clause alone is held back (by the write
/// policy, not the extractor), the rest is stored.
pub const MIXED: &[Case] = &[
    case(
        "I am allergic to peanuts and I live in Berlin. My dog is called Rex.",
        &[
            ("allergy.peanuts", "peanuts"),
            ("location.city", "Berlin"),
            ("pet.dog.name", "Rex"),
        ],
        &[],
    ),
    case(
        "I go to church on Sundays, and I work at Initech.",
        &[("employer", "Initech")],
        &[],
    ),
];

/// Plain statements a new user makes: each should be read.
pub const STATEMENTS: &[Case] = &[
    case(
        "I work at Siemens as a software engineer.",
        &[("employer", "Siemens"), ("role", "software engineer")],
        &[],
    ),
    case(
        "My daughter Emma starts school next month, she is 6.",
        // The age was left out when the corpus was first written; it is a
        // fact the message states.
        &[
            ("family.daughter.name", "Emma"),
            ("family.daughter.age", "6"),
        ],
        &[],
    ),
    case("Hi, I'm Carol.", &[("name", "Carol")], &[]),
    case(
        "I'm currently employed at Deloitte.",
        &[("employer", "Deloitte")],
        &[],
    ),
    case("I live in Austin.", &[("location.city", "Austin")], &[]),
    case(
        "I'm a nurse at Mercy Hospital.",
        &[("role", "nurse"), ("employer", "Mercy Hospital")],
        &[],
    ),
    case(
        "I don't like horror movies.",
        &[("likes.horror_movies", "dislikes")],
        &[],
    ),
    case("I'm vegetarian.", &[("diet", "vegetarian")], &[]),
    case(
        "Yes, I live in Lisbon now.",
        &[("location.city", "Lisbon")],
        &[],
    ),
    case("I have a dog named Rex.", &[("pet.dog.name", "Rex")], &[]),
];
