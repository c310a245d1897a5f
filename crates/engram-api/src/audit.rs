//! Key use on the admin and GDPR endpoints goes to the audit log: which key,
//! which operation, the outcome, and the user concerned by hash only.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::state::{AppState, Caller};

pub async fn record_admin_use(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let caller = req.extensions().get::<Caller>().cloned();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_default();
    let method = req.method().to_string();
    let user = user_segment(req.uri().path());
    let response = next.run(req).await;
    if let Some(caller) = caller {
        let mut entry = caller.audit("admin.request");
        entry.target = Some(format!("{method} {route}"));
        entry.details = serde_json::json!({"status": response.status().as_u16()});
        // Written after the response is built, off its path: a failure to
        // audit a read is logged, not turned into a failed read.
        tokio::spawn(async move {
            if let Some(u) = user {
                match state.store.subject_hash(caller.tenant_id, &u).await {
                    Ok(h) => entry.subject_hash = Some(h),
                    Err(e) => tracing::warn!(error = %e, "could not read the subject key"),
                }
            }
            if let Err(e) = state.store.audit(&entry).await {
                tracing::warn!(error = %e, "could not write an audit entry");
            }
        });
    }
    response
}

/// The `{user_id}` of `/v1/admin/users/{user_id}/...`, percent-decoded.
fn user_segment(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/v1/admin/users/")?;
    let raw = rest.split('/').next()?;
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_user_in_admin_paths() {
        assert_eq!(
            user_segment("/v1/admin/users/alice/export").as_deref(),
            Some("alice")
        );
        assert_eq!(
            user_segment("/v1/admin/users/a%20b").as_deref(),
            Some("a b")
        );
        assert_eq!(user_segment("/v1/admin/keys"), None);
        assert_eq!(user_segment("/v1/admin/users/%ff"), None);
    }
}
