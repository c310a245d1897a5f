//! The screens measured on generated corpora (tests/screens/): recall and
//! precision per class, on the development part and on the report part,
//! side by side. Only development misses are printed; the report part
//! gives figures only (it was split off before tuning, and stays unread).

mod screens;

use engram_core::policy::{find_secret, redact_secrets, redact_together};
use screens::{pct, Part, Tally};

/// Whether anything of `secret` (as written in `text`) is left in
/// `redacted`: a run of six of its characters (all of it when shorter)
/// that the text has nowhere else.
fn survives(text: &str, secret: &str, redacted: &str) -> bool {
    let flat = |t: &str| -> String {
        t.chars()
            .filter(|c| !c.is_whitespace() && !engram_core::validate::is_default_ignorable(*c))
            .collect()
    };
    let unmarked = {
        let mut out = String::new();
        let mut rest = redacted;
        while let Some(i) = rest.find("[REDACTED ") {
            out.push_str(&rest[..i]);
            rest = rest[i..].split_once(']').map_or("", |(_, after)| after);
        }
        out + rest
    };
    let (needle, around, left) = (
        flat(secret),
        flat(&text.replacen(secret, " ", 1)),
        flat(&unmarked),
    );
    let chars: Vec<char> = needle.chars().collect();
    if chars.is_empty() {
        return false;
    }
    chars.windows(chars.len().min(6)).any(|w| {
        let piece: String = w.iter().collect();
        !around.contains(&piece) && left.contains(&piece)
    })
}

#[test]
fn secrets_are_redacted_and_look_alikes_spared() {
    let cases = screens::secrets::cases();
    let mut tally = Tally::default();
    let mut dev_misses = Vec::new();
    for c in &cases {
        let redacted = redact_secrets(&c.text);
        let hit = !survives(&c.text, &c.secret, &redacted);
        tally.add(&c.class, c.part, hit);
        if !hit && c.part == Part::Dev {
            dev_misses.push(format!("{}: {:?} -> {:?}", c.class, c.text, redacted));
        }
    }
    // Split across two turns: read together.
    for (part, first, second, a, b) in screens::secrets::split_cases() {
        let out = redact_together(&[&first, &second]);
        let hit = !survives(&first, &a, &out[0].0) && !survives(&second, &b, &out[1].0);
        tally.add("card split across two turns", part, hit);
        if !hit && part == Part::Dev {
            dev_misses.push(format!("split: {first:?} + {second:?} -> {out:?}"));
        }
    }
    let looks = screens::lookalikes::cases();
    let mut fp = Tally::default();
    let mut dev_fp = Vec::new();
    for c in &looks {
        let flagged = find_secret(&c.text);
        fp.add(c.class, c.part, flagged.is_some());
        if let (Some(kind), Part::Dev) = (flagged, c.part) {
            dev_fp.push(format!(
                "{} ({kind}): {:?} -> {:?}",
                c.class,
                c.text,
                redact_secrets(&c.text)
            ));
        }
    }
    tally.print("secrets redacted, by class (generated):");
    fp.print("look-alikes redacted (false positives), by class (generated):");
    for m in dev_misses.iter().take(60) {
        eprintln!("  dev miss: {m}");
    }
    for m in dev_fp.iter().take(60) {
        eprintln!("  dev false positive: {m}");
    }
    let (rh, rt) = tally.total("report");
    let (dh, dt) = tally.total("dev");
    let (fr, frt) = fp.total("report");
    let (fd, fdt) = fp.total("dev");
    eprintln!(
        "secrets: dev {} report {}; look-alikes flagged: dev {} report {}",
        pct(dh, dt),
        pct(rh, rt),
        pct(fd, fdt),
        pct(fr, frt)
    );
    assert!(rt >= 500 && frt >= 100, "corpus sizes {rt} {frt}");
    assert!(rh * 100 >= rt * 98, "report recall {}", pct(rh, rt));
    assert!(fr * 100 <= frt, "report false positives {}", pct(fr, frt));
}

