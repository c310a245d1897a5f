//! The crate graph as designed, held by reading `cargo metadata`: core
//! depends on no workspace crate; the adapters (store, embed, llm) and the
//! context logic depend only on core; the API never on the worker or the
//! LLM crate (background work goes through the job queue); the MCP crate on
//! core only (its tools are REST calls); nothing depends on the server
//! binary's crate.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Each workspace crate and the workspace crates it may use (normal
/// dependencies; dev-dependencies are free for tests, except on the server).
const ALLOWED: &[(&str, &[&str])] = &[
    ("engram-core", &[]),
    ("engram-context", &["engram-core"]),
    ("engram-embed", &["engram-core"]),
    ("engram-llm", &["engram-core"]),
    ("engram-store", &["engram-core"]),
    ("engram-mcp", &["engram-core"]),
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
