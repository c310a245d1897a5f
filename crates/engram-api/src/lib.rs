//! Engram's HTTP API: the axum router, thin handlers, auth, and the mapping of
//! every error to RFC 9457 problem documents.

mod admission;
mod audit;
mod auth;
mod binding;
pub mod dto;
mod error;
mod extractors;
mod headers;
pub mod metrics;
mod routes;
mod spool;
mod state;
mod timeout;
mod usecases;

use std::sync::Arc;

use axum::error_handling::HandleErrorLayer;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{header, HeaderName, HeaderValue};
use axum::http::{Method, Request};
use axum::middleware::from_fn;
use axum::middleware::from_fn_with_state;
use axum::response::IntoResponse;
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use engram_core::Access;
use tower::util::option_layer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

pub use admission::Admission;
pub use error::ApiError;
pub use headers::TENANT_HEADER;
pub use routes::health::OPENAPI_YAML;
pub use state::{
    ApiConfig, ApiKey, AppState, Caller, EpisodicConfig, KeyLimiter, ModelsInfo, RateLimit,
    UsageRecorder,
};

use routes::{add, admin, context, entities, gdpr, health, jobs, memories, sessions};

struct Route {
    method: Method,
    path: &'static str,
    /// `None` for the public endpoints (health, the spec).
    access: Option<Access>,
    handler: MethodRouter<AppState>,
}

fn route<H, T>(method: Method, path: &'static str, access: Option<Access>, handler: H) -> Route
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).unwrap_or(MethodFilter::GET);
    Route {
        method,
        path,
        access,
        handler: on(filter, handler),
    }
}

/// Every operation the server has, in one list with what it needs: the router
/// is built from it and tests compare it with `openapi.yaml` and walk it for
/// the leakage matrix.
fn routes() -> Vec<Route> {
    use Method as M;
    let (read, write) = (Some(Access::Read), Some(Access::Write));
    let (gdpr, admin_only) = (Some(Access::TenantAdmin), Some(Access::Admin));
    vec![
        route(M::GET, "/healthz", None, health::healthz),
        route(M::GET, "/readyz", None, health::readyz),
        route(M::GET, "/openapi.yaml", None, health::get_openapi),
        route(M::GET, "/metrics", None, metrics::get_metrics),
        route(M::POST, "/v1/memories", write, add::add_memories),
        route(M::GET, "/v1/memories", read, memories::list_memories),
        route(M::DELETE, "/v1/memories", write, memories::delete_memories),
        route(
            M::POST,
            "/v1/memories/search",
            read,
            memories::search_memories,
        ),
        route(
            M::POST,
            "/v1/memories/batch",
            write,
            memories::batch_memories,
        ),
        route(M::GET, "/v1/memories/{id}", read, memories::get_memory),
        route(
            M::PATCH,
            "/v1/memories/{id}",
            write,
            memories::update_memory,
        ),
        route(
            M::DELETE,
            "/v1/memories/{id}",
            write,
            memories::delete_memory,
        ),
        route(
            M::GET,
            "/v1/memories/{id}/history",
            read,
            memories::get_memory_history,
        ),
        route(
            M::POST,
            "/v1/memories/{id}/revert",
            write,
            memories::revert_memory,
        ),
        route(M::GET, "/v1/jobs", read, jobs::list_jobs),
        route(M::GET, "/v1/jobs/{id}", read, jobs::get_job),
        route(M::POST, "/v1/jobs/{id}/retry", write, jobs::retry_job),
        route(M::GET, "/v1/entities", read, entities::list_entities),
        route(
            M::POST,
            "/v1/sessions/{session_id}/messages",
            write,
            sessions::append_messages,
        ),
        route(
            M::GET,
            "/v1/sessions/{session_id}/messages",
            read,
            sessions::list_messages,
        ),
        route(
            M::DELETE,
            "/v1/sessions/{session_id}/messages",
            write,
            sessions::delete_session,
        ),
        route(
            M::GET,
            "/v1/sessions/{session_id}",
            read,
            sessions::get_session,
        ),
        route(M::POST, "/v1/context", read, context::build_context),
        route(M::GET, "/v1/me", read, admin::whoami),
        route(
            M::GET,
            "/v1/users/{user_id}/profile",
            read,
            context::get_profile,
        ),
        route(
            M::PATCH,
            "/v1/users/{user_id}/profile",
            write,
            context::patch_profile,
        ),
        route(M::POST, "/v1/admin/keys", admin_only, admin::create_key),
        route(M::GET, "/v1/admin/keys", admin_only, admin::list_keys),
        route(
            M::DELETE,
            "/v1/admin/keys/{id}",
            admin_only,
            admin::revoke_key,
        ),
        route(M::GET, "/v1/admin/audit", admin_only, admin::list_audit),
        route(
            M::POST,
            "/v1/admin/consolidate",
            admin_only,
            admin::consolidate,
        ),
        route(
            M::GET,
            "/v1/admin/consolidation-runs",
            admin_only,
            admin::list_consolidation_runs,
        ),
        route(
            M::GET,
            "/v1/admin/users/{user_id}/memories",
            gdpr,
            gdpr::list_user_memories,
        ),
        route(
            M::POST,
            "/v1/admin/users/{user_id}/search",
            gdpr,
            gdpr::search_user_memories,
        ),
        route(
            M::DELETE,
            "/v1/admin/users/{user_id}/memories/{id}",
            gdpr,
            gdpr::purge_user_memory,
        ),
        route(
            M::GET,
            "/v1/admin/users/{user_id}/export",
            gdpr,
            gdpr::export_user,
        ),
        route(
            M::GET,
            "/v1/admin/users/{user_id}",
            gdpr,
            gdpr::user_overview,
        ),
        route(
            M::DELETE,
            "/v1/admin/users/{user_id}",
            gdpr,
            gdpr::erase_user,
        ),
        route(
            M::DELETE,
            "/v1/admin/sources/{source_ref}",
            gdpr,
            gdpr::purge_source,
        ),
    ]
}

