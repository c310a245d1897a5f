//! docs/CONFIGURATION.md lists every setting: each `ENGRAM_*` name the
//! code, the scripts and the deployment files read is documented there, and
//! each one documented there is still read somewhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `ENGRAM_*` names in `text` (a name ends at a character that cannot
/// be in one; `ENGRAM_CONSOLIDATION_*`, a family, is not a name).
fn names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("ENGRAM_") {
        let start = i + at;
        let preceded = start > 0 && {
            let b = bytes[start - 1];
            b.is_ascii_alphanumeric() || b == b'_'
        };
        let mut end = start + "ENGRAM_".len();
        while end < bytes.len()
            && (bytes[end].is_ascii_uppercase()
                || bytes[end].is_ascii_digit()
                || bytes[end] == b'_')
        {
            end += 1;
        }
        let name = text[start..end].trim_end_matches('_');
        let family = bytes.get(end) == Some(&b'*');
        if !preceded && !family && name.len() > "ENGRAM".len() {
            out.insert(name.to_owned());
        }
        i = end;
    }
    out
}

/// The files that can read a setting: sources, tests, examples, scripts,
/// the Makefile, CI and the deployment files (not the docs).
fn readers(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "node_modules" | "target" | "dist" | ".venv") {
                    walk(&path, out);
                }
            } else if !name.ends_with(".md") && !path.ends_with("it/configuration.rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for dir in [
        "crates",
        "scripts",
        "tests",
        "examples",
        "deploy",
        "clients/python/src",
        "clients/typescript/src",
        ".ci",
    ] {
        walk(&root.join(dir), &mut out);
    }
    for file in ["Makefile", "docker-compose.yml", "Dockerfile"] {
        out.push(root.join(file));
    }
    out
}

#[test]
fn every_setting_is_documented_and_every_documented_one_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut read = BTreeSet::new();
    for file in readers(&root) {
        if let Ok(text) = std::fs::read_to_string(&file) {
            read.extend(names(&text));
        }
    }
    assert!(
        read.contains("ENGRAM_DATABASE_URL") && read.len() > 60,
        "the sources are read: {read:?}"
    );
    let doc =
        std::fs::read_to_string(root.join("docs/CONFIGURATION.md")).expect("docs/CONFIGURATION.md");
    let documented = names(&doc);
    let missing: Vec<_> = read.difference(&documented).collect();
    let gone: Vec<_> = documented.difference(&read).collect();
    assert!(
        missing.is_empty(),
        "read but not in docs/CONFIGURATION.md: {missing:?}"
    );
    assert!(
        gone.is_empty(),
        "in docs/CONFIGURATION.md but read nowhere: {gone:?}"
    );
}

#[test]
fn names_are_read_whole() {
    let found = names("ENGRAM_A=1 x$ENGRAM_B_C, ENGRAM_CONSOLIDATION_* MY_ENGRAM_D `ENGRAM_E_`");
    let want: BTreeSet<String> = ["ENGRAM_A", "ENGRAM_B_C", "ENGRAM_E"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
}

#[test]
fn the_repository_has_one_licence() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read =
        |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert!(read("LICENSE").contains("Apache License") && read("LICENSE").contains("Version 2.0"));
    for (file, line) in [
        ("Cargo.toml", "license = \"Apache-2.0\""),
        ("clients/python/pyproject.toml", "license = \"Apache-2.0\""),
        (
            "clients/typescript/package.json",
            "\"license\": \"Apache-2.0\"",
        ),
    ] {
        assert!(read(file).contains(line), "{file} does not say {line}");
    }
    for file in [
        "Cargo.toml",
        "clients/python/pyproject.toml",
        "clients/typescript/package.json",
    ] {
        for line in read(file).lines().filter(|l| {
            l.trim_start()
                .trim_start_matches('"')
                .starts_with("license")
        }) {
            assert!(line.contains("Apache-2.0"), "{file}: {line}");
        }
    }
}
