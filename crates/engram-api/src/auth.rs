//! Authentication and authorisation for `/v1`: which key is calling, which
//! tenant the request acts in, whether the key's role allows the operation,
//! and whether the key is within its rate limit.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next;
use axum::response::Response;
use engram_core::access::{hash_key, parse_key_id};
use engram_core::{Access, Role};
use engram_store::StoreError;
use governor::clock::{Clock, DefaultClock};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::error::ApiError;
use crate::headers::TENANT_HEADER;
use crate::state::{AppState, Caller};

/// Resolves the presented key to a caller, or refuses the request.
pub async fn authenticate(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let presented = bearer(req.headers()).ok_or(ApiError::Unauthorized)?;
    let peer = crate::admission::peer(&req);
    let failures = &state.admission.auth_failures;
    if let Some(wait) = failures.wait(peer, parse_key_id(presented)) {
        return Err(ApiError::RateLimited {
            retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
        });
    }
    let mut caller = match identify(&state, presented).await {
        Err(ApiError::Unauthorized) => {
            failures.failed(peer);
            return Err(ApiError::Unauthorized);
        }
        other => other?,
    };
    failures.succeeded(caller.key_id);
    caller.request_id = match req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
    {
        Some(id) => Some(audited_request_id(&state, id).await?),
        None => None,
    };
    if let Some(limiter) = &state.limiter {
        if let Err(not_until) = limiter.check_key(&caller.key_id.unwrap_or(Uuid::nil())) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            return Err(ApiError::RateLimited {
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            });
        }
    }
    if let Some(wanted) = tenant_header(req.headers())? {
        caller.tenant_id = resolve_tenant(&state, &caller, wanted).await?;
    }
    let key = caller.key_id.unwrap_or(Uuid::nil());
    req.extensions_mut().insert(caller);
    Ok(crate::admission::key_slot(&state.admission, key, req, next).await)
}

/// The request id as the audit log keeps it: a UUID (the server's own, or a
/// client's) as it is; any other id a client chose (which could name a
/// person: `erase-alice`) as a keyed hash, which the operator can recompute
/// for an id they hold but nobody can turn back into the id.
async fn audited_request_id(state: &AppState, id: &str) -> Result<String, ApiError> {
    if Uuid::try_parse(id).is_ok() {
        return Ok(id.to_owned());
    }
    let key = state.store.subject_key().await?;
    Ok(format!(
        "mac:{}",
        &key.mac("request-id", &[id.as_bytes()])[..32]
    ))
}

/// Refuses the request unless the caller's role allows `needed`. A role check,
/// not a resource check, so 403 reveals nothing about any row.
pub async fn require(needed: Access, req: Request, next: Next) -> Result<Response, ApiError> {
    let caller = req.extensions().get::<Caller>();
    // A key bound to one user never acts tenant-wide (GDPR views of every
    // user, erasure, source purges) nor deployment-wide.
    if caller.is_some_and(|c| c.binding.is_some())
        && matches!(needed, Access::TenantAdmin | Access::Admin)
    {
        return Err(ApiError::Forbidden(
            "this key is bound to one user and may not use tenant-wide operations",
        ));
    }
    let allowed = caller.is_some_and(|c| c.role.allows(needed));
    if !allowed {
        return Err(ApiError::Forbidden(match needed {
            Access::Admin => "this operation needs an admin key",
            Access::TenantAdmin | Access::Write => "this key may only read",
            Access::Read => "this key may not read",
        }));
    }
    Ok(next.run(req).await)
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
}

/// The caller a key stands for. Unknown, malformed and revoked keys are all
/// the same 401.
async fn identify(state: &AppState, presented: &str) -> Result<Caller, ApiError> {
    if state.api_key.matches(presented) {
        return Ok(Caller::env_admin());
    }
    let id = parse_key_id(presented).ok_or(ApiError::Unauthorized)?;
    let stored = match state.store.find_key(id).await {
        Ok(k) => k,
        Err(StoreError::NotFound) => return Err(ApiError::Unauthorized),
        Err(e) => return Err(e.into()),
    };
    let matches: bool = hash_key(presented).ct_eq(stored.key_hash.as_slice()).into();
    if !matches || stored.info.revoked_at.is_some() {
        return Err(ApiError::Unauthorized);
    }
    let role = stored.info.role();
    if role.records_use() {
        let store = state.store.clone();
        tokio::spawn(async move {
            if let Err(e) = store.touch_key(id).await {
                tracing::warn!(error = %e, "could not record key use");
            }
        });
    } else {
        // Read-only means no stored row changes, the key's own included:
        // its use is counted in /metrics instead.
        metrics::counter!("engram_read_only_key_requests_total", "key_id" => id.to_string())
            .increment(1);
    }
    Ok(Caller {
        tenant_id: stored.info.tenant_id.unwrap_or(engram_core::DEFAULT_TENANT),
        role,
        key_id: Some(id),
        actor: format!("key:{id}"),
        request_id: None,
        binding: stored.info.binding(),
    })
}

/// The tenant the header names; a value that cannot name one (empty, not
/// UTF-8) is a tenant that does not exist.
fn tenant_header(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    match headers.get(TENANT_HEADER) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .ok()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(Some)
            .ok_or(ApiError::TenantNotFound),
    }
}

/// The tenant the header names. Only admin keys may act in another tenant; for
/// any other key a different tenant is "not found", as it would be if it did
/// not exist.
async fn resolve_tenant(state: &AppState, caller: &Caller, wanted: &str) -> Result<Uuid, ApiError> {
    let (id, _) = match state.store.find_tenant(wanted).await {
        Ok(t) => t,
        Err(StoreError::NotFound) => return Err(ApiError::TenantNotFound),
        Err(e) => return Err(e.into()),
    };
    if caller.role != Role::Admin && id != caller.tenant_id {
        return Err(ApiError::TenantNotFound);
    }
    Ok(id)
}