/// What each operation needs: `None` for public ones.
pub fn route_access() -> Vec<(Method, &'static str, Option<Access>)> {
    routes()
        .into_iter()
        .map(|r| (r.method, r.path, r.access))
        .collect()
}

/// (method, path) of every operation, as the router serves them.
pub fn route_table() -> Vec<(Method, &'static str)> {
    routes().into_iter().map(|r| (r.method, r.path)).collect()
}

/// The whole REST application, ready to serve.
pub fn app(state: AppState) -> Router {
    app_with(state, None)
}

/// The REST application with `extra` routes behind the same authentication
/// (any role that may read; the key's tenant and binding in the `Caller`
/// extension) and the same outer layers (request ids, tracing, metrics,
/// timeout), but outside the concurrency cap: the MCP endpoint, whose tool
/// calls are REST requests that each take their place under the cap.
pub fn app_with(state: AppState, extra: Option<Router<AppState>>) -> Router {
    let mut public = Router::new();
    let mut private = Router::new();
    // At most `max_concurrent_requests` authenticated requests at once; the
    // next is answered 503 at once (tower's load shedding) rather than
    // queued behind them. Health, the spec and metrics stay outside it, so
    // an orchestrator can still see a busy server is alive. One semaphore
    // for every route; the permit is taken last (admission.rs): after the
    // peer's and the key's caps, the role check and the body's arrival.
    let permits = Arc::new(tokio::sync::Semaphore::new(
        state.config.max_concurrent_requests.max(1),
    ));
    let overload = || {
        tower::ServiceBuilder::new()
            .layer(HandleErrorLayer::new(|_: tower::BoxError| async {
                ApiError::Overloaded
            }))
            .load_shed()
            .layer(tower::limit::GlobalConcurrencyLimitLayer::with_semaphore(
                permits.clone(),
            ))
    };
    for access in [
        Access::Read,
        Access::Write,
        Access::TenantAdmin,
        Access::Admin,
    ] {
        let mut group = Router::new();
        for r in routes().into_iter().filter(|r| r.access == Some(access)) {
            group = group.route(r.path, r.handler);
        }
        group = group
            .route_layer(overload())
            .route_layer(from_fn_with_state(
                state.admission.clone(),
                admission::read_body,
            ));
        if matches!(access, Access::TenantAdmin | Access::Admin) {
            group = group.route_layer(from_fn_with_state(state.clone(), audit::record_admin_use));
        }
        // The role before the body: a key that may not do this is refused
        // without reading what it sends.
        group = group.route_layer(from_fn(move |req, next| auth::require(access, req, next)));
        private = private.merge(group);
    }
    for r in routes().into_iter().filter(|r| r.access.is_none()) {
        public = public.route(r.path, r.handler);
    }
    let authenticated = |router: Router<AppState>| {
        router
            .route_layer(from_fn_with_state(state.clone(), auth::authenticate))
            .route_layer(from_fn_with_state(
                state.admission.clone(),
                admission::peer_slot,
            ))
    };
    let private = authenticated(private);
    // (route_layer refuses a router without routes, hence the Option.)
    let extra = extra.map_or_else(Router::new, |extra| {
        authenticated(
            extra
                .route_layer(from_fn_with_state(
                    state.admission.clone(),
                    admission::read_body,
                ))
                .route_layer(from_fn(|req, next| auth::require(Access::Read, req, next))),
        )
    });
    let max_body = state.config.max_body_bytes;
    let timeout = state.config.request_timeout;
    let cors = cors_layer(&state.config.cors_origins);
    public
        .merge(private)
        .merge(extra)
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(max_body))
        // A handler that panics (a bug; a value the decoder cannot represent)
        // answers 500 like any internal error instead of dropping the
        // connection; the panic hook logs where, never what.
        .layer(CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| {
                ApiError::Internal("a handler panicked".into()).into_response()
            },
        ))
        .layer(from_fn(move |req, next| {
            timeout::timeout(timeout, req, next)
        }))
        // Outside the timeout, so requests answered 503 for it are counted.
        .layer(from_fn(metrics::track))
        .layer(
            // Spans carry the route template and request id, never bodies.
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let route = req
                    .extensions()
                    .get::<axum::extract::MatchedPath>()
                    .map(|p| p.as_str().to_owned())
                    .unwrap_or_else(|| "unmatched".into());
                let request_id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                tracing::info_span!("request", method = %req.method(), route, request_id)
            }),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        // A client's request id is kept only if it looks like one (1-128
        // visible ASCII characters); otherwise the server makes its own.
        .layer(from_fn(sane_request_id))
        .layer(option_layer(cors))
        .with_state(state)
}

async fn sane_request_id(
    mut req: Request<axum::body::Body>,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let sane = |v: &HeaderValue| {
        (1..=128).contains(&v.len()) && v.as_bytes().iter().all(|b| b.is_ascii_graphic())
    };
    if req.headers().get("x-request-id").is_some_and(|v| !sane(v)) {
        req.headers_mut().remove("x-request-id");
    }
    next.run(req).await
}

/// CORS only for the configured origins; none configured, no CORS headers, so
/// browsers keep refusing cross-origin calls (keys do not belong in browsers).
fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let origins: Vec<HeaderValue> = origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                HeaderName::from_static(headers::TENANT_HEADER),
            ]),
    )
}
