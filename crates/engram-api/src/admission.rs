//! Admission: which requests may hold a slot, and for how long. A request
//! passes, outermost first:
//!
//! 1. its **peer's cap** (requests in flight from one IP address, bodies
//!    being read or written included);
//! 2. **authentication**, from the head alone (no body is read for a request
//!    without a valid key), with failed attempts limited per peer so that
//!    unknown keys cannot make a database lookup each without end;
//! 3. its **key's cap** (requests in flight with one key), so one client
//!    cannot hold every server-wide slot;
//! 4. the **role check** (`auth::require`), so a key that may not make the
//!    request is refused before anything it sends is read;
//! 5. its **body, read whole within a deadline**, so a client trickling a
//!    body is cut off and holds no server-wide slot while it trickles;
//! 6. the **server-wide permit** (load shedding, `lib.rs`), taken only now.
//!
//! The peer and key slots are held until the response body has been sent
//! (they ride along with it), so a slow reader counts against its own caps.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use uuid::Uuid;

use crate::error::ApiError;

/// Counts of requests in flight per key (a peer, an API key), each below a cap.
pub struct InFlight<K> {
    cap: usize,
    counts: Mutex<HashMap<K, usize>>,
}

/// One request's place in an [`InFlight`] count, given back when dropped.
pub struct Slot<K: Eq + Hash> {
    owner: Arc<InFlight<K>>,
    key: K,
}

impl<K: Eq + Hash + Clone> InFlight<K> {
    /// A count capped at `cap` per key; 0 means no cap.
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap,
            counts: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for `key`, unless it already holds `cap` of them.
    pub fn try_take(self: &Arc<Self>, key: K) -> Option<Slot<K>> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts.entry(key.clone()).or_insert(0);
        if self.cap > 0 && *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(Slot {
            owner: self.clone(),
            key,
        })
    }

    /// Requests in flight for `key` now.
    pub fn held(&self, key: &K) -> usize {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.get(key).copied().unwrap_or(0)
    }
}

impl<K: Eq + Hash> Drop for Slot<K> {
    fn drop(&mut self) {
        let mut counts = self.owner.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// Failed authentications per peer: past the allowance a peer's unknown
/// keys are refused 429 without a database lookup for a moment. Keys that
/// authenticated recently are still looked up (and checked in full), so a
/// flood of bad keys through a shared proxy address does not lock out the
/// good ones behind it.
pub struct AuthFailures {
    limiter: Option<governor::DefaultKeyedRateLimiter<IpAddr>>,
    blocked: Mutex<HashMap<IpAddr, Instant>>,
    recently_valid: Mutex<lru::LruCache<Uuid, Instant>>,
}

/// How long a key that authenticated stays "known good" for a blocked peer.
const KNOWN_GOOD: Duration = Duration::from_secs(600);
/// Entries kept before the maps are pruned.
const PRUNE_AT: usize = 10_000;

impl AuthFailures {
    /// `per_second` failures a peer may have on average (bursts of twice
    /// that); 0 turns the limit off.
    pub fn new(per_second: u32) -> Self {
        let limiter = std::num::NonZeroU32::new(per_second).map(|n| {
            let burst = n.saturating_mul(std::num::NonZeroU32::MIN.saturating_add(1));
            governor::RateLimiter::keyed(governor::Quota::per_second(n).allow_burst(burst))
        });
        Self {
            limiter,
            blocked: Mutex::new(HashMap::new()),
            recently_valid: Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(PRUNE_AT).unwrap_or(std::num::NonZeroUsize::MIN),
            )),
        }
    }

    /// Whether a key with this id from this peer may be looked up now; the
    /// wait before it may, if not.
    pub fn wait(&self, peer: Option<IpAddr>, key_id: Option<Uuid>) -> Option<Duration> {
        let peer = peer?;
        let now = Instant::now();
        let until = {
            let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
            match blocked.get(&peer) {
                Some(&t) if t > now => t,
                Some(_) => {
                    blocked.remove(&peer);
                    return None;
                }
                None => return None,
            }
        };
        let known = key_id.is_some_and(|id| {
            let mut valid = self
                .recently_valid
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            valid
                .get(&id)
                .is_some_and(|at| now.duration_since(*at) < KNOWN_GOOD)
        });
        (!known).then(|| until - now)
    }

    /// A failed authentication from `peer`.
    pub fn failed(&self, peer: Option<IpAddr>) {
        let (Some(peer), Some(limiter)) = (peer, &self.limiter) else {
            return;
        };
        if let Err(not_until) = limiter.check_key(&peer) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
            if blocked.len() >= PRUNE_AT {
                let now = Instant::now();
                blocked.retain(|_, t| *t > now);
                limiter.retain_recent();
            }
            blocked.insert(peer, Instant::now() + wait.max(Duration::from_millis(100)));
        }
    }

    /// A key that authenticated.
    pub fn succeeded(&self, key_id: Option<Uuid>) {
        if let Some(id) = key_id {
            let mut valid = self
                .recently_valid
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            valid.put(id, Instant::now());
        }
    }
}