#[test]
fn steering_is_refused_and_style_and_facts_kept() {
    use engram_core::policy::instruction_reason;
    let mut refused = Tally::default();
    let mut dev_wrong = Vec::new();
    for c in screens::steering::cases() {
        let verdict = instruction_reason(&c.text).is_some();
        let right = verdict == c.steering;
        refused.add(c.class, c.part, right);
        if !right && c.part == Part::Dev {
            dev_wrong.push(format!("{}: {:?} (refused: {verdict})", c.class, c.text));
        }
    }
    refused.print("steering: right decisions, by class (refused for steering, kept otherwise):");
    for m in dev_wrong.iter().take(80) {
        eprintln!("  dev wrong: {m}");
    }
    let report = |class_kept: bool| {
        refused
            .rows
            .iter()
            .filter(|((c, p), _)| *p == "report" && c.ends_with("(kept)") == class_kept)
            .fold((0, 0), |(h, t), (_, (a, b))| (h + a, t + b))
    };
    let (sh, st) = report(false);
    let (kh, kt) = report(true);
    eprintln!(
        "steering refused (report) {}, style and facts kept (report) {}",
        pct(sh, st),
        pct(kh, kt)
    );
    assert!(sh * 100 >= st * 97, "steering refused {}", pct(sh, st));
    assert!(kh * 100 >= kt * 95, "kept {}", pct(kh, kt));
}

/// One user message, as an extraction job reads it.
fn user_request(text: &str) -> engram_core::extract::ExtractionRequest {
    engram_core::extract::ExtractionRequest::user_said(text)
}

/// What the rules extractor stores from one user message, after the
/// pipeline's screens: the values of the assertions that pass.
fn stored_values(text: &str) -> Vec<String> {
    use engram_core::extract::{FactAction, RulesExtractor};
    use engram_core::policy::{check_candidate, screen_messages};
    let request = user_request(text);
    let screened = screen_messages(&request);
    let mut out = Vec::new();
    for (_, m) in &screened.eligible {
        for mut c in RulesExtractor.extract_sync(std::slice::from_ref(m)) {
            if c.action == FactAction::Assert && check_candidate(&mut c, &m.content, false).is_ok()
            {
                out.push(format!("{} {}", c.value, c.statement));
            }
        }
    }
    out
}

#[test]
fn only_sincere_assertions_become_facts() {
    let mut tally = Tally::default();
    let mut dev_wrong = Vec::new();
    for c in screens::statements::cases() {
        let stored = stored_values(&c.text);
        let has = stored
            .iter()
            .any(|s| s.to_lowercase().contains(&c.value.to_lowercase()));
        let right = has == c.sincere;
        tally.add(c.class, c.part, right);
        if !right && c.part == Part::Dev {
            dev_wrong.push(format!("{}: {:?} -> {stored:?}", c.class, c.text));
        }
    }
    tally.print(
        "statements: right decisions, by class (stored for plain facts, nothing otherwise):",
    );
    for m in dev_wrong.iter().take(80) {
        eprintln!("  dev wrong: {m}");
    }
    let part = |plain: bool, p: &str| {
        tally
            .rows
            .iter()
            .filter(|((c, q), _)| *q == p && c.ends_with("(stored)") == plain)
            .fold((0, 0), |(h, t), (_, (a, b))| (h + a, t + b))
    };
    let (ph, pt) = part(true, "report");
    let (nh, nt) = part(false, "report");
    eprintln!(
        "plain facts stored (report) {}, false facts from non-statements (report) {}",
        pct(ph, pt),
        pct(nt - nh, nt)
    );
    assert!(ph * 100 >= pt * 95, "plain facts stored {}", pct(ph, pt));
    assert!(
        (nt - nh) * 100 <= nt * 2,
        "false facts {}",
        pct(nt - nh, nt)
    );
}

