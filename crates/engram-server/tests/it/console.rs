//! The console's assets as served: public, each with the strict CSP and
//! the other hardening headers, and a script that never turns text into
//! HTML. The browser suite (`tests/console`, make test) drives the page.

use crate::common::spawn_app;
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn the_console_is_served_with_a_strict_csp(pool: PgPool) {
    let app = spawn_app(pool).await;
    let assets = engram_console::ASSETS
        .iter()
        .map(|(name, _, media)| (format!("/console/{name}"), *media));
    for (path, media) in
        std::iter::once(("/console".to_owned(), "text/html; charset=utf-8")).chain(assets)
    {
        let path = path.as_str();
        let r = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let h = r.headers();
        assert_eq!(h["content-type"], media, "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert_eq!(csp, engram_console::CSP);
        for needed in [
            "default-src 'none'",
            "script-src 'self'",
            "frame-ancestors 'none'",
            "connect-src 'self'",
        ] {
            assert!(csp.contains(needed), "{path}: {csp}");
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval") && !csp.contains("http")
        );
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["referrer-policy"], "no-referrer");
        assert_eq!(h["cache-control"], "no-store");
    }
    let page = app
        .client
        .get(app.url("/console"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("<script>") && !page.contains("style="),
        "no inline script or style"
    );
}

#[test]
fn the_scripts_never_render_text_as_html() {
    let scripts: Vec<_> = engram_console::ASSETS
        .iter()
        .filter(|(name, _, _)| name.ends_with(".js"))
        .collect();
    assert!(scripts.len() >= 2);
    for (name, script, _) in scripts {
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "localStorage",
            "DOMParser",
            "createContextualFragment",
        ] {
            assert!(!script.contains(sink), "{name} uses {sink}");
        }
        // The key is sent only as a header, never in a URL.
        assert!(!script.contains("?key=") && !script.contains("&key="));
        // Every module it imports is served.
        for import in script.split("from \"./").skip(1) {
            let file = import.split('"').next().unwrap();
            assert!(
                engram_console::ASSETS.iter().any(|(n, _, _)| *n == file),
                "{name} imports {file}, which is not served"
            );
        }
    }
}

/// The people search: a prefix is literal (`%` and `_` match themselves).
#[sqlx::test(migrations = false)]
async fn entities_take_a_literal_prefix(pool: PgPool) {
    let app = spawn_app(pool).await;
    for user in ["ada", "ada_x", "adaZx", "a%b", "axb", "bob"] {
        app.add_text(user, "I like tea.").await;
    }
    let ids = |r: crate::common::Reply| -> Vec<String> {
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(app.get("/v1/entities?type=user&prefix=ada").await),
        ["ada", "adaZx", "ada_x"]
    );
    assert_eq!(
        ids(app.get("/v1/entities?type=user&prefix=ada_").await),
        ["ada_x"]
    );
    assert_eq!(
        ids(app.get("/v1/entities?type=user&prefix=a%25").await),
        ["a%b"]
    );
    assert!(ids(app.get("/v1/entities?type=user&prefix=zz").await).is_empty());
    app.get("/v1/entities?type=user&prefix=")
        .await
        .assert_problem(422, Some("prefix"));
}
