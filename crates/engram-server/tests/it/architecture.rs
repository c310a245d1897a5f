//! The crate graph as designed, held by reading `cargo metadata`: core
//! depends on no workspace crate; the adapters (store, embed, llm) and the
//! context logic depend only on core; the API never on the worker or the
//! LLM crate (background work goes through the job queue); the MCP crate on
//! core only and the Mem0 crate on none (their operations are REST calls); nothing depends on the server
//! binary's crate. And the folder rules inside the crates, held by reading
//! the sources: text splitting below every path that uses it, the write
//! policy apart from extraction, routes that never import routes, SQL only
//! where SQL belongs (docs/ARCHITECTURE.md).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Each workspace crate and the workspace crates it may use (normal
/// dependencies; dev-dependencies are free for tests, except on the server).
const ALLOWED: &[(&str, &[&str])] = &[
    ("engram-core", &[]),
    ("engram-context", &["engram-core"]),
    ("engram-e5", &[]),
    ("engram-embed", &["engram-core", "engram-e5"]),
    ("engram-llm", &["engram-core"]),
    ("engram-store", &["engram-core"]),
    ("engram-mcp", &["engram-core"]),
    ("engram-mem0", &[]),
    ("engram-console", &[]),
    (
        "engram-worker",
        &["engram-core", "engram-store", "engram-context"],
    ),
    (
        "engram-api",
        &["engram-core", "engram-store", "engram-context"],
    ),
    (
        "engram-bench",
        &["engram-core", "engram-store", "engram-embed"],
    ),
    (
        "engram-server",
        &[
            "engram-core",
            "engram-context",
            "engram-embed",
            "engram-llm",
            "engram-store",
            "engram-worker",
            "engram-api",
            "engram-mcp",
            "engram-mem0",
            "engram-console",
        ],
    ),
];

/// (crate, dependency, kind) for every edge between workspace crates.
fn edges() -> Vec<(String, String, String)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{out:?}");
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: BTreeSet<String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    let mut edges = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            if members.contains(dep) {
                edges.push((
                    p["name"].as_str().unwrap().to_owned(),
                    dep.to_owned(),
                    d["kind"].as_str().unwrap_or("normal").to_owned(),
                ));
            }
        }
    }
    edges
}

/// The edges `ALLOWED` forbids.
fn violations(edges: &[(String, String, String)]) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut bad = Vec::new();
    for (from, to, kind) in edges {
        if to == "engram-server" {
            bad.push(format!(
                "{from} -> {to} ({kind}): nothing depends on the server"
            ));
            continue;
        }
        if kind == "dev" {
            continue;
        }
        match allowed.get(from.as_str()) {
            Some(ok) if ok.contains(&to.as_str()) => {}
            Some(_) => bad.push(format!("{from} -> {to} ({kind})")),
            None => bad.push(format!("{from} is not in the designed graph")),
        }
    }
    bad
}

#[test]
fn the_crate_graph_is_the_designed_one() {
    let edges = edges();
    assert!(
        edges
            .iter()
            .any(|(f, t, _)| f == "engram-api" && t == "engram-store"),
        "the graph is read: {edges:?}"
    );
    let bad = violations(&edges);
    assert!(bad.is_empty(), "edges the design forbids: {bad:#?}");
}

#[test]
fn a_forbidden_edge_is_caught() {
    // The check itself, on the edges the issue names.
    let mut edges = edges();
    for (from, to) in [
        ("engram-api", "engram-worker"),
        ("engram-api", "engram-llm"),
        ("engram-mcp", "engram-store"),
        ("engram-mcp", "engram-api"),
        ("engram-store", "engram-context"),
        ("engram-core", "engram-store"),
        ("engram-worker", "engram-server"),
    ] {
        edges.push((from.into(), to.into(), "normal".into()));
    }
    assert_eq!(violations(&edges).len(), 7, "{:#?}", violations(&edges));
}

