//! The deployment files for users: docker-compose.yml validates with Debian's
//! docker-compose (no Docker engine runs here), and the Dockerfile installs the
//! same pinned model as `make run`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn compose_config(api_key: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new("docker-compose");
    cmd.arg("-f")
        .arg(root().join("docker-compose.yml"))
        .args(["config", "-q"]);
    match api_key {
        Some(k) => cmd.env("ENGRAM_API_KEY", k),
        None => cmd.env_remove("ENGRAM_API_KEY"),
    };
    cmd.output()
        .expect("docker-compose runs (`make test` installs it)")
}

#[test]
fn compose_file_is_valid_and_demands_an_api_key() {
    let ok = compose_config(Some("k"));
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let missing = compose_config(None);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("ENGRAM_API_KEY"));
}

#[test]
fn dockerfile_is_multi_stage_runs_as_non_root_and_pins_the_model_like_make_run() {
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let setup = std::fs::read_to_string(root().join("scripts/dev-env.sh")).unwrap();
    assert!(
        dockerfile
            .lines()
            .filter(|l| l.starts_with("FROM "))
            .count()
            >= 2
    );
    let user = dockerfile
        .lines()
        .rev()
        .find(|l| l.starts_with("USER "))
        .expect("a USER line");
    assert_ne!(user.trim(), "USER root");
    let pinned = |text: &str, key: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.contains(key))
            .unwrap_or_else(|| panic!("{key} is pinned"));
        line.split('=').nth(1).unwrap().trim_matches('"').to_owned()
    };
    assert_eq!(
        pinned(&dockerfile, "ARG MODEL_PKG_VERSION="),
        pinned(&setup, "MODEL_PKG_VERSION=")
    );
}
