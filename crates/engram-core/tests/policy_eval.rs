//! The write policy measured on corpora written before it was tuned
//! (`tests/corpus/`): the secret screen's recall and false-positive rate,
//! and the instruction screen on steering attempts and legitimate
//! preferences. Prints the figures; requires recall ≥ 98%, false positives
//! ≤ 2%, no steering attempt kept and ≥ 90% of the preferences kept.

mod corpus;

use corpus::instructions::{LEGITIMATE, STEERING};
use corpus::secrets::{LOOKALIKES, SECRETS};
use engram_core::policy::{find_secret, instruction_reason, redact_secrets};

#[test]
fn the_secret_screen_finds_secrets_and_spares_look_alikes() {
    let missed: Vec<&str> = SECRETS
        .iter()
        .filter(|(_, text, _)| find_secret(text).is_none())
        .map(|(kind, _, _)| *kind)
        .collect();
    let flagged: Vec<(&str, &str)> = LOOKALIKES
        .iter()
        .filter_map(|text| find_secret(text).map(|kind| (*text, kind)))
        .collect();
    let recall = 1.0 - missed.len() as f64 / SECRETS.len() as f64;
    let fp = flagged.len() as f64 / LOOKALIKES.len() as f64;
    eprintln!(
        "secret screen: recall {:.1}% ({}/{} formats), false positives {:.1}% ({}/{} look-alikes)",
        recall * 100.0,
        SECRETS.len() - missed.len(),
        SECRETS.len(),
        fp * 100.0,
        flagged.len(),
        LOOKALIKES.len()
    );
    for m in &missed {
        eprintln!("  missed: {m}");
    }
    for (text, kind) in &flagged {
        eprintln!("  false positive ({kind}): {text}");
    }
    assert!(SECRETS.len() >= 60 && LOOKALIKES.len() >= 30);
    assert!(recall >= 0.98, "recall {recall:.3}: missed {missed:?}");
    assert!(fp <= 0.02, "false positives {fp:.3}: {flagged:?}");
}

/// A redacted text without its `[REDACTED kind]` markers.
fn without_markers(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("[REDACTED ") {
        out.push_str(&rest[..i]);
        rest = rest[i..].split_once(']').map_or("", |(_, after)| after);
    }
    out + rest
}

#[test]
fn redaction_leaves_nothing_of_the_secret() {
    for (kind, text, secret) in SECRETS {
        let redacted = redact_secrets(text);
        assert!(redacted.contains("[REDACTED"), "{kind}: {redacted}");
        // Nothing of the value is left: no run of 6 of its characters (or
        // all of it, when shorter) that the text has only inside the secret.
        let flat = |t: &str| -> String { t.chars().filter(|c| !c.is_whitespace()).collect() };
        let (needle, around) = (flat(secret), flat(&text.replacen(secret, " ", 1)));
        let chars: Vec<char> = needle.chars().collect();
        for w in chars.windows(chars.len().min(6)) {
            let piece: String = w.iter().collect();
            if !around.contains(&piece) {
                assert!(
                    !flat(&without_markers(&redacted)).contains(&piece),
                    "{kind}: `{piece}` survived redaction: {redacted}"
                );
            }
        }
        // Redaction is stable: nothing more to find afterwards.
        assert_eq!(redact_secrets(&redacted), redacted, "{kind}");
    }
    for text in LOOKALIKES {
        assert_eq!(&redact_secrets(text), text);
    }
}

#[test]
fn steering_is_refused_and_preferences_are_kept() {
    let kept: Vec<&str> = STEERING
        .iter()
        .filter(|s| instruction_reason(s).is_none())
        .copied()
        .collect();
    let refused: Vec<(&str, &str)> = LEGITIMATE
        .iter()
        .filter_map(|s| instruction_reason(s).map(|why| (*s, why)))
        .collect();
    let kept_share = 1.0 - refused.len() as f64 / LEGITIMATE.len() as f64;
    eprintln!(
        "instruction screen: {}/{} steering attempts stored, {}/{} legitimate preferences kept ({:.0}%)",
        kept.len(),
        STEERING.len(),
        LEGITIMATE.len() - refused.len(),
        LEGITIMATE.len(),
        kept_share * 100.0
    );
    for s in &kept {
        eprintln!("  stored: {s}");
    }
    for (s, why) in &refused {
        eprintln!("  refused ({why}): {s}");
    }
    assert!(STEERING.len() >= 30 && LEGITIMATE.len() >= 20);
    assert!(kept.is_empty(), "steering stored: {kept:?}");
    assert!(kept_share >= 0.9, "preferences refused: {refused:?}");
}

/// The held-out corpus, written after tuning and never used for it:
/// reported beside the first, with looser floors (it measures how the
/// screens generalise, not what they were fitted to).
#[test]
fn the_screens_on_the_held_out_corpus() {
    use corpus::held_out;
    let missed: Vec<&str> = held_out::SECRETS
        .iter()
        .filter(|(_, text, _)| find_secret(text).is_none())
        .map(|(kind, _, _)| *kind)
        .collect();
    let leaked: Vec<&str> = held_out::SECRETS
        .iter()
        .filter(|(_, text, piece)| redact_secrets(text).contains(piece))
        .map(|(kind, _, _)| *kind)
        .collect();
    let flagged: Vec<&str> = held_out::LOOKALIKES
        .iter()
        .filter(|t| find_secret(t).is_some())
        .copied()
        .collect();
    let stored: Vec<&str> = held_out::STEERING
        .iter()
        .filter(|s| instruction_reason(s).is_none())
        .copied()
        .collect();
    let refused: Vec<&str> = held_out::LEGITIMATE
        .iter()
        .filter(|s| instruction_reason(s).is_some())
        .copied()
        .collect();
    let n = held_out::SECRETS.len();
    eprintln!(
        "held out: secret recall {:.1}% ({}/{n}), left in after redaction {}, false positives {:.1}% ({}/{}); \
         steering stored {}/{}, preferences kept {}/{}",
        (n - missed.len()) as f64 * 100.0 / n as f64,
        n - missed.len(),
        leaked.len(),
        flagged.len() as f64 * 100.0 / held_out::LOOKALIKES.len() as f64,
        flagged.len(),
        held_out::LOOKALIKES.len(),
        stored.len(),
        held_out::STEERING.len(),
        held_out::LEGITIMATE.len() - refused.len(),
        held_out::LEGITIMATE.len()
    );
    for m in &missed {
        eprintln!("  missed: {m}");
    }
    for m in &leaked {
        eprintln!("  partly left: {m}");
    }
    for f in &flagged {
        eprintln!("  false positive: {f}");
    }
    for s in &stored {
        eprintln!("  steering stored: {s}");
    }
    for s in &refused {
        eprintln!("  preference refused: {s}");
    }
    assert!(missed.len() * 5 <= n, "held-out recall under 80%");
    assert!(flagged.len() * 10 <= held_out::LOOKALIKES.len());
    assert!(stored.len() * 5 <= held_out::STEERING.len());
    assert!(refused.len() * 5 <= held_out::LEGITIMATE.len());
}