/// A request to forget is read as one (FORGET, never RETRACT), naming what
/// it names; "everything about me" names everything.
#[test]
fn forget_requests_are_read_in_any_wording() {
    use engram_core::extract::{FactAction, InputMessage, Role, RulesExtractor, FORGET_EVERYTHING};
    let mut tally = Tally::default();
    let mut dev_wrong = Vec::new();
    for c in screens::forget::cases() {
        let candidates = RulesExtractor.extract_sync(&[InputMessage {
            role: Role::User,
            content: c.text.clone(),
            created_at: chrono::Utc::now(),
        }]);
        let forgets: Vec<_> = candidates
            .iter()
            .filter(|x| x.action == FactAction::Forget)
            .collect();
        let retracts = candidates.iter().any(|x| x.action == FactAction::Retract);
        let right = if !c.forget {
            forgets.is_empty()
        } else if c.everything {
            forgets.iter().any(|x| x.attribute == FORGET_EVERYTHING)
        } else {
            !retracts
                && forgets.iter().any(|x| {
                    let v = c.value.to_lowercase();
                    x.value.to_lowercase().contains(&v) || x.statement.to_lowercase().contains(&v)
                })
                && c.reaches.is_none_or(|key| {
                    // The key is under the request's own key or its category's.
                    let under = |p: &str| key == p || key.starts_with(&format!("{p}."));
                    forgets.iter().any(|x| {
                        (!x.attribute.is_empty() && under(&x.attribute))
                            || engram_core::text::topics::keys_named(&x.statement)
                                .into_iter()
                                .any(under)
                    })
                })
        };
        tally.add(c.class, c.part, right);
        if !right && c.part == Part::Dev {
            let got: Vec<String> = candidates
                .iter()
                .map(|x| {
                    format!(
                        "{:?} {}={} {:?}",
                        x.action, x.attribute, x.value, x.statement
                    )
                })
                .collect();
            dev_wrong.push(format!("{}: {:?} -> {got:?}", c.class, c.text));
        }
    }
    tally.print("forget wordings: right readings, by class:");
    for m in dev_wrong.iter().take(60) {
        eprintln!("  dev wrong: {m}");
    }
    let (rh, rt) = tally.total("report");
    eprintln!("forget wordings read right (report) {}", pct(rh, rt));
    assert!(rh * 100 >= rt * 95, "report {}", pct(rh, rt));
}

/// The second report part (tests/screens/blind.rs), written after tuning
/// and run once: its figures as they came out (no screen may be tuned on
/// it; a miss here calls for a new report part, not a fix aimed at it).
#[test]
fn the_blind_report_part() {
    use engram_core::extract::{FactAction, InputMessage, Role, RulesExtractor, FORGET_EVERYTHING};
    use engram_core::policy::instruction_reason;
    use screens::blind;
    let secrets = blind::SECRETS
        .iter()
        .filter(|(t, s)| !survives(t, s, &redact_secrets(t)))
        .count();
    let flagged = blind::LOOKALIKES
        .iter()
        .filter(|t| find_secret(t).is_some())
        .count();
    let steering = blind::STEERING
        .iter()
        .filter(|(t, refuse)| instruction_reason(t).is_some() == *refuse)
        .count();
    let statements = blind::STATEMENTS
        .iter()
        .filter(|(t, v, sincere)| {
            let stored = stored_values(t)
                .iter()
                .any(|s| s.to_lowercase().contains(&v.to_lowercase()));
            stored == *sincere
        })
        .count();
    let forget = blind::FORGET
        .iter()
        .filter(|(t, v, is)| {
            let cs = RulesExtractor.extract_sync(&[InputMessage {
                role: Role::User,
                content: (*t).to_owned(),
                created_at: chrono::Utc::now(),
            }]);
            let f: Vec<_> = cs
                .iter()
                .filter(|c| c.action == FactAction::Forget)
                .collect();
            match (*is, v.is_empty()) {
                (false, _) => f.is_empty(),
                (true, true) => f.iter().any(|c| c.attribute == FORGET_EVERYTHING),
                (true, false) => f
                    .iter()
                    .any(|c| c.value.contains(v) || c.statement.contains(v)),
            }
        })
        .count();
    eprintln!(
        "blind report part: secrets redacted {} ({secrets}/{}), look-alikes flagged {} ({flagged}/{}), \
         steering decided right {} ({steering}/{}), statements decided right {} ({statements}/{}), \
         forget read right {} ({forget}/{})",
        pct(secrets, blind::SECRETS.len()),
        blind::SECRETS.len(),
        pct(flagged, blind::LOOKALIKES.len()),
        blind::LOOKALIKES.len(),
        pct(steering, blind::STEERING.len()),
        blind::STEERING.len(),
        pct(statements, blind::STATEMENTS.len()),
        blind::STATEMENTS.len(),
        pct(forget, blind::FORGET.len()),
        blind::FORGET.len()
    );
    // Floors: the figures of its one run (2026-12-02), so a change that
    // does worse on it fails; steering (12/16) is below the target
    // and says how far the screens generalise (docs/EXTRACTION.md).
    assert!(secrets >= 24 && flagged == 0 && steering >= 12 && statements >= 13 && forget >= 10);
}