/// Folder rules inside the crates: (files under this folder, relative to
/// `crates/`, may not name any of these paths). Tests (from the first
/// `#[cfg(test)]` on) are free to.
const FOLDER_RULES: &[(&str, &[&str], &str)] = &[
    (
        "engram-core/src/text/",
        &[
            "crate::extract",
            "crate::policy",
            "crate::decide",
            "crate::write",
            "crate::read",
            "crate::lifecycle",
            "crate::consolidate",
            "crate::forget",
            "crate::scoring",
            "crate::hybrid",
            "crate::querytime",
        ],
        "text splitting and statements are below every path that uses them",
    ),
    (
        "engram-core/src/write/policy/",
        &[
            "crate::extract",
            "crate::write::extract",
            "super::super::extract",
        ],
        "the write policy does not import extraction",
    ),
    (
        "engram-api/src/routes/",
        &["crate::routes::", "super::"],
        "routes do not import routes: share a use-case, a dto or an extractor",
    ),
];

/// Crates whose own code may speak SQL (`sqlx`): the store, the worker's
/// LISTEN, the server's wiring and the benchmark's raw-SQL baseline.
const SQL_CRATES: &[&str] = &[
    "engram-store",
    "engram-worker",
    "engram-server",
    "engram-bench",
];

/// What in `source` (the file at `path`, relative to `crates/`) breaks a
/// folder rule.
fn folder_violations(path: &str, source: &str) -> Vec<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    let mut bad = Vec::new();
    for (folder, forbidden, why) in FOLDER_RULES {
        if !path.starts_with(folder) || path.ends_with("/mod.rs") && folder.ends_with("routes/") {
            continue;
        }
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for f in *forbidden {
                if line.contains(f) {
                    bad.push(format!("{path}:{}: `{f}`: {why}", n + 1));
                }
            }
        }
    }
    let krate = path.split('/').next().unwrap_or("");
    if !SQL_CRATES.contains(&krate) && code.contains("sqlx::") {
        bad.push(format!(
            "{path}: sqlx outside the store: SQL lives in engram-store"
        ));
    }
    bad
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crates' folder and every `.rs` file under their `src/`.
fn workspace_sources() -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in std::fs::read_dir(&crates).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    (crates, files)
}

#[test]
fn the_folders_keep_their_rules() {
    let (crates, files) = workspace_sources();
    assert!(files.len() > 100, "the sources are read: {}", files.len());
    let mut bad = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&crates)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        bad.extend(folder_violations(
            &rel,
            &std::fs::read_to_string(file).unwrap(),
        ));
    }
    assert!(bad.is_empty(), "folder rules broken: {bad:#?}");
}

#[test]
fn a_broken_folder_rule_is_caught() {
    let cases = [
        (
            "engram-core/src/write/policy/screen.rs",
            "use crate::extract::rules::clauses;",
        ),
        (
            "engram-core/src/text/split.rs",
            "use crate::policy::find_secret;",
        ),
        (
            "engram-api/src/routes/add.rs",
            "use crate::routes::jobs::wait_for_job;",
        ),
        (
            "engram-api/src/routes/context.rs",
            "use super::gdpr::path_identifier;",
        ),
        (
            "engram-api/src/usecases/search.rs",
            "let rows = sqlx::query(\"SELECT 1\");",
        ),
    ];
    for (path, line) in cases {
        assert_eq!(folder_violations(path, line).len(), 1, "{path}: {line}");
    }
    // A comment, a test module and the route table itself are free.
    assert!(folder_violations("engram-core/src/write/policy/a.rs", "// crate::extract").is_empty());
    assert!(folder_violations(
        "engram-core/src/write/policy/a.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests { use crate::extract::RulesExtractor; }"
    )
    .is_empty());
    assert!(
        folder_violations("engram-api/src/routes/mod.rs", "use crate::routes::add;").is_empty()
    );
}

/// The workspace forbids unsafe code except at the one C boundary, the
/// vendored e5 engine's wrapper (its manifest denies it but for that file).
#[test]
fn unsafe_code_stays_at_the_c_boundary() {
    let (crates, files) = workspace_sources();
    let with_unsafe: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains("unsafe "))
        })
        .map(|f| {
            f.strip_prefix(&crates)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(with_unsafe, vec!["engram-e5/src/lib.rs".to_owned()]);
}