/// What admission keeps between requests.
pub struct Admission {
    pub peers: Arc<InFlight<IpAddr>>,
    pub keys: Arc<InFlight<Uuid>>,
    pub auth_failures: AuthFailures,
    /// Exports being read from the database at once (each holds a pooled
    /// connection while it does).
    pub exports: Arc<tokio::sync::Semaphore>,
    /// A body's size and how long it may take to arrive.
    max_body_bytes: usize,
    body_timeout: std::time::Duration,
}

impl Admission {
    pub fn new(config: &crate::ApiConfig) -> Self {
        Self {
            peers: InFlight::new(config.max_requests_per_peer),
            keys: InFlight::new(config.max_requests_per_key),
            auth_failures: AuthFailures::new(config.auth_failures_per_second),
            exports: Arc::new(tokio::sync::Semaphore::new(
                config.max_concurrent_exports.max(1),
            )),
            max_body_bytes: config.max_body_bytes,
            body_timeout: config.body_timeout,
        }
    }
}

/// The peer a request came from (set by the server's accept loop; absent
/// when a test drives the router directly).
pub(crate) fn peer(req: &Request) -> Option<IpAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

/// Step 1: the peer's cap.
pub async fn peer_slot(
    State(admission): State<Arc<Admission>>,
    req: Request,
    next: Next,
) -> Response {
    let slot = match peer(&req) {
        Some(ip) => match admission.peers.try_take(ip) {
            Some(slot) => Some(slot),
            None => return ApiError::TooManyConcurrent("this address").into_response(),
        },
        None => None,
    };
    hold(next.run(req).await, slot)
}

/// Step 3 (after authentication): the key's cap, `key` being the caller's
/// key id (the nil id for the ENGRAM_API_KEY key).
pub(crate) async fn key_slot(
    admission: &Admission,
    key: Uuid,
    req: Request,
    next: Next,
) -> Response {
    match admission.keys.try_take(key) {
        Some(slot) => hold(next.run(req).await, Some(slot)),
        None => ApiError::TooManyConcurrent("this API key").into_response(),
    }
}

/// Step 5: the whole body within its deadline (408 and the connection
/// closed when it does not arrive in time; 413 when it is too large).
pub async fn read_body(
    State(admission): State<Arc<Admission>>,
    req: Request,
    next: Next,
) -> Response {
    let limit = admission.max_body_bytes;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return closing(ApiError::PayloadTooLarge.into_response());
    }
    let (parts, body) = req.into_parts();
    let bytes =
        match tokio::time::timeout(admission.body_timeout, axum::body::to_bytes(body, limit)).await
        {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) if too_large(&e) => {
                return closing(ApiError::PayloadTooLarge.into_response())
            }
            // The client went away or sent a malformed body.
            Ok(Err(_)) => return closing(ApiError::BodyIncomplete.into_response()),
            Err(_) => return closing(ApiError::BodyTimeout.into_response()),
        };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn too_large(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// The connection is closed after this response: what is left of the body
/// is not worth reading.
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// `response` with `guard` held until its body has been sent (or dropped).
pub(crate) fn hold<G: Send + Sync + Unpin + 'static>(response: Response, guard: G) -> Response {
    response.map(|body| {
        Body::new(Held {
            body,
            _guard: guard,
        })
    })
}

struct Held<G> {
    body: Body,
    _guard: G,
}

impl<G: Unpin> HttpBody for Held<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_capped_per_key_and_given_back() {
        let peers = InFlight::new(2);
        let a: IpAddr = [127, 0, 0, 1].into();
        let b: IpAddr = [127, 0, 0, 2].into();
        let first = peers.try_take(a).unwrap();
        let _second = peers.try_take(a).unwrap();
        assert!(peers.try_take(a).is_none(), "a third is refused");
        assert!(peers.try_take(b).is_some(), "another peer has its own");
        drop(first);
        assert_eq!(peers.held(&a), 1);
        assert!(peers.try_take(a).is_some());
        assert!(InFlight::new(0).try_take(a).is_some(), "0: no cap");
    }

    #[test]
    fn a_peer_past_its_failures_waits_but_known_keys_do_not() {
        let failures = AuthFailures::new(1);
        let peer = Some(IpAddr::from([10, 0, 0, 1]));
        let good = Uuid::now_v7();
        failures.succeeded(Some(good));
        assert!(failures.wait(peer, None).is_none());
        for _ in 0..3 {
            failures.failed(peer);
        }
        assert!(failures.wait(peer, None).is_some(), "unknown keys wait");
        assert!(failures.wait(peer, Some(Uuid::now_v7())).is_some());
        assert!(
            failures.wait(peer, Some(good)).is_none(),
            "a known key passes"
        );
        assert!(failures
            .wait(Some(IpAddr::from([10, 0, 0, 2])), None)
            .is_none());
        let off = AuthFailures::new(0);
        for _ in 0..100 {
            off.failed(peer);
        }
        assert!(off.wait(peer, None).is_none());
    }
}