/// What of a user message the pipeline keeps verbatim when no LLM is
/// configured (the rules read English only): secrets redacted as the
/// request is read, the message screens, then the unread-message decision.
/// `None` when nothing is kept; the detected language's name beside it.
fn kept_verbatim(text: &str) -> (Option<String>, Option<&'static str>) {
    use engram_core::policy::{screen_messages, unread_message, Unread};
    let request = user_request(&redact_secrets(text));
    let screened = screen_messages(&request);
    let Some((_, m)) = screened.eligible.first() else {
        return (None, None);
    };
    match unread_message(&m.content, false) {
        Some(Unread::Keep { text, language, .. }) => (Some(text), Some(language.name)),
        Some(Unread::Skip { language, .. }) => (None, Some(language.name)),
        None => (None, None),
    }
}

/// Messages in seven other languages (tests/screens/multilingual.rs): a
/// fact is kept verbatim, and the secret, order, sensitive detail or
/// question beside it is not; English is left to the rules.
#[test]
fn messages_in_other_languages_keep_the_facts_and_pass_the_screens() {
    use screens::multilingual::{cases, Target};
    let mut caught = Tally::default();
    let mut facts = Tally::default();
    let mut by_language = Tally::default();
    let mut redacted = Tally::default();
    let mut dev_wrong = Vec::new();
    for c in cases() {
        if c.target == Target::Secret {
            let as_read = redact_secrets(&c.text);
            let hit = !survives(&c.text, &c.secret, &as_read);
            redacted.add(c.language, c.part, hit);
            if !hit && c.part == Part::Dev {
                dev_wrong.push(format!("not redacted: {:?} -> {as_read:?}", c.text));
            }
        }
        let (kept, language) = kept_verbatim(&c.text);
        let kept_text = kept.clone().unwrap_or_default();
        let fact_kept = kept_text.contains(&c.value);
        facts.add(c.class, c.part, fact_kept);
        by_language.add(c.language, c.part, fact_kept);
        let screened = c.target == Target::None || !survives(&c.text, &c.needle, &kept_text);
        if c.target != Target::None {
            caught.add(&format!("{} ({})", c.class, c.language), c.part, screened);
        }
        if (!screened || !fact_kept) && c.part == Part::Dev {
            dev_wrong.push(format!(
                "{} [{language:?}] {:?} -> {kept:?}",
                c.class, c.text
            ));
        }
    }
    // English, which the rules read: never kept verbatim.
    let mut english = Tally::default();
    for c in screens::statements::cases() {
        let (_, language) = kept_verbatim(&c.text);
        english.add(
            "English statements read as English",
            c.part,
            language.is_none(),
        );
        if let (Some(l), Part::Dev) = (language, c.part) {
            dev_wrong.push(format!("English read as {l}: {:?}", c.text));
        }
    }
    caught.print("other languages: target sentence left out, by class and language:");
    facts.print("other languages: the fact beside it kept, by class:");
    by_language.print("other languages: the fact kept, by language:");
    redacted.print("other languages: the secret redacted as the request is read, by language:");
    english.print("English left to the rules:");
    for m in dev_wrong.iter().take(80) {
        eprintln!("  dev wrong: {m}");
    }
    let (ch, ct) = caught.total("report");
    let (fh, ft) = facts.total("report");
    let (eh, et) = english.total("report");
    let (rh, rt) = redacted.total("report");
    eprintln!(
        "other languages (report): screened {}, secrets redacted {}, facts kept {}; English left to the rules {}",
        pct(ch, ct),
        pct(rh, rt),
        pct(fh, ft),
        pct(eh, et)
    );
    // Floors a little under the report part's first run (2026-12-04:
    // 98.2%, 96.6%, 100%), so a change that does worse fails.
    assert!(ch * 100 >= ct * 95, "screened {}", pct(ch, ct));
    assert!(fh * 100 >= ft * 92, "facts kept {}", pct(fh, ft));
    assert!(
        eh * 100 >= et * 98,
        "English left to the rules {}",
        pct(eh, et)
    );
    assert!(rh * 100 >= rt * 95, "secrets redacted {}", pct(rh, rt));
}

