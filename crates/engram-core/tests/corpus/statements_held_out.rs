//! Statements written after the statement analysis was tuned on
//! `statements.rs`, never used to tune it: how the analysis does on
//! phrasings it was not shaped by.

use super::statements::{case, Case};

pub const HELD_OUT: &[Case] = &[
    // questions
    case("Would it be crazy if I became a vegan?", &[], &[]),
    case("How do I tell my boss I work better from home?", &[], &[]),
    case("Is Lisbon where I should live next?", &[], &[]),
    case("Could I work at Spotify without a degree?", &[], &[]),
    // tentative
    case("Perhaps I'll move to Madrid in the spring.", &[], &[]),
    case("I'm planning to become a teacher.", &[], &[]),
    case("I think I might be allergic to cats.", &[], &[]),
    case("Hopefully I'll work at a startup soon.", &[], &[]),
    case("If I had a dog I'd call it Rex.", &[], &[]),
    // reported
    case("My mother keeps saying I live in a dream world.", &[], &[]),
    case("Jake claims I'm vegan, which is funny.", &[], &[]),
    case("The recruiter wrote that I work at Initech.", &[], &[]),
    // other people
    case("My brother is a nurse at St. Mary's.", &[], &[]),
    case("My best friend lives in Porto.", &[], &[]),
    case("Our CTO is vegetarian.", &[], &[]),
    case("My wife works for the BBC.", &[], &[]),
    // denials and retractions
    case("I'm not a nurse anymore.", &[], &[("role", "nurse")]),
    case("I resigned from Initech.", &[], &[("employer", "Initech")]),
    case(
        "We moved out of Austin last summer.",
        &[],
        &[("location.city", "Austin")],
    ),
    case(
        "Honestly, I'm no longer vegetarian.",
        &[],
        &[("diet", "vegetarian")],
    ),
    case("I don't have a dog now.", &[], &[("pet.dog", "")]),
    // forget requests
    case("Please forget about my dog.", &[], &[("pet.dog", "")]),
    case(
        "Could you delete that I work at Initech?",
        &[],
        &[("employer", "Initech")],
    ),
    case("Forget how old I am.", &[], &[("age", "")]),
    // statements
    case(
        "I work for Initech as a product manager.",
        &[("employer", "Initech"), ("role", "product manager")],
        &[],
    ),
    case("Hello, I'm Priya!", &[("name", "Priya")], &[]),
    case("My son Leo is 4.", &[("family.son.name", "Leo")], &[]),
    case(
        "I'm based in Leeds these days.",
        &[("location.city", "Leeds")],
        &[],
    ),
    case(
        "We live in Oslo, should we move?",
        &[("location.city", "Oslo")],
        &[],
    ),
    case(
        "I don't eat shellfish.",
        &[("diet.avoids.shellfish", "shellfish")],
        &[],
    ),
];
