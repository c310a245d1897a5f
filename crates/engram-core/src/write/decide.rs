//! What to do with a candidate fact given what is already known in its scope:
//! ADD, NOOP, SUPERSEDE or MERGE for what the user states; RETRACT or FORGET
//! for what they take back or ask to be forgotten. Only a live memory with
//! the same subject and attribute may be superseded, merged or retracted, so
//! an unrelated fact is never retired; a forget request may also reach
//! memories without an attribute whose wording is close enough.

use serde::Serialize;
use uuid::Uuid;

use crate::extract::{same_value, slug, Candidate, FactAction};
use crate::SourceType;

/// A live memory the candidate is compared with.
#[derive(Debug, Clone)]
pub struct Known {
    pub id: Uuid,
    pub content: String,
    pub subject: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source_type: SourceType,
    /// Cosine similarity to the candidate's statement.
    pub similarity: f32,
    /// A piece of what was said (episodic), not a fact: only a request to
    /// forget reaches one directly, by its words.
    pub said: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "UPPERCASE")]
pub enum Decision {
    Add {
        reason: String,
    },
    Noop {
        target: Uuid,
        reason: String,
    },
    Supersede {
        targets: Vec<Uuid>,
        reason: String,
    },
    Merge {
        target: Uuid,
        content: String,
        reason: String,
    },
    /// Retire `targets` (soft delete): the user took the fact back
    /// (`Retract`) or asked that it be forgotten (`Forget`).
    Retire {
        targets: Vec<Uuid>,
        action: FactAction,
        reason: String,
    },
    /// Nothing to do (nothing held matches what is taken back); unlike
    /// NOOP, nothing is reinforced.
    Ignore {
        reason: String,
    },
}

/// What a job reports it did with one candidate (or one refused
/// sentence): the event of a decision once carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ResultEvent {
    Add,
    Supersede,
    Merge,
    /// Said again, or nothing to do.
    Noop,
    Retract,
    Forget,
    /// Refused by the write policy; nothing was written.
    Rejected,
}

impl ResultEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Add => "ADD",
            Self::Supersede => "SUPERSEDE",
            Self::Merge => "MERGE",
            Self::Noop => "NOOP",
            Self::Retract => "RETRACT",
            Self::Forget => "FORGET",
            Self::Rejected => "REJECTED",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct DecideParams {
    /// Cosine at or above which a memory without a matching attribute counts as
    /// the same fact said again.
    pub near_duplicate: f32,
    /// Cosine at or above which a memory without an attribute is what a
    /// forget request names ("forget that I live in Berlin" and the
    /// verbatim "I live in Berlin.").
    pub forget_similarity: f32,
}

impl Default for DecideParams {
    fn default() -> Self {
        Self {
            near_duplicate: 0.93,
            forget_similarity: 0.75,
        }
    }
}

/// Whether a known attribute is the one named, or falls under it
/// (`pet.dog` names `pet.dog.name`; `location` names `location.city`).
fn under(known: &str, named: &str) -> bool {
    !named.is_empty() && (known == named || known.starts_with(&format!("{named}.")))
}

/// Whether a value taken back is the one held ("Siemens" and "Siemens AG").
fn same_or_within(held: &str, named: &str) -> bool {
    let (h, n) = (slug(held), slug(named));
    same_value(held, named) || (!n.is_empty() && (h.contains(&n) || n.contains(&h)))
}

