//! The deployment files for users, read without a Docker engine:
//! docker-compose.yml parses with Debian's docker-compose whether or not the
//! key is set, and keeps its hardening; the Dockerfile installs the same
//! pinned model as `make run` and builds offline-safe. `make test-docker`
//! (scripts/test-docker.sh) runs both for real on a Docker engine.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn compose_config(api_key: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new("docker-compose");
    cmd.arg("-f")
        .arg(root().join("docker-compose.yml"))
        .arg("config");
    match api_key {
        Some(k) => cmd.env("ENGRAM_API_KEY", k),
        None => cmd.env_remove("ENGRAM_API_KEY"),
    };
    cmd.output()
        .expect("docker-compose runs (`make test` installs it)")
}

/// The file parses without the key, so `down` and `logs` work; the key is
/// passed through empty, and `engram serve` refuses to start without one
/// (tests/it/startup.rs `serve_without_a_key_refuses_to_start`).
#[test]
fn compose_file_is_valid_without_the_key_and_passes_it_through() {
    for key in [Some("k3y"), None] {
        let out = compose_config(key);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{key:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let config: serde_yaml::Value = serde_yaml::from_str(&stdout).unwrap();
        let engram = &config["services"]["engram"];
        assert_eq!(
            engram["environment"]["ENGRAM_API_KEY"]
                .as_str()
                .unwrap_or(""),
            key.unwrap_or(""),
            "{stdout}"
        );
        // Hardening that a later edit must not lose.
        assert_eq!(engram["read_only"], serde_yaml::Value::Bool(true));
        assert!(engram["cap_drop"]
            .as_sequence()
            .is_some_and(|c| c.iter().any(|v| v.as_str() == Some("ALL"))));
        assert!(engram["mem_limit"].as_str().is_some(), "{stdout}");
        // Image names come from variables: what make test-docker sets.
        assert_eq!(engram["image"].as_str(), Some("engram:latest"));
        assert_eq!(
            config["services"]["postgres"]["image"].as_str(),
            Some("pgvector/pgvector:pg16")
        );
    }
}

#[test]
fn the_dockerfile_needs_no_frontend_image_and_checks_readiness() {
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    assert!(
        !dockerfile.lines().any(|l| l.starts_with("# syntax")),
        "a `# syntax=` line makes BuildKit fetch a frontend image"
    );
    let check = dockerfile
        .lines()
        .find(|l| l.starts_with("HEALTHCHECK"))
        .expect("a HEALTHCHECK");
    assert!(check.contains("/readyz"), "{check}");
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
