//! The HTTP/1.1 accept loop: hyper serving the axum app, with the connection
//! deadlines axum's own `serve` does not have.
//!
//! - **Header timeout**: a request's head must arrive complete within it,
//!   counted from its first byte, or from the accept for a new connection
//!   (so a connection that sends nothing, or trickles header lines, is
//!   closed).
//! - **Idle timeout**: a kept-alive connection with no request in progress
//!   and no bytes moving is closed after it.
//!
//! - **Write timeout**: a response write the client does not take for this
//!   long (it stopped reading, or reads a byte now and then) closes the
//!   connection, whatever is in flight.
//!
//! Each request carries its peer's address (`ConnectInfo`), which the API's
//! admission caps count by.
//!
//! hyper's own `header_read_timeout` starts counting when it begins waiting
//! for a head, idle time included, so it cannot tell the two apart; these
//! deadlines are kept per connection instead (Go's `ReadHeaderTimeout` and
//! `IdleTimeout` work the same way). HTTP/1.1 only: put a TLS proxy in front
//! for HTTP/2 (docs/GDPR.md, *TLS*).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

/// Deadlines on connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub write_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            // Longer than the 60 s a reverse proxy such as nginx keeps an
            // idle upstream connection, so the proxy closes first.
            idle_timeout: Duration::from_secs(75),
            write_timeout: Duration::from_secs(30),
        }
    }
}

/// What the deadlines are computed from, updated by the connection's reads
/// and writes and by the requests it serves.
#[derive(Debug)]
struct Activity {
    /// Requests whose response is not yet produced.
    in_flight: usize,
    /// When the first byte of the next request's head arrived.
    head_started: Option<Instant>,
    /// The last time bytes moved (or the connection was accepted).
    last_moved: Instant,
    /// No request has been served yet.
    fresh: bool,
    /// Since when a write has been waiting for the client to take bytes.
    write_blocked: Option<Instant>,
}

type Shared = Arc<Mutex<Activity>>;

fn lock(a: &Shared) -> std::sync::MutexGuard<'_, Activity> {
    // A poisoned lock only means a panic elsewhere; the times are still usable.
    a.lock().unwrap_or_else(|e| e.into_inner())
}

impl Activity {
    /// When the connection must be closed, if nothing changes before.
    fn deadline(&self, limits: &ConnectionLimits) -> Option<Instant> {
        let stalled = self
            .write_blocked
            .and_then(|t| t.checked_add(limits.write_timeout));
        if self.in_flight > 0 {
            return stalled;
        }
        let (from, limit) = match self.head_started {
            Some(t) => (t, limits.header_timeout),
            None if self.fresh => (self.last_moved, limits.header_timeout),
            None => (self.last_moved, limits.idle_timeout),
        };
        // A timeout too large to add is no deadline at all.
        let idle = from.checked_add(limit);
        match (idle, stalled) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The socket, noting when bytes move.
struct TrackedIo {
    inner: TcpStream,
    activity: Shared,
}

impl AsyncRead for TrackedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let now = Instant::now();
            let mut a = lock(&self.activity);
            a.last_moved = now;
            if a.in_flight == 0 && a.head_started.is_none() {
                a.head_started = Some(now);
            }
        }
        poll
    }
}

impl AsyncWrite for TrackedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        match &poll {
            Poll::Ready(Ok(n)) if *n > 0 => {
                let mut a = lock(&self.activity);
                a.last_moved = Instant::now();
                a.write_blocked = None;
            }
            Poll::Pending => {
                let mut a = lock(&self.activity);
                a.write_blocked.get_or_insert_with(Instant::now);
            }
            _ => {}
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Marks a request in flight until its response is produced.
struct InFlight(Shared);

impl InFlight {
    fn begin(activity: &Shared) -> Self {
        let mut a = lock(activity);
        a.in_flight += 1;
        a.head_started = None;
        a.fresh = false;
        Self(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut a = lock(&self.0);
        a.in_flight = a.in_flight.saturating_sub(1);
        a.last_moved = Instant::now();
    }
}

/// Resolves when the connection has outlived its deadline.
async fn watchdog(activity: Shared, limits: ConnectionLimits) {
    loop {
        let deadline = lock(&activity).deadline(&limits);
        match deadline {
            Some(d) if Instant::now() >= d => return,
            // Woken early to notice a write that blocks meanwhile.
            Some(d) => {
                let soon = Instant::now() + limits.write_timeout.min(Duration::from_secs(1));
                tokio::time::sleep_until(d.min(soon).into()).await
            }
            // A request is being handled (bounded by the request timeout):
            // look again soon (a write may block meanwhile).
            None => tokio::time::sleep(limits.write_timeout.min(Duration::from_secs(1))).await,
        }
    }
}

/// Serves `app` until `shutdown` resolves, then lets in-flight requests
/// finish for up to `grace` and closes whatever is still open.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    // Each connection task holds a clone; when all are gone, every
    // connection has closed.
    let (open_tx, mut open_rx) = tokio::sync::mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            peer,
            app.clone(),
            limits,
            stop_rx.clone(),
            open_tx.clone(),
        ));
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(open_tx);
    if tokio::time::timeout(grace, open_rx.recv()).await.is_err() {
        tracing::warn!("requests still open after the shutdown grace period; closing them");
    }
    Ok(())
}

async fn connection(
    stream: TcpStream,
    peer: std::net::SocketAddr,
    app: Router,
    limits: ConnectionLimits,
    mut stop: watch::Receiver<bool>,
    _open: tokio::sync::mpsc::Sender<()>,
) {
    let activity: Shared = Arc::new(Mutex::new(Activity {
        in_flight: 0,
        head_started: None,
        last_moved: Instant::now(),
        fresh: true,
        write_blocked: None,
    }));
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        activity: activity.clone(),
    });
    let service = {
        let activity = activity.clone();
        tower::service_fn(move |req: hyper::Request<Incoming>| {
            let guard = InFlight::begin(&activity);
            let app = app.clone();
            async move {
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                let response = app.oneshot(req).await;
                drop(guard);
                response
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The deadlines above replace hyper's header timer.
    builder.header_read_timeout(None).keep_alive(true);
    let conn = builder.serve_connection(io, TowerToHyperService::new(service));
    tokio::pin!(conn);
    let expired = watchdog(activity, limits);
    tokio::pin!(expired);
    let mut stopping = *stop.borrow();
    if stopping {
        conn.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            _ = &mut expired => {
                tracing::debug!("closing a connection past its header or idle timeout");
                return;
            }
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    // Finish the request in progress, then close.
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}