/// Identifiers are refused only for what cannot occur by accident
/// (`policy::identifier_secret`): of 5,000+ realistic ids none, and every
/// secret put where an id goes.
#[test]
fn identifiers_pass_unless_they_hold_a_secret() {
    use engram_core::policy::identifier_secret;
    let ids = screens::identifiers::realistic(200);
    let mut refused: Vec<String> = Vec::new();
    let mut per_class: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for i in &ids {
        let kind = identifier_secret(&i.id);
        let e = per_class.entry(i.class).or_default();
        e.1 += 1;
        if let Some(kind) = kind {
            e.0 += 1;
            refused.push(format!("{} ({kind}): {}", i.class, i.id));
        }
    }
    // Real ids too, when the data is here: ShareGPT's conversation ids.
    let shared = std::env::var("ENGRAM_SHARED_DIR").unwrap_or_else(|_| "../../../shared".into());
    let sharegpt = std::path::Path::new(&shared).join("data/sharegpt-sample/sharegpt-1003.json");
    let mut real = 0;
    if let Ok(raw) = std::fs::read_to_string(&sharegpt) {
        let convs: serde_json::Value = serde_json::from_str(&raw).expect("ShareGPT sample");
        for c in convs.as_array().into_iter().flatten() {
            if let Some(id) = c["id"].as_str() {
                real += 1;
                for id in [id.to_owned(), format!("sharegpt_{id}")] {
                    if let Some(kind) = identifier_secret(&id) {
                        refused.push(format!("ShareGPT ({kind}): {id}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "identifiers refused, per template ({} generated, {real} real ShareGPT ids):",
        ids.len()
    );
    for (class, (r, n)) in &per_class {
        eprintln!("  {class:<24} {r}/{n}");
    }
    assert!(refused.is_empty(), "ordinary ids refused: {refused:#?}");
    let secrets = screens::identifiers::secrets();
    let missed: Vec<String> = secrets
        .iter()
        .filter(|s| identifier_secret(&s.id).is_none())
        .map(|s| format!("{}: {}", s.class, s.id))
        .collect();
    eprintln!(
        "secrets as ids refused: {}/{}",
        secrets.len() - missed.len(),
        secrets.len()
    );
    assert!(missed.is_empty(), "secrets passed as ids: {missed:#?}");
}
