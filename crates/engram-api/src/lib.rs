//! Engram's HTTP API: the axum router, thin handlers, auth, and the mapping of
//! every error to RFC 9457 problem documents.

mod auth;
pub mod dto;
mod error;
mod extract;
mod routes;
mod state;

use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{Method, Request};
use axum::middleware::from_fn_with_state;
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

pub use error::ApiError;
pub use routes::health::OPENAPI_YAML;
pub use state::{ApiConfig, ApiKey, AppState, Caller, UsageRecorder};

use routes::{add, health, jobs, memories};

struct Route {
    method: Method,
    path: &'static str,
    authenticated: bool,
    handler: MethodRouter<AppState>,
}

fn route<H, T>(method: Method, path: &'static str, authenticated: bool, handler: H) -> Route
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).unwrap_or(MethodFilter::GET);
    Route {
        method,
        path,
        authenticated,
        handler: on(filter, handler),
    }
}

/// Every operation the server has, in one list: the router is built from it and
/// a test compares it with `openapi.yaml`.
fn routes() -> Vec<Route> {
    vec![
        route(Method::GET, "/healthz", false, health::healthz),
        route(Method::GET, "/readyz", false, health::readyz),
        route(Method::GET, "/openapi.yaml", false, health::get_openapi),
        route(Method::POST, "/v1/memories", true, add::add_memories),
        route(Method::GET, "/v1/memories", true, memories::list_memories),
        route(
            Method::DELETE,
            "/v1/memories",
            true,
            memories::delete_memories,
        ),
        route(
            Method::POST,
            "/v1/memories/search",
            true,
            memories::search_memories,
        ),
        route(Method::GET, "/v1/memories/{id}", true, memories::get_memory),
        route(
            Method::PATCH,
            "/v1/memories/{id}",
            true,
            memories::update_memory,
        ),
        route(
            Method::DELETE,
            "/v1/memories/{id}",
            true,
            memories::delete_memory,
        ),
        route(
            Method::GET,
            "/v1/memories/{id}/history",
            true,
            memories::get_memory_history,
        ),
        route(
            Method::POST,
            "/v1/memories/{id}/revert",
            true,
            memories::revert_memory,
        ),
        route(Method::GET, "/v1/jobs/{id}", true, jobs::get_job),
    ]
}

/// (method, path) of every operation, as the router serves them.
pub fn route_table() -> Vec<(Method, &'static str)> {
    routes().into_iter().map(|r| (r.method, r.path)).collect()
}

/// The whole application, ready to serve.
pub fn app(state: AppState) -> Router {
    let (mut public, mut private) = (Router::new(), Router::new());
    for r in routes() {
        if r.authenticated {
            private = private.route(r.path, r.handler);
        } else {
            public = public.route(r.path, r.handler);
        }
    }
    let private = private.route_layer(from_fn_with_state(state.clone(), auth::require_api_key));
    let max_body = state.config.max_body_bytes;
    public
        .merge(private)
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(max_body))
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
        .with_state(state)
}
