//! The web console at `/console`: a page, its ES modules (one per view) and
//! a style sheet built into the binary (no build step: plain ES modules), so `make run` and the
//! image serve it with nothing else installed. It holds no logic the API
//! does not: every view and action is an API call made in the browser with
//! the key the user signed in with, so the console can do exactly what that
//! key can (docs/CONSOLE.md).
//!
//! Safe by construction: memory texts are attacker-controlled, so the script
//! renders everything as text (`textContent`, never `innerHTML`), and the
//! answers carry a Content-Security-Policy that allows only these assets
//! (no inline script, no other origin, no framing).

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// Where the console is mounted.
pub const PATH: &str = "/console";

const INDEX: &str = include_str!("../assets/index.html");

const JS: &str = "text/javascript; charset=utf-8";

/// Every file under `/console/`: (name, body, media type). The scripts are
/// ES modules importing each other by relative path, one per view.
pub const ASSETS: [(&str, &str, &str); 8] = [
    (
        "console.css",
        include_str!("../assets/console.css"),
        "text/css; charset=utf-8",
    ),
    ("console.js", include_str!("../assets/console.js"), JS),
    ("core.js", include_str!("../assets/core.js"), JS),
    ("people.js", include_str!("../assets/people.js"), JS),
    ("memory.js", include_str!("../assets/memory.js"), JS),
    ("recall.js", include_str!("../assets/recall.js"), JS),
    ("requests.js", include_str!("../assets/requests.js"), JS),
    ("operations.js", include_str!("../assets/operations.js"), JS),
];

/// Only this origin's script, style and API; nothing inline, no frames,
/// no forms posting elsewhere, no plugins.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                       connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut resp = body.into_response();
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// The console's routes: the page and its assets (public: they hold no data).
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let mut router = Router::new().route(
        PATH,
        get(|| async { asset(INDEX, "text/html; charset=utf-8") }),
    );
    for (name, body, media) in ASSETS {
        router = router.route(
            &format!("{PATH}/{name}"),
            get(move || async move { asset(body, media) }),
        );
    }
    router
}