/// `text` in lower case, its words joined by single spaces.
fn words(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a key's last part names a thing the user likes, uses, learns
/// or avoids (not a slot such as `name` or `city`).
fn names_a_thing(attribute: &str) -> bool {
    let family = attribute.split('.').next().unwrap_or("");
    attribute.contains('.')
        && matches!(
            family,
            "likes" | "tool" | "learning" | "project" | "language" | "hobby" | "preference"
        )
        || attribute.starts_with("diet.avoids.")
}

/// A retraction or forget request against what is known.
fn retire(candidate: &Candidate, known: &[Known], p: &DecideParams) -> Decision {
    let forget = candidate.action == FactAction::Forget;
    if forget && candidate.attribute == crate::extract::FORGET_EVERYTHING {
        return if known.is_empty() {
            Decision::Ignore {
                reason: "nothing is held about the user".to_owned(),
            }
        } else {
            Decision::Retire {
                targets: known.iter().map(|k| k.id).collect(),
                action: candidate.action,
                reason: "the user asked that everything about them be forgotten".to_owned(),
            }
        };
    }
    // A retraction that names its fact by words, with no attribute ("I gave
    // up coffee", "we sold the boat": the rules cannot key them) reaches the
    // user's own facts whose words hold all of its words, by stem. Never a
    // fact about one of their people, nor what was kept verbatim.
    if !forget && candidate.attribute.is_empty() && !candidate.value.trim().is_empty() {
        let targets: Vec<Uuid> = known
            .iter()
            .filter(|k| {
                k.subject.as_deref() == Some(&candidate.subject)
                    && k.attribute.as_deref().is_some_and(|a| {
                        let family = a.split('.').next().unwrap_or("");
                        !matches!(family, "family" | "friend")
                    })
                    && crate::text::words::names_all(
                        &candidate.value,
                        &format!("{} {}", k.content, k.value.as_deref().unwrap_or("")),
                    )
            })
            .map(|k| k.id)
            .collect();
        return if targets.is_empty() {
            Decision::Ignore {
                reason: format!("nothing held matches \"{}\"", candidate.value),
            }
        } else {
            Decision::Retire {
                targets,
                action: candidate.action,
                reason: format!("the user said \"{}\" no longer holds", candidate.value),
            }
        };
    }
    let mut targets: Vec<&Known> = known
        .iter()
        .filter(|k| {
            k.subject.as_deref() == Some(&candidate.subject)
                && k.attribute.as_deref().is_some_and(|a| {
                    under(a, &candidate.attribute)
                        // A forget request reaches the fact it names under a
                        // broader key too ("my sister's name" is
                        // `family.sister.name`; a model kept `family.sister`),
                        // but not under a one-word family of keys.
                        || (forget && a.contains('.') && under(&candidate.attribute, a))
                })
                && (candidate.value.is_empty()
                    || k.value
                        .as_deref()
                        .is_some_and(|v| same_or_within(v, &candidate.value)))
        })
        .collect();
    // A key that names a thing ("likes.horror_films", "tool.pixel_8")
    // where nothing is held under it: the fact may be held under another
    // key a model chose ("likes.horror" = "User loves horror films."), and
    // is reached by the thing's words.
    if targets.is_empty() && names_a_thing(&candidate.attribute) {
        let thing = candidate
            .attribute
            .rsplit('.')
            .next()
            .unwrap_or("")
            .replace('_', " ");
        targets = known
            .iter()
            .filter(|k| {
                k.subject.as_deref() == Some(&candidate.subject)
                    && (forget
                        || k.attribute
                            .as_deref()
                            .is_some_and(|a| !a.starts_with("family.") && !a.starts_with("friend")))
                    && crate::text::words::names_all(&thing, &k.content)
            })
            .collect();
    }
    // Forgetting also reaches a fact whose value the request names, in any
    // language ("Vergiss, dass ich in Berlin wohne" names Berlin), and what
    // was kept verbatim (memories with no attribute) when its wording is
    // close; a retraction does not: what the user once said stays a record
    // of what they said.
    if forget {
        let said = format!(" {} ", words(&candidate.statement));
        let named: Vec<&Known> = known
            .iter()
            .filter(|k| {
                k.value.as_deref().is_some_and(|v| {
                    let v = words(v);
                    // A value in a script without spaces is found inside
                    // its sentence ("奥斯陆" in "我住在奥斯陆").
                    let unspaced = v.chars().any(crate::text::words::unspaced);
                    v.chars().count() >= 2
                        && (said.contains(&format!(" {v} ")) || unspaced && said.contains(&v))
                }) && !targets.iter().any(|t| t.id == k.id)
            })
            .collect();
        targets.extend(named);
    }
    if candidate.action == FactAction::Forget {
        // A request that names no attribute ("my divorce", "my phone
        // model") reaches what holds all of its words, by stem ("User is
        // divorced."), and what is close in meaning.
        // What was said (and, in a language the rules cannot read, what was
        // kept verbatim in it) is reached by most of the request's words:
        // inflection changes the rest ("Oslo'da yaşadığımı unut" reaches
        // "Oslo'da yaşıyorum").
        let unread = crate::policy::unread_language(&candidate.statement).is_some();
        let by_words = |k: &Known| {
            candidate.attribute.is_empty()
                && (crate::text::words::names_all(&candidate.statement, &k.content)
                    || (k.said || unread && k.attribute.is_none())
                        && crate::text::words::names_most(&candidate.statement, &k.content))
        };
        let close: Vec<&Known> = known
            .iter()
            .filter(|k| {
                // What was said is reached by its words, never by
                // closeness alone: the conversation is not a fact.
                (!k.said
                    && (k.attribute.is_none() || candidate.attribute.is_empty())
                    && k.similarity >= p.forget_similarity
                    || by_words(k))
                    && !targets.iter().any(|t| t.id == k.id)
            })
            .collect();
        targets.extend(close);
        // A request that names a category and nothing held ("my music
        // taste", "my contact details") reaches the user's own facts under
        // the category's keys: never a fact a narrower key names ("my
        // favourite band" is `favorite.band`, not every favourite).
        if targets.is_empty() && !candidate.attribute.contains('.') {
            let keys = crate::text::topics::keys_named(&candidate.statement);
            targets.extend(known.iter().filter(|k| {
                k.subject.as_deref() == Some(&candidate.subject)
                    && k.attribute
                        .as_deref()
                        .is_some_and(|a| keys.iter().any(|p| under(a, p)))
            }));
        }
    }
    let what = if candidate.attribute.is_empty() {
        format!("\"{}\"", candidate.statement)
    } else if candidate.value.is_empty() {
        candidate.attribute.clone()
    } else {
        format!("{} = {}", candidate.attribute, candidate.value)
    };
    // A request to forget names what is to be forgotten: its reasons (kept
    // in job results and history) do not repeat it.
    if targets.is_empty() {
        return Decision::Ignore {
            reason: if forget {
                "nothing held matches what the user asked to forget".to_owned()
            } else {
                format!("nothing held matches {what}")
            },
        };
    }
    let reason = if forget {
        "the user asked that this be forgotten".to_owned()
    } else {
        format!("the user said {what} no longer holds")
    };
    Decision::Retire {
        targets: targets.iter().map(|k| k.id).collect(),
        action: candidate.action,
        reason,
    }
}

/// A correction that names no key ("I meant Graz, not Salzburg") takes the
/// key of the user's fact that holds the wrong value, and is said as that
/// key says it ("User lives in Graz."). `false` when no such fact is held
/// (or the candidate is not such a correction).
pub fn resolve_correction(candidate: &mut Candidate, known: &[Known]) -> bool {
    let Some(wrong) = candidate.replaces.as_deref() else {
        return false;
    };
    if !candidate.attribute.is_empty() || candidate.action != FactAction::Assert {
        return false;
    }
    // Of several, the one said last (ids are time-ordered, UUID v7): the
    // user corrects what they just said.
    let held = known
        .iter()
        .filter(|k| {
            k.subject.as_deref() == Some(&candidate.subject)
                && k.value.as_deref().is_some_and(|v| same_or_within(v, wrong))
                && k.attribute.as_deref().is_some_and(|a| !a.is_empty())
        })
        .max_by_key(|k| k.id);
    let Some(attribute) = held.and_then(|k| k.attribute.clone()) else {
        return false;
    };
    candidate.statement = crate::extract::restate::statement_for(&attribute, &candidate.value);
    candidate.attribute = attribute;
    true
}

/// Decides one candidate against the live memories of its scope that share its
/// subject and attribute, or are its nearest neighbours.
pub fn decide(candidate: &Candidate, known: &[Known], p: &DecideParams) -> Decision {
    if candidate.action != FactAction::Assert {
        return retire(candidate, known, p);
    }
    // A correction whose wrong value nothing holds has no key to go under.
    if let (true, Some(wrong)) = (candidate.attribute.is_empty(), &candidate.replaces) {
        return Decision::Ignore {
            reason: format!("nothing held is \"{wrong}\", which the user corrected"),
        };
    }
    let same_key: Vec<&Known> = known
        .iter()
        .filter(|k| {
            k.subject.as_deref() == Some(&candidate.subject)
                && k.attribute.as_deref() == Some(&candidate.attribute)
        })
        .collect();

    if let Some(k) = same_key.iter().find(|k| {
        k.value
            .as_deref()
            .is_some_and(|v| same_value(v, &candidate.value))
    }) {
        return Decision::Noop {
            target: k.id,
            reason: format!(
                "already known: {} = {}",
                candidate.attribute, candidate.value
            ),
        };
    }
    if !same_key.is_empty() {
        let stated_known = same_key
            .iter()
            .any(|k| k.source_type == SourceType::UserStated);
        if !candidate.stated && stated_known {
            let target = same_key[0].id;
            return Decision::Noop {
                target,
                reason: format!(
                    "an inferred value for {} does not replace what the user stated",
                    candidate.attribute
                ),
            };
        }
        // "Lisbon" then "Lisbon, Portugal": complementary details of one fact.
        if let Some(k) = same_key.iter().find(|k| {
            k.value.as_deref().is_some_and(|v| {
                let (a, b) = (v.to_lowercase(), candidate.value.to_lowercase());
                a.len() != b.len() && (a.contains(&b) || b.contains(&a))
            })
        }) {
            let longer = if candidate.statement.len() >= k.content.len() {
                &candidate.statement
            } else {
                &k.content
            };
            return Decision::Merge {
                target: k.id,
                content: longer.clone(),
                reason: format!(
                    "complementary details of {}: kept the more specific",
                    candidate.attribute
                ),
            };
        }
        let old: Vec<String> = same_key
            .iter()
            .map(|k| k.value.clone().unwrap_or_else(|| k.content.clone()))
            .collect();
        return Decision::Supersede {
            targets: same_key.iter().map(|k| k.id).collect(),
            reason: format!(
                "new value for {}: {} -> {}",
                candidate.attribute,
                old.join(", "),
                candidate.value
            ),
        };
    }
    if let Some(k) = known
        .iter()
        .filter(|k| k.similarity >= p.near_duplicate)
        .max_by(|a, b| a.similarity.total_cmp(&b.similarity))
    {
        return Decision::Noop {
            target: k.id,
            reason: format!(
                "near duplicate (cosine {:.2}) of a known memory",
                k.similarity
            ),
        };
    }
    Decision::Add {
        reason: format!("new fact: {} = {}", candidate.attribute, candidate.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryKind;

    fn cand(attribute: &str, value: &str, statement: &str) -> Candidate {
        Candidate {
            statement: statement.into(),
            kind: MemoryKind::Semantic,
            subject: "user".into(),
            attribute: attribute.into(),
            value: value.into(),
            importance: 0.8,
            confidence: 0.9,
            sensitivity: None,
            expires_at: None,
            stated: true,
            message_index: 0,
            action: crate::extract::FactAction::Assert,
            replaces: None,
        }
    }

    fn known(attribute: &str, value: &str, content: &str, similarity: f32) -> Known {
        Known {
            said: false,
            id: Uuid::now_v7(),
            content: content.into(),
            subject: Some("user".into()),
            attribute: Some(attribute.into()),
            value: Some(value.into()),
            source_type: SourceType::UserStated,
            similarity,
        }
    }

    #[test]
    fn a_forget_request_reaches_its_fact_under_a_broader_key_but_not_a_family() {
        let sister = known(
            "family.sister",
            "Clara",
            "User's sister is named Clara.",
            0.5,
        );
        let family = known("family", "2 kids", "User has two kids.", 0.5);
        let mut request = cand("family.sister.name", "", "my sister's name");
        request.action = crate::extract::FactAction::Forget;
        match decide(
            &request,
            &[sister.clone(), family],
            &DecideParams::default(),
        ) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [sister.id]),
            other => panic!("{other:?}"),
        }
        // A retraction stays with the key it names.
        request.action = crate::extract::FactAction::Retract;
        assert!(matches!(
            decide(&request, &[sister], &DecideParams::default()),
            Decision::Ignore { .. }
        ));
    }

    #[test]
    fn a_retraction_by_words_reaches_the_users_facts_that_hold_them() {
        let coffee = known(
            "habit.coffee",
            "three coffees a day",
            "User drinks three coffees a day.",
            0.5,
        );
        let chess = known("likes.chess", "likes", "User loves playing chess.", 0.4);
        let son = known(
            "family.son.hobby",
            "coffee tasting",
            "User's son loves coffee tasting.",
            0.5,
        );
        let mut raw = known("", "", "I drink coffee every morning.", 0.9);
        raw.attribute = None;
        let held = [coffee.clone(), chess.clone(), son, raw];
        let mut gave_up = cand("", "coffee", "User drinks coffee.");
        gave_up.action = crate::extract::FactAction::Retract;
        match decide(&gave_up, &held, &DecideParams::default()) {
            Decision::Retire {
                targets, reason, ..
            } => {
                assert_eq!(targets, [coffee.id], "not the son's, not the verbatim");
                assert!(reason.contains("coffee"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let mut chess_gone = cand("", "play chess", "User plays chess.");
        chess_gone.action = crate::extract::FactAction::Retract;
        match decide(&chess_gone, &held, &DecideParams::default()) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [chess.id]),
            other => panic!("{other:?}"),
        }
        // Every word must be there: "the boat" is not the chess.
        let mut boat = cand("", "the boat", "User owns the boat.");
        boat.action = crate::extract::FactAction::Retract;
        assert!(matches!(
            decide(&boat, &held, &DecideParams::default()),
            Decision::Ignore { .. }
        ));
    }

    #[test]
    fn a_forget_request_without_a_key_reaches_what_holds_its_words() {
        let divorced = known("relationship.status", "divorced", "User is divorced.", 0.4);
        let job = known("employer", "Acme", "User works at Acme.", 0.3);
        let mut request = cand("", "", "my divorce");
        request.action = crate::extract::FactAction::Forget;
        match decide(&request, &[divorced.clone(), job], &DecideParams::default()) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [divorced.id]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_forget_request_that_names_a_category_reaches_its_keys_only() {
        let band = known(
            "favorite.band",
            "Muse",
            "User's favourite band is Muse.",
            0.2,
        );
        let song = known(
            "favorite.song",
            "Creep",
            "User's favourite song is Creep.",
            0.2,
        );
        let colour = known(
            "favorite.color",
            "green",
            "User's favourite colour is green.",
            0.2,
        );
        let mut sisters = known("favorite.band", "Abba", "User's sister loves Abba.", 0.2);
        sisters.subject = Some("sister".into());
        let held = [band.clone(), song.clone(), colour, sisters];
        let mut request = cand("", "", "my music taste");
        request.action = crate::extract::FactAction::Forget;
        match decide(&request, &held, &DecideParams::default()) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [band.id, song.id]),
            other => panic!("{other:?}"),
        }
        // A narrower key is what it names, not its category.
        let mut narrow = cand("favorite.band", "", "my favourite band");
        narrow.action = crate::extract::FactAction::Forget;
        match decide(&narrow, &held, &DecideParams::default()) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [band.id]),
            other => panic!("{other:?}"),
        }
        // Someone else's music is not the user's; a phrase that names more
        // than a category ("my work schedule") reaches no category.
        let job = known("employer", "Acme", "User works at Acme.", 0.2);
        let held: Vec<Known> = held.iter().cloned().chain([job]).collect();
        for phrase in ["my sister's music taste", "my work schedule"] {
            let mut other = cand("", "", phrase);
            other.action = crate::extract::FactAction::Forget;
            assert!(
                matches!(
                    decide(&other, &held, &DecideParams::default()),
                    Decision::Ignore { .. }
                ),
                "{phrase}"
            );
        }
    }

    #[test]
    fn a_correction_takes_the_key_of_what_it_corrects() {
        let salzburg = known("location.city", "Salzburg", "User lives in Salzburg.", 0.3);
        let job = known("employer", "Acme", "User works at Acme.", 0.3);
        let mut graz = cand("", "Graz", "User: Graz, not Salzburg.");
        graz.replaces = Some("Salzburg".into());
        let held = [job, salzburg.clone()];
        let mut unresolved = graz.clone();
        assert!(matches!(
            decide(&unresolved, &held[..1], &DecideParams::default()),
            Decision::Ignore { .. }
        ));
        assert!(!resolve_correction(&mut unresolved, &held[..1]));
        assert!(resolve_correction(&mut graz, &held));
        assert_eq!(graz.attribute, "location.city");
        assert_eq!(graz.statement, "User lives in Graz.");
        match decide(&graz, &held, &DecideParams::default()) {
            Decision::Supersede { targets, .. } => assert_eq!(targets, [salzburg.id]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_thing_held_under_another_key_is_reached_by_its_words() {
        let horror = known("likes.horror", "true", "User loves horror films.", 0.5);
        let mut request = cand("likes.horror_films", "", "User likes horror films.");
        request.action = crate::extract::FactAction::Forget;
        match decide(
            &request,
            std::slice::from_ref(&horror),
            &DecideParams::default(),
        ) {
            Decision::Retire { targets, .. } => assert_eq!(targets, [horror.id]),
            other => panic!("{other:?}"),
        }
        // A slot is not a thing: "name" reaches nothing by words.
        let mut name = cand("family.son.name", "", "my son's name");
        name.action = crate::extract::FactAction::Retract;
        let other = known(
            "family.son.age",
            "6",
            "User's son's name is Leo and he is 6.",
            0.5,
        );
        assert!(matches!(
            decide(&name, &[other], &DecideParams::default()),
            Decision::Ignore { .. }
        ));
    }

    #[test]
    fn a_new_value_supersedes_only_the_same_attribute() {
        let dallas = known("location.city", "Dallas", "User lives in Dallas.", 0.8);
        let job = known("employer", "Acme", "User works at Acme.", 0.2);
        let d = decide(
            &cand("location.city", "Austin", "User lives in Austin."),
            &[dallas.clone(), job],
            &DecideParams::default(),
        );
        match d {
            Decision::Supersede { targets, reason } => {
                assert_eq!(targets, vec![dallas.id]);
                assert!(reason.contains("Dallas -> Austin"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_same_value_is_a_noop_and_new_facts_are_added() {
        let tea = known("likes.tea", "likes", "User likes tea.", 0.99);
        assert!(matches!(
            decide(
                &cand("likes.tea", "Likes", "User likes tea."),
                std::slice::from_ref(&tea),
                &DecideParams::default()
            ),
            Decision::Noop { .. }
        ));
        let tea = Known {
            said: false,
            similarity: 0.6,
            ..tea
        };
        assert!(matches!(
            decide(
                &cand("likes.coffee", "likes", "User likes coffee."),
                &[tea],
                &DecideParams::default()
            ),
            Decision::Add { .. }
        ));
    }

    #[test]
    fn a_near_duplicate_without_an_attribute_is_a_noop_but_never_superseded() {
        let mut raw = known("x", "y", "I like tea", 0.96);
        raw.attribute = None;
        assert!(matches!(
            decide(
                &cand("likes.tea", "likes", "User likes tea."),
                &[raw.clone()],
                &DecideParams::default()
            ),
            Decision::Noop { .. }
        ));
        raw.similarity = 0.7;
        assert!(matches!(
            decide(
                &cand("likes.tea", "likes", "User likes tea."),
                &[raw],
                &DecideParams::default()
            ),
            Decision::Add { .. }
        ));
    }

    #[test]
    fn more_specific_details_merge() {
        let lisbon = known("location.city", "Lisbon", "User lives in Lisbon.", 0.9);
        match decide(
            &cand(
                "location.city",
                "Lisbon, Portugal",
                "User lives in Lisbon, Portugal.",
            ),
            std::slice::from_ref(&lisbon),
            &DecideParams::default(),
        ) {
            Decision::Merge {
                target, content, ..
            } => {
                assert_eq!(target, lisbon.id);
                assert_eq!(content, "User lives in Lisbon, Portugal.");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_inferred_value_never_replaces_a_stated_one() {
        let mut c = cand("location.city", "Paris", "User lives in Paris.");
        c.stated = false;
        let home = known("location.city", "Rome", "User lives in Rome.", 0.8);
        assert!(matches!(
            decide(&c, &[home], &DecideParams::default()),
            Decision::Noop { .. }
        ));
    }
}
